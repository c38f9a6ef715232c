#!/usr/bin/env bash
# scripts/bench.sh — time arcport's binaries against peer tools on the same
# machine in the same run, and report max RSS (from /usr/bin/time -v).
#
#   scripts/bench.sh                 run every section
#   scripts/bench.sh arc2warc ...    run the named sections only
#
# One function per tool: bench_<tool>. To add a section, define the function
# and append its name to SECTIONS. Inputs are generated deterministically
# under $BENCH_DIR (default out/bench) and reused across runs; binaries come
# from bin/ (`make build`). BENCH_REPEAT=N runs each timing N times and keeps
# the fastest (default 1).
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_DIR=${BENCH_DIR:-out/bench}
BENCH_REPEAT=${BENCH_REPEAT:-1}
B=${BIN_DIR:-bin}
mkdir -p "$BENCH_DIR"
SECTIONS=()

# measure CMD...: runs CMD (BENCH_REPEAT times) under /usr/bin/time -v and
# sets WALL (seconds, best run) and RSS (max resident set, KiB, of that run).
measure() {
  local best="" best_rss="" log="$BENCH_DIR/time.log" i w r
  for ((i = 0; i < BENCH_REPEAT; i++)); do
    /usr/bin/time -v -o "$log" "$@" >/dev/null
    w=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$log")
    r=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log")
    if [ -z "$best" ] || awk -v a="$w" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$w best_rss=$r; fi
  done
  WALL=$best RSS=$best_rss
}

# row LABEL: prints one result line from WALL and RSS.
row() { printf '  %-44s %8.2f s   max RSS %7.1f MiB\n' "$1" "$WALL" "$(awk -v k="$RSS" 'BEGIN{print k/1024}')"; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.3f", a/b}'; }

# --- arc2warc ---------------------------------------------------------------
# Input: ~200 MB ARC.gz of 20,000 records (HTML, images, CSS/JS, PDFs,
# redirects, dns:), one gzip member per record, made by scripts/arcgen.
# Baseline: decompressing and recompressing the same bytes with gzip -6, the
# least any ARC.gz -> WARC.gz converter built on zlib tools has to do.
# Target: arc2warc / baseline <= 0.35.
SECTIONS+=(arc2warc)
bench_arc2warc() {
  local in="$BENCH_DIR/arc2warc-in.arc.gz" out="$BENCH_DIR/arc2warc-out.warc.gz"
  [ -x "$B/arc2warc" ] || { echo "arc2warc: $B/arc2warc missing (make build)"; return 1; }
  if [ ! -s "$in" ]; then
    echo "arc2warc: generating $in (20000 records)..."
    go run ./scripts/arcgen -o "$in.tmp" -records 20000 && mv "$in.tmp" "$in"
  fi
  local size raw
  size=$(stat -c %s "$in")
  echo "== arc2warc: $(awk -v s="$size" 'BEGIN{printf "%.1f", s/1048576}') MiB ARC.gz, $(nproc) CPUs"
  measure sh -c "zcat '$in' | gzip -6 > /dev/null"
  local base=$WALL
  row "zcat in.arc.gz | gzip -6 > /dev/null"
  measure "$B/arc2warc" -q "$in" -o "$out"
  local ours=$WALL
  row "arc2warc in.arc.gz -o out.warc.gz"
  echo "  ratio arc2warc/baseline: $(ratio "$ours" "$base")   (target <= 0.35)"
  echo "  output: $(awk -v s="$(stat -c %s "$out")" 'BEGIN{printf "%.1f", s/1048576}') MiB"
}

# --- waczpack ---------------------------------------------------------------
# Input: the arc2warc section's ~200 MB ARC.gz (20,000 records) converted once
# to a WARC.gz with one gzip member per record (by bin/arc2warc, else by
# waczpack itself). Baseline: warcio.js `cdx-index` of the same WARC.gz (what
# ReplayWeb.page's own indexer does: read and index every record), in the
# same run. waczpack copies the members into the WACZ as they are while it
# indexes, hashes and detects pages.
# Target: waczpack / warcio cdx-index <= 0.25.
SECTIONS+=(waczpack)
bench_waczpack() {
  local arcin="$BENCH_DIR/arc2warc-in.arc.gz" in="$BENCH_DIR/waczpack-in.warc.gz" out="$BENCH_DIR/waczpack-out.wacz"
  local warcio=scripts/npm/node_modules/.bin/warcio
  [ -x "$B/waczpack" ] || { echo "waczpack: $B/waczpack missing (make build)"; return 1; }
  [ -x "$warcio" ] || { echo "waczpack: $warcio missing (make peers)"; return 1; }
  if [ ! -s "$in" ]; then
    if [ ! -s "$arcin" ]; then
      echo "waczpack: generating $arcin (20000 records)..."
      go run ./scripts/arcgen -o "$arcin.tmp" -records 20000 && mv "$arcin.tmp" "$arcin"
    fi
    echo "waczpack: converting $arcin to $in..."
    if [ -x "$B/arc2warc" ]; then
      "$B/arc2warc" -q --compress gzip "$arcin" -o "$in.tmp"
    else
      "$B/waczpack" -q -o "$BENCH_DIR/waczpack-conv.wacz" "$arcin" &&
        unzip -p "$BENCH_DIR/waczpack-conv.wacz" 'archive/*.warc.gz' > "$in.tmp" &&
        rm -f "$BENCH_DIR/waczpack-conv.wacz"
    fi
    mv "$in.tmp" "$in"
  fi
  local size
  size=$(stat -c %s "$in")
  echo "== waczpack: $(awk -v s="$size" 'BEGIN{printf "%.1f", s/1048576}') MiB WARC.gz, $(nproc) CPUs"
  measure "$warcio" cdx-index "$in"
  local base=$WALL
  row "warcio cdx-index in.warc.gz > /dev/null"
  measure "$B/waczpack" -q -o "$out" "$in"
  local ours=$WALL
  row "waczpack -o out.wacz in.warc.gz"
  echo "  ratio waczpack/warcio-cdx-index: $(ratio "$ours" "$base")   (target <= 0.25)"
  "$B/waczpack" validate -q "$out" || echo "  WARNING: waczpack validate failed on the output"
  echo "  output: $(awk -v s="$(stat -c %s "$out")" 'BEGIN{printf "%.1f", s/1048576}') MiB"
}

main() {
  local s
  if [ $# -eq 0 ]; then set -- "${SECTIONS[@]}"; fi
  for s in "$@"; do
    if ! declare -F "bench_$s" >/dev/null; then
      echo "bench.sh: no section $s (have: ${SECTIONS[*]})" >&2
      exit 2
    fi
    "bench_$s"
  done
}
main "$@"
