#!/usr/bin/env bash
# bench-zim.sh: time arcport zimdump against openzim zimdump (Debian
# zim-tools) on a ZIM of N articles written by python3-libzim (zstd
# clusters, ~2 KB HTML articles, images, redirects).
#
#   scripts/bench-zim.sh [N]        (default N=100000; ZIM cached in $BENCH_DIR)
#
# dump writes under $OUT_DIR (default $BENCH_DIR). On ext4, file creation
# right after a mass deletion is dominated by the kernel's inode allocator
# (it skips recently freed inodes), whatever the tool: set OUT_DIR=/dev/shm/x
# to time the tools rather than that.
#
# Prints, for `list --details` and `dump --dir` and for both tools, the
# wall-clock seconds and the CPU seconds (user+sys; steadier than wall time
# on a shared machine), each the best of $RUNS runs (default 3), and the
# ratios ours/openzim (target <= 0.5).
set -euo pipefail
N=${1:-100000}
RUNS=${RUNS:-3}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH_DIR=${BENCH_DIR:-/tmp/arcport-bench-zim}
mkdir -p "$BENCH_DIR"
OUT_DIR=${OUT_DIR:-$BENCH_DIR}
mkdir -p "$OUT_DIR"
ZIM="$BENCH_DIR/bench-$N.zim"
command -v zimdump >/dev/null || { echo "openzim zimdump not installed (apt install zim-tools)" >&2; exit 1; }
OPENZIM=$(command -v zimdump)
if [ ! -s "$ZIM" ]; then
  echo "building $ZIM with python3-libzim ..." >&2
  /usr/bin/python3 "$ROOT/testdata/zim/gen/make_zim.py" bench "$ZIM.tmp" "$N" >/dev/null 2>&1
  mv "$ZIM.tmp" "$ZIM"
fi
OURS="$BENCH_DIR/zimdump-arcport"
(cd "$ROOT" && go build -o "$OURS" ./cmd/zimdump)

# measure TOOL RUN ARGS...: appends "wall cpu" (cpu = user+sys) to
# $BENCH_DIR/TOOL.times. "OUT" in ARGS is replaced by a fresh folder: dump
# outputs are only removed at the end, because ext4 makes file creation
# slow right after mass deletion (its inode allocator skips recently freed
# inodes), which would penalise whichever tool runs after a cleanup.
measure() {
  local tool=$1 run=$2; shift 2
  local args=("${@//OUT/$OUT_DIR/out-$tool-$run}")
  sync
  /usr/bin/time -f "%e %U %S" -o "$BENCH_DIR/time" "${args[@]}" >/dev/null 2>&1 || true
  read -r w u s <"$BENCH_DIR/time"
  echo "$w $(awk -v a="$u" -v b="$s" 'BEGIN{print a+b}')" >>"$BENCH_DIR/$tool.times"
}
bestof() { # "wall cpu" minima of $BENCH_DIR/$1.times
  awk 'NR==1{w=$1;c=$2} {if($1<w)w=$1; if($2<c)c=$2} END{print w, c}' "$BENCH_DIR/$1.times"
}

# sanity: the outputs must be identical before timing them
cmp <("$OPENZIM" list --details "$ZIM") <("$OURS" list --details "$ZIM") || { echo "list --details outputs differ!" >&2; exit 1; }

printf 'ZIM: %s (%s entries, %s bytes), %s run(s) each, %s CPUs\n' "$ZIM" \
  "$("$OURS" info "$ZIM" | sed -n 's/count-entries: //p')" "$(stat -c %s "$ZIM")" "$RUNS" "$(nproc)"
printf '%-15s %12s %12s %7s   %12s %12s %7s\n' command "openzim wall" "arcport wall" ratio "openzim cpu" "arcport cpu" ratio
rm -rf "$OUT_DIR"/out-* "$BENCH_DIR"/*.times
for cmd in "list --details" "dump"; do
  rm -f "$BENCH_DIR"/*.times
  for run in $(seq "$RUNS"); do # alternate which tool goes first
    tools=(openzim arcport)
    [ $((run % 2)) = 0 ] && tools=(arcport openzim)
    for tool in "${tools[@]}"; do
      bin=$OPENZIM
      [ "$tool" = arcport ] && bin=$OURS
      if [ "$cmd" = dump ]; then
        measure "$tool" "$run" "$bin" dump --dir=OUT "$ZIM"
      else
        measure "$tool" "$run" "$bin" list --details "$ZIM"
      fi
    done
  done
  read -r aw ac < <(bestof openzim)
  read -r bw bc < <(bestof arcport)
  printf '%-15s %12.2f %12.2f %7.2f   %12.2f %12.2f %7.2f\n' "$cmd" "$aw" "$bw" \
    "$(awk -v a="$aw" -v b="$bw" 'BEGIN{print (a>0)?b/a:0}')" "$ac" "$bc" \
    "$(awk -v a="$ac" -v b="$bc" 'BEGIN{print (a>0)?b/a:0}')"
done
rm -rf "$OUT_DIR"/out-* "$BENCH_DIR"/*.times
echo "dump output on: $(df -T "$OUT_DIR" | awk 'NR==2{print $2}'); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
