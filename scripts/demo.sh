#!/usr/bin/env bash
# make demo: runs every arcport binary on bundled data and says where the
# results are. Needs only Go (the binaries are built by `make demo`).
set -euo pipefail
cd "$(dirname "$0")/.."
out=out/demo
rm -rf "$out"; mkdir -p "$out"
B=bin
have() { [ -x "$B/$1" ]; }
step() { printf '\n== %s\n' "$*"; }

if have arc2warc; then
  step "arc2warc: convert a bundled ARC to WARC 1.1"
  $B/arc2warc testdata/arc/example.arc.gz -o $out/example.warc.gz
  ls -l $out/example.warc.gz
  if have waczpack; then $B/waczpack index $out/example.warc.gz; fi
fi

if have mirrorget && have waczpack; then
  step "mirrorget | waczpack: copy the bundled garden site served on loopback"
  go run ./scripts/demoserve -dir testdata/htcache/garden-origin -for 5m > $out/server.url &
  srv=$!
  trap 'kill $srv 2>/dev/null || true' EXIT
  for _ in $(seq 50); do [ -s $out/server.url ] && break; sleep 0.1; done
  url=$(cat $out/server.url)
  echo "site: $url"
  $B/mirrorget -q -O $out/mirror "$url" | $B/waczpack -o $out/site.wacz --title "Garden Club" --url "$url"
  $B/waczpack validate $out/site.wacz && echo "site.wacz: valid"
  $B/waczpack ls $out/site.wacz
  echo "browsable copy: $out/mirror/index.html"
fi

if have zimdump; then
  step "zimdump: inspect a bundled ZIM"
  $B/zimdump info testdata/zim/nons/small.zim
  $B/zimdump list --details testdata/zim/nons/small.zim | head -20
fi

if have htcache; then
  step "htcache: read a real HTTrack cache and migrate it"
  $B/htcache info testdata/htcache/garden
  $B/htcache ls testdata/htcache/garden
  if have waczpack; then
    $B/htcache export testdata/htcache/garden | $B/waczpack -o $out/garden.wacz --title "Garden (from HTTrack)"
    $B/waczpack validate $out/garden.wacz && echo "garden.wacz: valid"
  fi
fi

step "results in $out/:"
ls -l $out
