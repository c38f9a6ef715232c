#!/usr/bin/env bash
# make demo: runs every arcport binary on bundled data, printing each command
# before it runs it (copy them to try your own files), and says where the
# results are. Needs only Go (the binaries are built by `make demo`).
set -euo pipefail
cd "$(dirname "$0")/.."
out=out/demo
rm -rf "$out"; mkdir -p "$out"
export PATH="$PWD/bin:$PATH"
step() { printf '\n== %s\n' "$*"; }
# run prints a command line (pipes included) as you would type it, then runs it.
run() { printf '$ %s\n' "$*"; eval "$*"; }

step "arc2warc: convert a bundled ARC to WARC 1.1"
run arc2warc testdata/arc/example.arc.gz -o $out/example.warc.gz
run ls -l $out/example.warc.gz
run waczpack index $out/example.warc.gz

step "mirrorget | waczpack: copy the bundled garden site served on loopback"
go run ./scripts/demoserve -dir testdata/htcache/garden-origin -for 5m > $out/server.url &
srv=$!
trap 'kill $srv 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s $out/server.url ] && break; sleep 0.1; done
url=$(cat $out/server.url)
echo "(the garden site is served at $url)"
run "mirrorget -q -O $out/mirror $url | waczpack -o $out/site.wacz --title 'Garden Club' --url $url"
run waczpack validate $out/site.wacz
run waczpack ls $out/site.wacz
run "waczpack get $out/site.wacz $url | head -c 300; echo"
echo "(browsable copy: $out/mirror/index.html)"

step "zimdump: inspect a bundled ZIM"
run zimdump info testdata/zim/nons/small.zim
run "zimdump list --details testdata/zim/nons/small.zim | head -20"

step "zimdump create: the garden copy and its crawl as ZIMs for Kiwix"
run zimdump create -o $out/mirror.zim -v $out/mirror
run zimdump create -o $out/site.zim --title "'Garden Club'" --main-page $url -v $out/site.wacz
run zimdump info $out/site.zim
run zimdump check $out/site.zim
echo "(open them with: kiwix-serve --port 8080 $out/site.zim $out/mirror.zim)"

step "htcache: read a real HTTrack cache and migrate it"
run htcache info testdata/htcache/garden
run htcache ls testdata/htcache/garden
run "htcache export testdata/htcache/garden | waczpack -o $out/garden.wacz --title 'Garden (from HTTrack)'"
run waczpack validate $out/garden.wacz

step "results in $out/:"
run ls -l $out
