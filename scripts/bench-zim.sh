#!/usr/bin/env bash
# bench-zim.sh: time arcport zimdump against openzim zimdump (Debian
# zim-tools) on a ZIM of N articles written by python3-libzim (zstd
# clusters, ~2 KB HTML articles, images, redirects).
#
#   scripts/bench-zim.sh [N]        (default N=100000; ZIM cached in $BENCH_DIR)
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

best() { # "wall cpu": best wall and best user+sys seconds of "$@" over $RUNS runs
  local bw=999999 bc=999999
  for _ in $(seq "$RUNS"); do
    rm -rf "$BENCH_DIR/out"
    sync
    /usr/bin/time -f "%e %U %S" -o "$BENCH_DIR/time" "$@" >/dev/null 2>&1 || true
    read -r w u s <"$BENCH_DIR/time"
    bw=$(awk -v a="$w" -v b="$bw" 'BEGIN{print (a<b)?a:b}')
    bc=$(awk -v a="$u" -v c="$s" -v b="$bc" 'BEGIN{t=a+c; print (t<b)?t:b}')
  done
  rm -rf "$BENCH_DIR/out"
  echo "$bw $bc"
}

# sanity: the outputs must be identical before timing them
cmp <("$OPENZIM" list --details "$ZIM") <("$OURS" list --details "$ZIM") || { echo "list --details outputs differ!" >&2; exit 1; }

printf 'ZIM: %s (%s entries, %s bytes), %s run(s) each, %s CPUs\n' "$ZIM" \
  "$("$OURS" info "$ZIM" | sed -n 's/count-entries: //p')" "$(stat -c %s "$ZIM")" "$RUNS" "$(nproc)"
printf '%-15s %12s %12s %7s   %12s %12s %7s\n' command "openzim wall" "arcport wall" ratio "openzim cpu" "arcport cpu" ratio
for cmd in "list --details" "dump"; do
  if [ "$cmd" = dump ]; then
    read -r aw ac < <(best "$OPENZIM" dump --dir="$BENCH_DIR/out" "$ZIM")
    read -r bw bc < <(best "$OURS" dump --dir="$BENCH_DIR/out" "$ZIM")
  else
    read -r aw ac < <(best "$OPENZIM" list --details "$ZIM")
    read -r bw bc < <(best "$OURS" list --details "$ZIM")
  fi
  printf '%-15s %12.2f %12.2f %7.2f   %12.2f %12.2f %7.2f\n' "$cmd" "$aw" "$bw" \
    "$(awk -v a="$aw" -v b="$bw" 'BEGIN{print (a>0)?b/a:0}')" "$ac" "$bc" \
    "$(awk -v a="$ac" -v b="$bc" 'BEGIN{print (a>0)?b/a:0}')"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
