#!/usr/bin/env bash
# scripts/bench.sh — every arcport binary against its peer tool, on the same
# generated input, on this machine, in the same run. Prints ONE table.
#
#   scripts/bench.sh                    all sections (what `make bench` runs)
#   scripts/bench.sh arc2warc zimdump   only the named sections
#   BENCH_QUICK=1 scripts/bench.sh      small inputs: checks the script itself
#
# Sections and their rows (target = arcport time / peer time):
#   arc2warc   arc2warc vs `zcat in.arc.gz | gzip -6 > /dev/null`    <= 0.35
#              arc2warc vs floor `zcat in.arc.gz | sha1sum`          <= 1.15
#              (read + inflate + one SHA-1 in one pass; no deflate)
#              arc2warc vs `zcat in.arc.gz | pigz -6 > /dev/null`    (informative)
#   waczpack   waczpack create vs warcio.js cdx-index                 <= 0.25
#              waczpack create vs floor `sha256sum in.warc.gz`        <= 1.5
#              waczpack create vs `openssl dgst -sha256 in.warc.gz`    (informative)
#              waczpack create vs create with ARCPORT_NO_PARALLEL=1    (informative)
#              waczpack create vs js-wacz create                      (informative)
#              waczpack index  vs warcio.js cdx-index                 (informative)
#              waczpack index  vs waczpack create                     <= 1.0
#              waczpack check  vs waczpack index (digests recomputed)  <= 1.5
#              waczpack check  vs `zcat in.warc.gz > /dev/null`       (informative)
#   pyref      the Python reference tools (make peers: scripts/venv, venv-zim),
#              each target <= 0.1 (arcport at most a tenth of the peer's time):
#              waczpack index --cdxj-indexer vs cdxj-indexer -p (identical lines)
#              waczpack index vs warcio index -f (its JSON lines)
#              waczpack create vs py-wacz wacz create -d
#              waczpack check vs warcio check
#              waczpack check vs zcat > /dev/null (informative: the inflate floor)
#              zimdump create vs warc2zim (a smaller WARC: PYZIM_RECORDS)
#   zimdump    zimdump list --details vs openzim zimdump              <= 0.5
#              zimdump dump           vs openzim zimdump, on tmpfs    <= 0.5
#              and on a fresh ext4 per run (root) or in BENCH_DIR     <= 0.5
#   zimwrite   zimdump create vs openzim zimwriterfs -j (no full-text
#              index, which create does not make either), both zstd, on
#              the folder `zimdump dump` makes of the zimdump section's
#              ZIM                                                     <= 0.5
#   mirrorget  mirrorget vs wget -r -p (one connection)    <= 0.5 and finds
#              mirrorget vs httrack        every URL both peers find (informative)
#   htcache    htcache export vs `unzip -p new.zip | gzip -6`         (informative)
#   workers    mirrorget sharing one crawl through Redis (redis-server on
#              loopback): 3 workers vs 1, each worker --max-connections 2,
#              a 500-page site over 6 loopback hosts at 20 ms a request  <= 0.4
#              (3 workers at least 2.5x as fast as one)
#   storage    the same work with inputs and outputs in S3 (a real versitygw
#              on loopback) vs local files:
#              arc2warc s3:// -> s3:// vs local -> local                  <= 1.3
#              waczpack create s3:// -> s3:// vs local -> local           <= 1.3
#              waczpack get s3:// (one capture) vs local                  (informative;
#              requests and bytes in the notes, from ARCPORT_STORE_STATS)
#   spark      only when named (make peers: pyspark in scripts/venv-spark, Java 17+):
#              deploy/spark/arcport_spark.py in Spark local[2] vs
#              `parallel -j 2`, the same 200-file index job (sorted runs)  <= 1.3
#              end to end (a session per run), and in a started session  <= 1.3
#   memory     only when named (it generates a ~2 GB WARC.gz, minutes);
#              targets on arcport's max RSS, <= 100 MiB (time informative):
#              waczpack create of a ~2 GB WARC.gz vs `sha256sum IN`
#              waczpack create of 10,000 small WARC.gz vs `sha256sum IN...`
#              waczpack index -j 2 --zipnum OUT/ of them vs warcio.js
#              cdx-index of every file + sort
#
# Environment:
#   BENCH_REPEAT   runs per command, the median is reported (default 3;
#                  2 in quick mode). Runs of arcport and peer alternate
#                  (with more commands, each run starts with the next one).
#   HTTRACK_REPEAT runs of httrack (default 1: it takes minutes, see below)
#   BENCH_QUICK=1  small inputs under $BENCH_DIR/quick
#   BENCH_DIR      inputs (cached, deterministic) and outputs (default out/bench)
#   BIN_DIR        arcport binaries (default bin, from `make build`)
#   BENCH_DOC      the Markdown page each run updates with the sections it ran
#                  (default docs/benchmarks.md; quick mode: $BENCH_DIR/benchmarks.md)
#
# Inputs are generated once and reused: scripts/arcgen (ARC.gz and WARC.gz),
# scripts/gzsplit (the WARC.gz cut into small files at gzip members),
# testdata/zim/gen/make_zim.py (python3-libzim), testdata/crawl/benchsite
# (a 1000-page site served on loopback with 5 ms latency per request), and a
# real HTTrack cache made by running httrack once on that site.
#
# Times are wall-clock seconds (medians), with CPU seconds (user+sys) in
# parentheses: on a shared, loaded machine CPU time is the steadier figure
# (the cpu ratio column). Targets apply to the wall-clock ratio.
# Max RSS is the largest resident set (from /usr/bin/time -v) of any process
# in the command over all runs. Each command is run as `bash -c CMD` from the
# repository root; the table ends with the exact commands.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

QUICK=${BENCH_QUICK:-0}
[ "$QUICK" = 0 ] || QUICK=1
if [ "$QUICK" = 1 ]; then
  BENCH_DIR=${BENCH_DIR:-out/bench/quick}
  REPEAT=${BENCH_REPEAT:-2}
  ARC_RECORDS=400 WARC_RECORDS=400 ZIM_ARTICLES=2000 SITE_PAGES=40
  MEM_RECORDS=2000 MEM_FILES=200
else
  BENCH_DIR=${BENCH_DIR:-out/bench}
  REPEAT=${BENCH_REPEAT:-3}
  ARC_RECORDS=20000 WARC_RECORDS=20000 ZIM_ARTICLES=100000 SITE_PAGES=1000
  MEM_RECORDS=200000 MEM_FILES=10000
fi
HT_REPEAT=${HTTRACK_REPEAT:-1}
RSS_TARGET=100 # MiB, the memory section's rows
SITE_LATENCY=5ms
B=${BIN_DIR:-bin}
IN=$BENCH_DIR/in   # cached inputs
R=$BENCH_DIR/run   # outputs of this run
WARCIO=scripts/npm/node_modules/.bin/warcio
JSWACZ=scripts/npm/node_modules/.bin/js-wacz
OPENZIM=/usr/bin/zimdump
SECTIONS=(arc2warc waczpack pyref zimdump zimwrite mirrorget htcache storage workers)

mkdir -p "$IN" "$R"
ROWS=$R/rows.tsv CMDS=$R/commands.txt NOTES=$R/notes.txt
: >"$ROWS"
: >"$CMDS"
: >"$NOTES"
ROWNO=0

log() { echo "bench: $*" >&2; }
mib() { awk -v s="$1" 'BEGIN{printf (s < 10485760 ? "%.2f" : "%.1f"), s/1048576}'; }
have() { command -v "$1" >/dev/null 2>&1; }

# --- timing ----------------------------------------------------------------

# run_once KEY RUN CMD: runs CMD ("{RUN}" replaced by RUN) once with
# `bash -c` under /usr/bin/time -v, and appends "wall cpu maxrss_kib status"
# to $R/KEY.t. stdout goes to /dev/null, stderr to $R/KEY.err. $PRE_RUN, if
# set, is evaluated first, untimed.
run_once() {
  local key=$1 run=$2 cmd=${3//\{RUN\}/$2} st=0 t0 t1
  [ -z "${PRE_RUN:-}" ] || eval "$PRE_RUN" # untimed set-up (fresh file system)
  sync
  t0=$(date +%s%N)
  /usr/bin/time -v -o "$R/time.log" bash -c "$cmd" >/dev/null 2>>"$R/$key.err" || st=$?
  t1=$(date +%s%N)
  awk -v st="$st" -v w="$(((t1 - t0) / 1000000))" -F': ' '
    /User time/ {u=$2} /System time/ {s=$2} /Maximum resident set size/ {r=$2}
    END {printf "%.3f %.3f %d %d\n", w/1000, u+s, r, st}' "$R/time.log" >>"$R/$key.t"
}

# median FILE COLUMN
median() {
  sort -g -k"$2,$2" "$1" | awk -v c="$2" '{v[NR]=$c}
    END {if (NR==0) print "nan"; else if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'
}
maxcol() { awk -v c="$2" 'BEGIN{m=0} $c>m{m=$c} END{print m}' "$1"; }
# failed KEY ALLOWED...: prints the first exit status not in ALLOWED, if any.
failed() {
  local key=$1 s
  shift
  for s in $(awk '{print $4}' "$R/$key.t"); do
    [[ " $* " == *" $s "* ]] || { echo "$s"; return; }
  done
}

# bench_set KEY CMD [KEY CMD ...]: REPEAT runs of each command; run i starts
# with the i-th command (in turn), so no command always runs first or last.
bench_set() {
  local keys=() cmds=() n i j k
  while [ $# -ge 2 ]; do
    keys+=("$1") cmds+=("$2")
    rm -f "$R/$1.t" "$R/$1.err"
    shift 2
  done
  n=${#keys[@]}
  for ((i = 1; i <= REPEAT; i++)); do
    for ((j = 0; j < n; j++)); do
      k=$(((i - 1 + j) % n))
      log "${keys[k]} run $i/$REPEAT"
      run_once "${keys[k]}" "$i" "${cmds[k]}"
    done
  done
}

# bench_pair KEY_OURS CMD_OURS KEY_PEER CMD_PEER [PEER_RUNS]: REPEAT runs of
# each (PEER_RUNS of the peer), alternating which goes first.
bench_pair() {
  local ko=$1 co=$2 kp=$3 cp=$4 np=${5:-$REPEAT} i
  rm -f "$R/$ko.t" "$R/$kp.t" "$R/$ko.err" "$R/$kp.err"
  for ((i = 1; i <= REPEAT || i <= np; i++)); do
    if ((i % 2)); then
      ((i > REPEAT)) || { log "$ko run $i/$REPEAT"; run_once "$ko" "$i" "$co"; }
      ((i > np)) || { log "$kp run $i/$np"; run_once "$kp" "$i" "$cp"; }
    else
      ((i > np)) || { log "$kp run $i/$np"; run_once "$kp" "$i" "$cp"; }
      ((i > REPEAT)) || { log "$ko run $i/$REPEAT"; run_once "$ko" "$i" "$co"; }
    fi
  done
}

# add_row NAME INPUT KEY_OURS CMD_OURS KEY_PEER CMD_PEER TARGET [EXTRA_OK] [NOTE]
# TARGET is a maximum ratio or "-" (informative). EXTRA_OK=no fails the row
# whatever the ratio (e.g. URLs missed). Commands are printed with run 1.
# RSS_MAX=MiB (environment) is a second target: arcport's max RSS over all
# its runs must not exceed it (met is yes only if both targets hold; the
# note starts with the RSS target and the figure).
add_row() {
  local name=$1 input=$2 ko=$3 co=$4 kp=$5 cp=$6 target=$7 extra=${8:-yes} note=${9:-}
  local ow oc pw pc ratio cratio met f rss
  ow=$(median "$R/$ko.t" 1) oc=$(median "$R/$ko.t" 2)
  pw=$(median "$R/$kp.t" 1) pc=$(median "$R/$kp.t" 2)
  ratio=$(awk -v a="$ow" -v b="$pw" 'BEGIN{if (b>0) printf "%.3f", a/b; else print "nan"}')
  cratio=$(awk -v a="$oc" -v b="$pc" 'BEGIN{if (b>0) printf "%.3f", a/b; else print "nan"}')
  if [ "$target" = - ]; then
    met=-
  elif awk -v r="$ratio" -v t="$target" 'BEGIN{exit !(r<=t)}' && [ "$extra" = yes ]; then
    met=yes
  else
    met=NO
  fi
  if [ -n "${RSS_MAX:-}" ]; then
    rss=$(awk -v k="$(maxcol "$R/$ko.t" 3)" 'BEGIN{printf "%.1f", k/1024}')
    if awk -v r="$rss" -v t="$RSS_MAX" 'BEGIN{exit !(r<=t)}'; then
      [ "$met" != - ] || met=yes
      note="RSS target <= $RSS_MAX MiB: met ($rss MiB); $note"
    else
      met=NO note="RSS target <= $RSS_MAX MiB: NOT met ($rss MiB); $note"
    fi
  fi
  f=$(failed "$ko" 0)
  [ -z "$f" ] || { met=FAIL note="arcport exited $f (see $R/$ko.err); $note"; }
  f=$(failed "$kp" 0 ${PEER_OK_STATUS:-})
  [ -z "$f" ] || { met=FAIL note="peer exited $f (see $R/$kp.err); $note"; }
  ROWNO=$((ROWNO + 1))
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$ROWNO" "$name" "$input" \
    "$ow" "$oc" "$pw" "$pc" "$ratio" "$target" "$met" \
    "$(mib "$(($(maxcol "$R/$ko.t" 3) * 1024))")/$(mib "$(($(maxcol "$R/$kp.t" 3) * 1024))")" \
    "$(wc -l <"$R/$ko.t")/$(wc -l <"$R/$kp.t")" "$cratio" "$note" >>"$ROWS"
  {
    printf '%2d  arcport: %s\n' "$ROWNO" "${co//\{RUN\}/1}"
    printf '    peer:    %s\n' "${cp//\{RUN\}/1}"
  } >>"$CMDS"
  [ -z "$note" ] || printf '%2d  %s\n' "$ROWNO" "$note" >>"$NOTES"
}

need_bin() {
  local b
  for b in "$@"; do
    [ -x "$B/$b" ] || { log "$B/$b missing: run make build"; return 1; }
  done
}

# --- inputs ----------------------------------------------------------------

# gen_arc FORMAT N: path of the cached arcgen output (generated if absent).
gen_arc() {
  local fmt=$1 n=$2 f="$IN/$1-$2.$1.gz"
  if [ ! -s "$f" ]; then
    log "generating $f ($n records, scripts/arcgen)"
    go run ./scripts/arcgen -format "$fmt" -records "$n" -o "$f.tmp" && mv "$f.tmp" "$f"
  fi
  echo "$f"
}

# Loopback site: testdata/crawl/benchsite, SITE_PAGES pages, SITE_LATENCY
# per request. start_site sets SITE_URL; the server is stopped on exit.
SITE_PID=
start_site() {
  [ -z "$SITE_PID" ] || return 0
  mkdir -p "$BENCH_DIR/bin"
  go build -o "$BENCH_DIR/bin/benchsite" ./testdata/crawl/benchsite
  local port
  for port in $(seq 18950 19050); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || break
  done
  SITE_CMD="$BENCH_DIR/bin/benchsite -addr 127.0.0.1:$port -n $SITE_PAGES -latency $SITE_LATENCY"
  $SITE_CMD &
  SITE_PID=$!
  trap 'kill "$SITE_PID" 2>/dev/null || true; cleanup' EXIT
  SITE_URL=http://127.0.0.1:$port/p/0.html
  local i
  for i in $(seq 50); do
    curl -fs -o /dev/null "$SITE_URL" && return 0
    sleep 0.1
  done
  log "bench site did not start"
  return 1
}

# Flags given to httrack for every crawl: -B (up and down the whole host, the
# scope wget -r and mirrorget --scope host have), -u0 (no type-check
# requests), security limits lifted (-%! with -%c50 connections/s and
# -A100000000 bytes/s) so that only -cN limits it.
HTTRACK_FLAGS='-q -B -u0 -%! -%c50 -A100000000'

# --- sections --------------------------------------------------------------

# arc2warc: ~200 MB ARC.gz of 20,000 records (HTML, images, CSS/JS, PDFs,
# redirects, dns:), one gzip member per record. Peers: decompressing and
# recompressing the same bytes with gzip -6 (one core) and with pigz (-6,
# every core), the least any zlib-based ARC.gz -> WARC.gz converter has to
# do. Floor: `zcat IN | sha1sum`, one pass that reads and inflates the
# input and takes a SHA-1 of every inflated byte (arc2warc writes SHA-1
# block and payload digests); it writes nothing, so it leaves out the
# deflate of the output that arc2warc (and the peers) must do.
bench_arc2warc() {
  need_bin arc2warc || return 1
  local in
  in=$(gen_arc arc "$ARC_RECORDS")
  local ours="$B/arc2warc -q $in -o $R/arc2warc-out.warc.gz"
  local gz="zcat $in | gzip -6 > /dev/null"
  local floor="zcat $in | sha1sum > /dev/null"
  local pz="zcat $in | pigz -6 > /dev/null"
  if have pigz; then
    bench_set arc2warc "$ours" gzip "$gz" a2w-floor "$floor" pigz "$pz"
  else
    log "pigz missing (make peers): no zcat | pigz row"
    bench_set arc2warc "$ours" gzip "$gz" a2w-floor "$floor"
  fi
  local input="ARC.gz $(mib "$(stat -c %s "$in")") MiB, $ARC_RECORDS rec"
  add_row "arc2warc vs zcat|gzip -6" "$input" arc2warc "$ours" gzip "$gz" 0.35 yes \
    "arc2warc output: $(mib "$(stat -c %s "$R/arc2warc-out.warc.gz")") MiB WARC.gz"
  add_row "arc2warc vs floor zcat|sha1sum" "$input" arc2warc "$ours" a2w-floor "$floor" 1.15 yes \
    "floor = read + inflate + one SHA-1 of the inflated bytes, in one pass, no output: arc2warc also parses, takes two SHA-1s (block and payload) and deflates its WARC.gz, which the floor leaves out; arc2warc runs shared with the row above"
  if have pigz; then
    add_row "arc2warc vs zcat|pigz -6" "$input" arc2warc "$ours" pigz "$pz" - yes \
      "pigz $(pigz --version 2>&1 | awk '{print $2}') on $(nproc) cores; arc2warc runs shared with the rows above"
  fi
}

# waczpack: ~200 MB WARC.gz of 20,000 records, one gzip member per record
# (scripts/arcgen -format warc). Peers: warcio.js cdx-index of the same file,
# what ReplayWeb.page's own tooling does to index a WARC, and js-wacz create,
# the same job as waczpack create. waczpack create copies the members into
# the WACZ while it indexes, hashes and finds pages; its floor is
# `sha256sum IN`: reading the file once and taking its SHA-256 (the WARC's
# hash in datapackage.json), the least a WACZ of that WARC needs. index reads
# only the record headers (the fast path), so it should take no longer than
# create; check inflates every member and recomputes every digest (the
# zcat row is the inflate alone).
bench_waczpack() {
  need_bin waczpack || return 1
  [ -x "$WARCIO" ] || { log "$WARCIO missing: run make peers"; return 1; }
  local in
  in=$(gen_arc warc "$WARC_RECORDS")
  local create="$B/waczpack create -q -o $R/waczpack-out.wacz $in"
  local peer="$WARCIO cdx-index $in > /dev/null"
  local index="$B/waczpack index $in > /dev/null"
  local check="$B/waczpack check -q $in"
  local floor="sha256sum $in > /dev/null"
  local ssl="openssl dgst -sha256 $in > /dev/null"
  local seq="ARCPORT_NO_PARALLEL=1 $B/waczpack create -q -o $R/waczpack-seq.wacz $in"
  local zc="zcat $in > /dev/null"
  local jw="$JSWACZ create -f $in -o $R/js-wacz-out.wacz --log-level silent"
  if [ -x "$JSWACZ" ]; then
    bench_set wacz-create "$create" warcio "$peer" wacz-index "$index" wacz-check "$check" \
      wacz-floor "$floor" wacz-ssl "$ssl" wacz-seq "$seq" wacz-zcat "$zc" js-wacz "$jw"
  else
    log "$JSWACZ missing (make peers): no js-wacz row"
    bench_set wacz-create "$create" warcio "$peer" wacz-index "$index" wacz-check "$check" \
      wacz-floor "$floor" wacz-ssl "$ssl" wacz-seq "$seq" wacz-zcat "$zc"
  fi
  local valid=ok
  "$B/waczpack" validate "$R/waczpack-out.wacz" >"$R/validate.txt" 2>&1 || valid="FAILED (see $R/validate.txt)"
  local input="WARC.gz $(mib "$(stat -c %s "$in")") MiB, $WARC_RECORDS rec"
  add_row "waczpack create vs warcio cdx-index" "$input" \
    wacz-create "$create" warcio "$peer" 0.25 yes \
    "waczpack validate on the WACZ: $valid"
  add_row "waczpack create vs floor sha256sum" "$input" \
    wacz-create "$create" wacz-floor "$floor" 1.5 yes \
    "floor = reading the WARC.gz once + its SHA-256 (sha256sum IN, no pipe, no output); waczpack create also copies it into the WACZ and indexes it; create runs shared with the row above"
  add_row "waczpack create vs openssl dgst -sha256" "$input" \
    wacz-create "$create" wacz-ssl "$ssl" - yes \
    "the hardware floor: openssl reads the file and hashes it with the CPU's SHA instructions (coreutils sha256sum does not use them); create must also write the copy (about as much again) and inflate every record's headers; create runs shared with the rows above"
  add_row "waczpack create vs create, sequential" "$input" \
    wacz-create "$create" wacz-seq "$seq" - yes \
    "the same create with its parallel fast path off (ARCPORT_NO_PARALLEL=1: one goroutine decodes every member); same WACZ apart from its creation time; runs shared with the rows above"
  if [ -x "$JSWACZ" ]; then
    local jvalid=ok
    "$B/waczpack" validate "$R/js-wacz-out.wacz" >"$R/validate-js-wacz.txt" 2>&1 || jvalid="FAILED (see $R/validate-js-wacz.txt)"
    add_row "waczpack create vs js-wacz create" "$input" \
      wacz-create "$create" js-wacz "$jw" - yes \
      "js-wacz $(node -p "require('./scripts/npm/node_modules/@harvard-lil/js-wacz/package.json').version" 2>/dev/null || echo ?); waczpack validate on its WACZ: $jvalid; create runs shared with the rows above"
  fi
  local same=yes
  if ! cmp -s <("$B/waczpack" index "$in" | sed 's/"filename":"[^"]*"//' | sort) \
    <("$WARCIO" cdx-index "$in" | sed 's/"filename":"[^"]*"//' | sort); then
    same="NOT byte-identical (filename aside) -- compare as JSON"
  fi
  add_row "waczpack index vs warcio cdx-index" "$input" \
    wacz-index "$index" warcio "$peer" - yes \
    "same CDXJ lines as warcio (filename aside): $same; peer runs shared with the rows above"
  add_row "waczpack index vs waczpack create" "$input" \
    wacz-index "$index" wacz-create "$create" 1.0 yes \
    "index reads only the record headers (fast path) and must take no longer than create on the same file; runs shared with the rows above"
  add_row "waczpack check vs waczpack index" "$input" \
    wacz-check "$check" wacz-index "$index" 1.5 yes \
    "check recomputes every WARC-Block-Digest and WARC-Payload-Digest; index now takes the fast path (record headers only, no inflate), while this 1.5 target was set against the old index that inflated every member; runs shared with the rows above"
  add_row "waczpack check vs zcat > /dev/null" "$input" \
    wacz-check "$check" wacz-zcat "$zc" - yes \
    "context: zcat inflates every member on one core, the inflate alone in check; check runs shared with the row above"
}

# pyref: the Python reference tools on the waczpack section's WARC.gz (and
# warc2zim on a smaller one: it takes about 30 ms a record), all runs of a
# row interleaved. See docs/reference-tools.md for what is compared.
bench_pyref() {
  need_bin waczpack zimdump || return 1
  local py=scripts/venv/bin zpy=scripts/venv-zim/bin
  [ -x $py/cdxj-indexer ] && [ -x $py/warcio ] && [ -x $py/wacz ] || { log "$py missing: run make peers"; return 1; }
  local in zin n=$((QUICK ? WARC_RECORDS : 2000))
  in=$(gen_arc warc "$WARC_RECORDS")
  zin=$(gen_arc warc "$n")
  local fields=offset,length,warc-type,warc-target-uri,warc-date,http:status,warc-payload-digest
  local oi="$B/waczpack index --cdxj-indexer $in > /dev/null" pi="$py/cdxj-indexer -p $in > /dev/null"
  local ow="$B/waczpack index $in > /dev/null" pw="$py/warcio index -f $fields $in > /dev/null"
  local oc="$B/waczpack create -q -o $R/pyref-ours.wacz $in" pc="$py/wacz create -d -o $R/pyref-py.wacz $in > /dev/null"
  local ok="$B/waczpack check -q $in" pk="$py/warcio check $in" pz="zcat $in > /dev/null"
  # floors: the copy of the WARC into the WACZ alone (cp, same file
  # system), and the two SHA-1s of a digest check alone (OpenSSL, SHA-NI,
  # one per core, over the inflated bytes read from the page cache)
  local raw="${in%.gz}"
  [ -s "$raw" ] || { zcat "$in" > "$raw.tmp" && mv "$raw.tmp" "$raw"; }
  local pcp="cp $in $R/pyref-copy.warc.gz" psha="openssl dgst -sha1 $raw > /dev/null & openssl dgst -sha1 $raw > /dev/null; wait"
  bench_set py-index "$oi" cdxj-indexer "$pi" py-windex "$ow" warcio-index "$pw" \
    py-create "$oc" py-wacz "$pc" py-cp "$pcp" py-check "$ok" warcio-check "$pk" py-zcat "$pz" py-sha1 "$psha"
  rm -f "$R/pyref-copy.warc.gz"
  local input="WARC.gz $(mib "$(stat -c %s "$in")") MiB, $WARC_RECORDS rec" same=yes valid=ok pages
  cmp -s <("$B/waczpack" index --cdxj-indexer "$in") <($py/cdxj-indexer -p "$in") || same=no
  "$B/waczpack" validate "$R/pyref-py.wacz" >"$R/validate-py.txt" 2>&1 || valid="refused: $(head -1 "$R/validate-py.txt") (py-wacz writes no pages.jsonl when it keeps no page)"
  pages="arcport $(unzip -p "$R/pyref-ours.wacz" pages/pages.jsonl | tail -n +2 | wc -l), py-wacz $(unzip -p "$R/pyref-py.wacz" pages/pages.jsonl 2>/dev/null | tail -n +2 | wc -l)"
  add_row "waczpack index --cdxj-indexer vs cdxj-indexer -p" "$input" py-index "$oi" cdxj-indexer "$pi" 0.1 "$same" \
    "cdxj-indexer $($py/python -c 'import importlib.metadata as m; print(m.version("cdxj-indexer"))'); lines byte-identical: $same"
  add_row "waczpack index vs warcio index" "$input" py-windex "$ow" warcio-index "$pw" 0.1 yes \
    "warcio $($py/warcio --version 2>&1 | tail -1) index -f $fields: JSON lines of header fields, one per record (not CDXJ); runs shared with the row above"
  add_row "waczpack create vs wacz create -d" "$input" py-create "$oc" py-wacz "$pc" 0.1 yes \
    "py-wacz $($py/python -c 'import importlib.metadata as m; print(m.version("wacz"))') with page detection; waczpack validate on its WACZ: $valid; pages: $pages"
  add_row "waczpack create vs cp (the copy alone)" "$input" py-create "$oc" py-cp "$pcp" - yes \
    "the floor of create: cp copies the $(mib "$(stat -c %s "$in")") MiB a WACZ must hold (copy_file_range, in the kernel) and does nothing else; 0.1x py-wacz is $(awk -v p="$(median "$R/py-wacz.t" 1)" 'BEGIN{printf "%.2f", p/10}') s, cp alone $(median "$R/py-cp.t" 1) s; runs shared with the rows above"
  add_row "waczpack check vs warcio check" "$input" py-check "$ok" warcio-check "$pk" 0.1 yes \
    "warcio check recomputes the WARC block and payload digests, as waczpack check (which also checks the structure); runs shared with the rows above; both inflate every byte and hash most of them twice (block, then payload): see the next row for the inflate alone"
  add_row "waczpack check vs zcat > /dev/null" "$input" py-check "$ok" py-zcat "$pz" - yes \
    "the floor of a digest check: zcat (zlib, one core) inflates $(mib "$(zcat "$in" | wc -c)") MiB and does nothing else; waczpack check inflates them too (klauspost/compress, the file cut at gzip members over the cores) and takes two SHA-1s (block and payload digests) of most; runs shared with the rows above"
  add_row "waczpack check vs 2 SHA-1s alone, 2 cores" "$input" py-check "$ok" py-sha1 "$psha" - yes \
    "the floor of the hashing in a digest check: openssl dgst -sha1 (SHA-NI) twice over the $(mib "$(stat -c %s "$raw")") MiB inflated, one per core, nothing inflated; 0.1x warcio check is $(awk -v p="$(median "$R/warcio-check.t" 1)" 'BEGIN{printf "%.2f", p/10}') s, the two hashes alone $(median "$R/py-sha1.t" 1) s, before any inflating; runs shared with the rows above"
  if [ -x $zpy/warc2zim ]; then
    local oz="$B/zimdump create -q -o $R/pyref-ours.zim $zin" pz="rm -f $R/pyref-w2z.zim; $zpy/warc2zim --name bench --output $R --zim-file pyref-w2z.zim $zin > /dev/null"
    bench_pair py-zim "$oz" warc2zim "$pz"
    add_row "zimdump create vs warc2zim" "WARC.gz $(mib "$(stat -c %s "$zin")") MiB, $n rec" py-zim "$oz" warc2zim "$pz" 0.1 yes \
      "warc2zim $($zpy/warc2zim --version 2>&1 | tail -1) (its ZIM also carries the wombat replay scripts); entries: arcport $("$OPENZIM" info "$R/pyref-ours.zim" 2>/dev/null | sed -n 's/^count-entries: //p'), warc2zim $("$OPENZIM" info "$R/pyref-w2z.zim" 2>/dev/null | sed -n 's/^count-entries: //p')"
  else
    log "$zpy/warc2zim missing (make peers): no warc2zim row"
  fi
}

# gen_split N: folder of N small WARC.gz files cut at gzip member
# boundaries (scripts/gzsplit) from the cached WARC_RECORDS-record WARC.gz
# (made if absent): the same records, a few each.
gen_split() {
  local n=$1 src d
  src=$(gen_arc warc "$WARC_RECORDS")
  d="$IN/warc-$WARC_RECORDS-x$n"
  if [ ! -d "$d" ]; then
    log "splitting $src into $n files at gzip member boundaries (scripts/gzsplit)"
    go run ./scripts/gzsplit -n "$n" -o "$d" "$src" >&2
  fi
  echo "$d"
}

# memory (only when named: `scripts/bench.sh memory`; generating the ~2 GB
# input takes minutes): max RSS must stay flat in input size, at most
# RSS_TARGET MiB (100) for waczpack create of a ~2 GB WARC.gz
# (MEM_RECORDS records) and of MEM_FILES small WARC.gz files (the waczpack
# section's input cut at gzip member boundaries), and for waczpack index
# --zipnum of those files. Time peers: the sha256sum floor of the create
# rows in the waczpack section, and warcio.js cdx-index of every file +
# sort for the cluster (xargs hands warcio 500 files a process, two
# processes at a time as -j 2: 10,000 node start-ups would time node).
bench_memory() {
  need_bin waczpack || return 1
  local big dir
  big=$(gen_arc warc "$MEM_RECORDS")
  dir=$(gen_split "$MEM_FILES")
  rm -rf "$R"/mem-zipnum-* "$R"/mem-warcio-*
  local create="$B/waczpack create -q -o $R/mem-big.wacz $big"
  local floor="sha256sum $big > /dev/null"
  bench_set mem-big "$create" mem-big-floor "$floor"
  RSS_MAX=$RSS_TARGET add_row "waczpack create (big) vs sha256sum" \
    "WARC.gz $(mib "$(stat -c %s "$big")") MiB, $MEM_RECORDS rec" \
    mem-big "$create" mem-big-floor "$floor" - yes \
    "time vs the floor informative here (target in the waczpack section); WACZ $(mib "$(stat -c %s "$R/mem-big.wacz")") MiB"
  rm -f "$R/mem-big.wacz"

  local files bytes input
  files=$(find "$dir" -name '*.warc.gz' | wc -l)
  bytes=$(du -sb "$dir" | cut -f1)
  input="$files WARC.gz, $(mib "$bytes") MiB, $WARC_RECORDS rec"
  create="$B/waczpack create -q -o $R/mem-many.wacz $dir/*.warc.gz"
  floor="sha256sum $dir/*.warc.gz > /dev/null"
  local index="$B/waczpack index -j 2 --zipnum $R/mem-zipnum-{RUN}/ $dir/*.warc.gz"
  local w="$R/mem-warcio-{RUN}"
  local peer="rm -rf $w && mkdir $w && printf '%s\\n' $dir/*.warc.gz | xargs -P 2 -n 500 sh -c '$WARCIO cdx-index \"\$@\" > \$(mktemp -p $w)' sh && LC_ALL=C sort $w/* > $w.cdxj"
  bench_set mem-many "$create" mem-many-floor "$floor" mem-zipnum "$index" mem-warcio "$peer"
  local valid=ok
  "$B/waczpack" validate "$R/mem-many.wacz" >"$R/validate-many.txt" 2>&1 || valid="FAILED (see $R/validate-many.txt)"
  RSS_MAX=$RSS_TARGET add_row "waczpack create x$files vs sha256sum" "$input" \
    mem-many "$create" mem-many-floor "$floor" - yes \
    "waczpack validate on the WACZ: $valid"
  local nz nw
  nz=$(cat "$R"/mem-zipnum-1/cdx-*.gz | zcat | wc -l)
  nw=$(wc -l <"$R/mem-warcio-1.cdxj")
  RSS_MAX=$RSS_TARGET add_row "waczpack index --zipnum vs warcio" "$input" \
    mem-zipnum "$index" mem-warcio "$peer" - yes \
    "CDXJ lines: zipnum cluster $nz, warcio sorted $nw; warcio gets 500 files a process, 2 processes at a time (xargs -P 2), sort LC_ALL=C"
  rm -rf "$R"/mem-zipnum-[2-9] "$R"/mem-warcio-*
}

# tree_sum DIR: "FILES BYTES MD5" of the regular files under DIR (the md5
# covers every relative path and content, in sorted order).
tree_sum() {
  (
    cd "$1"
    find . -type f -printf '%s\n' | awk '{n++; s+=$1} END{printf "%d files, %d bytes, ", n, s}'
    find . -type f -print0 | LC_ALL=C sort -z | xargs -0 md5sum | md5sum | cut -c1-12
  )
}

# zimdump: a ZIM of ZIM_ARTICLES ~2 KB HTML articles (+ images, redirects,
# zstd clusters) written by python3-libzim; peer: openzim zimdump (Debian
# zim-tools). dump is bound by the kernel's file creation, so where it
# writes decides the figures: it is timed twice, on tmpfs (/dev/shm: the
# file system's own cost is smallest there) and, when this runs as root
# with mkfs.ext4, on a fresh journaled ext4 made before every run (a loop
# device backed by /dev/shm, so no disk speed in it). Without root the
# second row dumps into $R (whatever file system that is), a fresh folder
# per run, all removed at the end: ext4 creates files slowly right after a
# mass deletion, which would penalise whichever tool ran next.
ZIM_EXT4=$R/ext4
cleanup() {
  if mountpoint -q "$ZIM_EXT4" 2>/dev/null; then drop_ext4; fi
  rm -rf /dev/shm/arcport-bench-$$
}
trap cleanup EXIT
fresh_ext4() {
  umount "$ZIM_EXT4" 2>/dev/null || true
  rm -f /dev/shm/arcport-bench-ext4.img
  mkdir -p "$ZIM_EXT4"
  truncate -s 3G /dev/shm/arcport-bench-ext4.img
  mkfs.ext4 -q -F -N 600000 -E lazy_itable_init=0,lazy_journal_init=0 /dev/shm/arcport-bench-ext4.img
  mount -o loop /dev/shm/arcport-bench-ext4.img "$ZIM_EXT4"
}
drop_ext4() {
  umount "$ZIM_EXT4" 2>/dev/null || true
  rm -f /dev/shm/arcport-bench-ext4.img
}
# gen_zim: path of the cached ZIM_ARTICLES-article ZIM (python3-libzim).
gen_zim() {
  local zim=$IN/zim-$ZIM_ARTICLES.zim
  if [ ! -s "$zim" ]; then
    log "generating $zim ($ZIM_ARTICLES articles, python3-libzim; minutes)"
    /usr/bin/python3 testdata/zim/gen/make_zim.py bench "$zim.tmp" "$ZIM_ARTICLES" >/dev/null 2>&1
    mv "$zim.tmp" "$zim"
  fi
  echo "$zim"
}
bench_zimdump() {
  need_bin zimdump || return 1
  [ -x "$OPENZIM" ] || { log "$OPENZIM missing: apt install zim-tools"; return 1; }
  local zim
  zim=$(gen_zim)
  local entries input same=identical
  entries=$("$B/zimdump" info "$zim" | sed -n 's/^count-entries: //p')
  input="ZIM $(mib "$(stat -c %s "$zim")") MiB, $entries entries"
  cmp -s <("$OPENZIM" list --details "$zim") <("$B/zimdump" list --details "$zim") || same=DIFFERENT
  bench_pair zim-list "$B/zimdump list --details $zim" openzim-list "$OPENZIM list --details $zim"
  add_row "zimdump list --details vs openzim" "$input" \
    zim-list "$B/zimdump list --details $zim" openzim-list "$OPENZIM list --details $zim" 0.5 \
    "$([ "$same" = identical ] && echo yes || echo no)" "list --details output vs openzim: $same"
  # dump on tmpfs; the trees of run 1 are compared file by file
  local T=/dev/shm/arcport-bench-$$ a b tree=identical
  [ "$(df -T /dev/shm 2>/dev/null | awk 'NR==2{print $2}')" = tmpfs ] || T=$R/dump-tmp
  rm -rf "$T" && mkdir -p "$T"
  # earlier runs' trees are removed before each run, untimed (but run 1's):
  # a million files kept in the kernel's caches would slow both tools
  PRE_RUN="rm -rf $T/*-out-[2-9] $T/*-out-[1-9][0-9]" bench_pair zim-dump-tmpfs "$B/zimdump dump --dir=$T/zimdump-out-{RUN} $zim" \
    openzim-dump-tmpfs "$OPENZIM dump --dir=$T/openzim-out-{RUN} $zim"
  a=$(tree_sum "$T/zimdump-out-1") b=$(tree_sum "$T/openzim-out-1")
  [ "$a" = "$b" ] || tree=DIFFERENT
  rm -rf "$T"
  add_row "zimdump dump vs openzim ($(df -T "$(dirname "$T")" | awk 'NR==2{print $2}'))" "$input" \
    zim-dump-tmpfs "$B/zimdump dump --dir=$T/zimdump-out-{RUN} $zim" \
    openzim-dump-tmpfs "$OPENZIM dump --dir=$T/openzim-out-{RUN} $zim" 0.5 \
    "$([ "$tree" = identical ] && echo yes || echo no)" \
    "dump trees (files, bytes, md5 of paths+contents): $tree (arcport: $a; openzim: $b)"
  if [ "$(id -u)" = 0 ] && have mkfs.ext4 && fresh_ext4 2>/dev/null; then
    PRE_RUN=fresh_ext4 bench_pair zim-dump-ext4 "$B/zimdump dump --dir=$ZIM_EXT4/out $zim" \
      openzim-dump-ext4 "$OPENZIM dump --dir=$ZIM_EXT4/out $zim"
    drop_ext4
    add_row "zimdump dump vs openzim (fresh ext4)" "$input" \
      zim-dump-ext4 "$B/zimdump dump --dir=$ZIM_EXT4/out $zim" \
      openzim-dump-ext4 "$OPENZIM dump --dir=$ZIM_EXT4/out $zim" 0.5 yes \
      "a fresh journaled ext4 (3 GiB loop image on /dev/shm) before every run"
  else
    rm -rf "$R"/zimdump-out-* "$R"/openzim-out-*
    bench_pair zim-dump "$B/zimdump dump --dir=$R/zimdump-out-{RUN} $zim" \
      openzim-dump "$OPENZIM dump --dir=$R/openzim-out-{RUN} $zim"
    add_row "zimdump dump vs openzim ($(df -T "$R" | awk 'NR==2{print $2}'))" "$input" \
      zim-dump "$B/zimdump dump --dir=$R/zimdump-out-{RUN} $zim" \
      openzim-dump "$OPENZIM dump --dir=$R/openzim-out-{RUN} $zim" 0.5 yes \
      "output in $R (not root: no fresh file system per run)"
    rm -rf "$R"/zimdump-out-* "$R"/openzim-out-*
  fi
}

# zimwrite: the ZIM of the zimdump section dumped by openzim's zimdump
# (ZIM_ARTICLES HTML articles without extension, 10% PNG images, redirects
# as HTML files), plus a 48x48 illustration, packed again by both writers
# with zstd and the same main page and metadata. Two rows: without search
# indexes (zimdump create --no-index vs zimwriterfs -j), and with them
# (zimdump create's default vs zimwriterfs's default, both writing
# X/fulltext/xapian and X/title/xapian; issue 27's target). Both outputs
# must hold the same number of entries; zimcheck -A must pass on ours.
bench_zimwrite() {
  need_bin zimdump || return 1
  [ -x "$OPENZIM" ] || { log "$OPENZIM missing: apt install zim-tools"; return 1; }
  have zimwriterfs || { log "zimwriterfs missing: apt install zim-tools"; return 1; }
  local zim dir=$IN/zimdir-$ZIM_ARTICLES
  zim=$(gen_zim)
  if [ ! -s "$dir/illustration.png" ]; then
    log "dumping $zim into $dir (openzim zimdump dump)"
    rm -rf "$dir" "$dir.tmp"
    "$OPENZIM" dump --dir="$dir.tmp" "$zim" >/dev/null
    /usr/bin/python3 -c '
import struct, sys, zlib
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
raw = b"".join(b"\0" + bytes([90, 140, 60] * 48) for _ in range(48))
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 48, 48, 8, 2, 0, 0, 0))
    + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))' "$dir.tmp/illustration.png"
    mv "$dir.tmp" "$dir"
  fi
  local files input meta="-l eng -t bench -d bench -c arcport -p arcport"
  files=$(find "$dir" -type f | wc -l)
  input="folder of $files files, $(du -sm "$dir" | cut -f1) MiB"
  local ours="$B/zimdump create -q --no-index -o $R/zimwrite-ours.zim --main-page A/Article_0 --illustration $dir/illustration.png --language eng --title bench --description bench --creator arcport --publisher arcport $dir"
  local peer="rm -f $R/zimwrite-peer.zim; zimwriterfs -j -w A/Article_0 -I illustration.png $meta $dir $R/zimwrite-peer.zim"
  bench_zimwrite_row "zimdump create --no-index vs zimwriterfs -j" "$ours" "$peer" "$input"
  ours=${ours/ --no-index/}
  peer=${peer/zimwriterfs -j /zimwriterfs }
  bench_zimwrite_row "zimdump create vs zimwriterfs (search indexes)" "$ours" "$peer" "$input"
}

# bench_zimwrite_row NAME OURS PEER INPUT: one zimwrite row.
bench_zimwrite_row() {
  local name=$1 ours=$2 peer=$3 input=$4
  bench_pair zimwrite "$ours" zimwriterfs "$peer"
  local n1 n2 ok=yes check=pass
  n1=$("$OPENZIM" info "$R/zimwrite-ours.zim" | sed -n 's/^count-entries: //p')
  n2=$("$OPENZIM" info "$R/zimwrite-peer.zim" | sed -n 's/^count-entries: //p')
  [ "$n1" = "$n2" ] || ok=no
  if have zimcheck && ! zimcheck -A "$R/zimwrite-ours.zim" >"$R/zimcheck.log" 2>&1; then
    ok=no check="FAIL (see $R/zimcheck.log)"
  fi
  add_row "$name" "$input" zimwrite "$ours" zimwriterfs "$peer" 0.5 "$ok" \
    "entries: arcport $n1, zimwriterfs $n2; sizes: arcport $(mib "$(stat -c %s "$R/zimwrite-ours.zim")") MiB, zimwriterfs $(mib "$(stat -c %s "$R/zimwrite-peer.zim")") MiB (zstd: klauspost best vs libzim level 19); zimcheck -A on arcport's: $check"
  rm -f "$R/zimwrite-ours.zim" "$R/zimwrite-peer.zim"
}

# urls_* DIR-or-FILE: the URLs a crawl fetched with a 2xx/3xx status, sorted.
urls_mirrorget() { "$B/waczpack" index "$1" | grep -E '"status":"[23]' | sed 's/.*"url":"\([^"]*\)".*/\1/' | sort -u; }
urls_wget() { sed -n 's/.* URL:\([^ ]*\) .*/\1/p' "$1" | sort -u; }
urls_httrack() { "$B/htcache" ls -q "$1" | awk -F'\t' '$1 ~ /^[23]/ {print $NF}' | sort -u; }

# mirrorget: the loopback site (testdata/crawl/benchsite: SITE_PAGES pages,
# each with a style sheet, an image and five links; SITE_LATENCY per
# request). Every tool crawls the whole host from /p/0.html:
#   mirrorget --scope host, default -c 4 (4 connections), mirror + ARC.gz
#   wget -r -p -l inf: one connection (wget has no other mode), mirror
#   httrack $HTTRACK_FLAGS -c4: the same 4 connections as mirrorget
# httrack 3.49 on loopback completes about one fetch per connection per
# second whatever the rate flags (-%c, -A, -%!, -%k0 and -u0 tried), so it
# runs HTTRACK_REPEAT times (default 1).
bench_mirrorget() {
  need_bin mirrorget waczpack htcache || return 1
  have wget || { log "wget missing"; return 1; }
  start_site || return 1
  local mg="$B/mirrorget -q --scope host -O $R/mirrorget-{RUN} -o $R/mirrorget-{RUN}.arc.gz $SITE_URL"
  local wg="wget -r -p -l inf -nv -P $R/wget-{RUN} -o $R/wget-{RUN}.log $SITE_URL"
  local ht="httrack $SITE_URL -O $R/httrack-{RUN} $HTTRACK_FLAGS -c4"
  rm -rf "$R"/mirrorget-* "$R"/wget-* "$R"/httrack-*
  bench_pair mirrorget "$mg" wget "$wg"
  local n_ht=0
  if have httrack; then
    local i
    rm -f "$R/httrack.t" "$R/httrack.err"
    for ((i = 1; i <= HT_REPEAT; i++)); do
      log "httrack run $i/$HT_REPEAT (minutes)"
      run_once httrack "$i" "$ht"
    done
    n_ht=1
  fi
  urls_mirrorget "$R/mirrorget-1.arc.gz" >"$R/urls-mirrorget"
  urls_wget "$R/wget-1.log" >"$R/urls-wget"
  if [ "$n_ht" = 1 ]; then urls_httrack "$R/httrack-1" >"$R/urls-httrack"; else cp "$R/urls-wget" "$R/urls-httrack"; fi
  comm -12 "$R/urls-wget" "$R/urls-httrack" >"$R/urls-both-peers"
  local missed only
  missed=$(comm -23 "$R/urls-both-peers" "$R/urls-mirrorget" | wc -l)
  only=$(comm -13 <(sort -u "$R/urls-wget" "$R/urls-httrack") "$R/urls-mirrorget" | wc -l)
  local found="URLs found (2xx/3xx): mirrorget $(wc -l <"$R/urls-mirrorget"), wget $(wc -l <"$R/urls-wget"), httrack $([ "$n_ht" = 1 ] && wc -l <"$R/urls-httrack" || echo n/a); found by both peers but not mirrorget: $missed; by mirrorget only: $only"
  local input="site: $SITE_PAGES pages, $SITE_LATENCY/request"
  PEER_OK_STATUS=8 add_row "mirrorget vs wget -r -p (1 conn)" "$input" \
    mirrorget "$mg" wget "$wg" 0.5 "$([ "$missed" = 0 ] && echo yes || echo no)" \
    "$found (URL lists: $R/urls-*); site server: $SITE_CMD"
  if [ "$n_ht" = 1 ]; then
    add_row "mirrorget vs httrack -c4" "$input" mirrorget "$mg" httrack "$ht" - yes \
      "httrack got: $HTTRACK_FLAGS -c4 (httrack: $HT_REPEAT run(s))"
  fi
}

# htcache: a real HTTrack 3.49 cache, made once by httrack crawling the bench
# site (cached in $IN). Baseline: inflating every cache entry and gzipping
# the result, the decompress + recompress floor of any cache -> WARC.gz
# exporter (the analogue of the arc2warc row).
bench_htcache() {
  need_bin htcache || return 1
  have httrack || { log "httrack missing"; return 1; }
  local site=$IN/httrack-site-$SITE_PAGES
  if [ ! -s "$site/hts-cache/new.zip" ]; then
    start_site || return 1
    log "making an HTTrack cache of the bench site in $site (httrack -c32)"
    rm -rf "$site"
    httrack "$SITE_URL" -O "$site" $HTTRACK_FLAGS -c32 >/dev/null 2>&1
  fi
  local ours="$B/htcache export -q -o $R/htcache-out.warc.gz $site"
  local peer="unzip -p $site/hts-cache/new.zip | gzip -6 > /dev/null"
  bench_pair htcache "$ours" unzip "$peer"
  local n
  n=$("$B/htcache" ls -q "$site" | wc -l)
  add_row "htcache export vs unzip -p|gzip -6" \
    "HTTrack cache $(mib "$(stat -c %s "$site/hts-cache/new.zip")") MiB, $n entries" \
    htcache "$ours" unzip "$peer" - yes \
    "htcache export output: $(mib "$(stat -c %s "$R/htcache-out.warc.gz")") MiB WARC.gz"
}

# storage: versitygw (make peers) on a free loopback port, its posix backend
# in $BENCH_DIR/s3 (buckets are folders), with the inputs of the arc2warc and
# waczpack sections copied in as objects.
S3_PID=
start_s3() {
  [ -z "$S3_PID" ] || return 0
  local vgw
  vgw=$(command -v versitygw || echo "$(go env GOPATH)/bin/versitygw")
  [ -x "$vgw" ] || { log "versitygw missing: run make peers"; return 1; }
  local port
  for port in $(seq 19150 19250); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || break
  done
  rm -rf "$BENCH_DIR/s3"
  mkdir -p "$BENCH_DIR/s3/bench"
  export AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench-secret-$RANDOM$RANDOM AWS_REGION=us-east-1
  export AWS_ENDPOINT_URL_S3=http://127.0.0.1:$port AWS_CONFIG_FILE=/nonexistent AWS_SHARED_CREDENTIALS_FILE=/nonexistent
  "$vgw" --access "$AWS_ACCESS_KEY_ID" --secret "$AWS_SECRET_ACCESS_KEY" --port "127.0.0.1:$port" posix "$BENCH_DIR/s3" \
    >"$R/versitygw.log" 2>&1 &
  S3_PID=$!
  trap 'kill "$S3_PID" "$SITE_PID" 2>/dev/null || true; cleanup' EXIT
  local i
  for i in $(seq 100); do
    curl -s -o /dev/null "$AWS_ENDPOINT_URL_S3" && return 0
    sleep 0.1
  done
  log "versitygw did not start (see $R/versitygw.log)"
  return 1
}

bench_storage() {
  need_bin arc2warc waczpack || return 1
  start_s3 || return 1
  local arcin warcin s3=$BENCH_DIR/s3/bench
  arcin=$(gen_arc arc "$ARC_RECORDS")
  warcin=$(gen_arc warc "$WARC_RECORDS")
  mkdir -p "$s3/arc" "$s3/warc" "$s3/out"
  cp "$arcin" "$s3/arc/in.arc.gz"
  cp "$warcin" "$s3/warc/in.warc.gz"

  local ours="$B/arc2warc -q s3://bench/arc/in.arc.gz -o s3://bench/out/a.warc.gz"
  local peer="$B/arc2warc -q $arcin -o $R/storage-a.warc.gz"
  bench_pair s3-arc2warc "$ours" local-arc2warc "$peer"
  add_row "arc2warc s3->s3 vs local->local" "ARC.gz $(mib "$(stat -c %s "$arcin")") MiB" \
    s3-arc2warc "$ours" local-arc2warc "$peer" 1.3 yes \
    "s3 output $(stat -c %s "$s3/out/a.warc.gz") bytes, local $(stat -c %s "$R/storage-a.warc.gz") bytes (the input's name is recorded)"

  ours="$B/waczpack create -q -o s3://bench/out/site.wacz s3://bench/warc/"
  peer="$B/waczpack create -q -o $R/storage-local.wacz $warcin"
  bench_pair s3-wacz "$ours" local-wacz "$peer"
  add_row "waczpack create s3->s3 vs local" "WARC.gz $(mib "$(stat -c %s "$warcin")") MiB" \
    s3-wacz "$ours" local-wacz "$peer" 1.3 yes \
    "the WACZ streamed into a multipart upload: $(stat -c %s "$s3/out/site.wacz") bytes; local $(stat -c %s "$R/storage-local.wacz") bytes"

  # get: one capture from the middle of the listing
  cp "$R/storage-local.wacz" "$s3/site.wacz"
  local line url ts
  line=$("$B/waczpack" ls "$R/storage-local.wacz" | awk '$2 == "200" && $4 ~ /^http/' >"$R/storage-ls.txt"
    sed -n "$((($(wc -l <"$R/storage-ls.txt") + 1) / 2))p" "$R/storage-ls.txt")
  ts=$(echo "$line" | awk '{print $1}') url=$(echo "$line" | awk '{print $4}')
  ours="$B/waczpack get s3://bench/site.wacz '$url' --ts $ts"
  peer="$B/waczpack get $R/storage-local.wacz '$url' --ts $ts"
  bench_pair s3-get "$ours" local-get "$peer"
  local stats
  stats=$(ARCPORT_STORE_STATS=1 bash -c "$ours" 2>&1 >/dev/null | sed -n 's/^waczpack: storage: //p')
  add_row "waczpack get s3 vs local" "WACZ $(mib "$(stat -c %s "$s3/site.wacz")") MiB, one capture" \
    s3-get "$ours" local-get "$peer" - yes \
    "remote get of one capture: $stats (issue 14 budget: 8 requests, 1 MiB)"
}

# workers: one redis-server (--save "" --appendonly no) on a free loopback
# port; a fresh crawl id per run. The site: benchsite -hosts 6 (pages on
# 127.0.0.2-7, 20 ms a request, page, style sheet and image).
REDIS_PID= WSITE_PID=
bench_workers() {
  need_bin mirrorget || return 1
  have redis-server || { log "redis-server missing: run make peers"; return 1; }
  mkdir -p "$BENCH_DIR/bin"
  go build -o "$BENCH_DIR/bin/benchsite" ./testdata/crawl/benchsite
  local port rport
  for port in $(seq 19300 19400); do
    (exec 3<>"/dev/tcp/127.0.0.2/$port") 2>/dev/null || break
  done
  for rport in $(seq 19410 19500); do
    (exec 3<>"/dev/tcp/127.0.0.1/$rport") 2>/dev/null || break
  done
  local pages=500
  [ "$QUICK" = 1 ] && pages=60
  "$BENCH_DIR/bin/benchsite" -addr "127.0.0.2:$port" -hosts 6 -n $pages -latency 20ms &
  WSITE_PID=$!
  redis-server --port "$rport" --bind 127.0.0.1 --save "" --appendonly no >"$R/redis.log" 2>&1 &
  REDIS_PID=$!
  trap 'kill "$WSITE_PID" "$REDIS_PID" "$S3_PID" "$SITE_PID" 2>/dev/null || true; cleanup' EXIT
  local i
  for i in $(seq 50); do
    curl -fs -o /dev/null "http://127.0.0.2:$port/p/0.html" && redis-cli -p "$rport" ping >/dev/null 2>&1 && break
    sleep 0.1
  done
  local base="$B/mirrorget -q --format warc --frontier redis://127.0.0.1:$rport/0 --scope any -c 2 --max-connections 2"
  local url="http://127.0.0.2:$port/p/0.html"
  local one="rm -rf $R/w1-{RUN}; $base --crawl-id w1-{RUN}-\$RANDOM --warc-dir $R/w1-{RUN} $url"
  local three="rm -rf $R/w3-{RUN}; for w in a b c; do $base --crawl-id w3-{RUN}-\$PPID --worker \$w --warc-dir $R/w3-{RUN} $url & done; wait"
  bench_pair three-workers "$three" one-worker "$one"
  local n1 n3
  n1=$(cat "$R"/w1-1/*.cdxj | grep -c '"status":"200"' || true)
  n3=$(cat "$R"/w3-1/*.cdxj | grep -c '"status":"200"' || true)
  add_row "mirrorget 3 workers vs 1 (Redis)" "site: $pages pages x3 URLs, 6 hosts, 20 ms" \
    three-workers "$three" one-worker "$one" 0.4 "$([ "$n1" = "$n3" ] && echo yes || echo no)" \
    "200 captures: one worker $n1, three workers $n3 (from the CDXJ beside each WARC); each worker --max-connections 2, -c 2 per host across workers"
  kill "$WSITE_PID" "$REDIS_PID" 2>/dev/null || true
}

# spark: only when named (make peers: scripts/venv-spark, Java 17+). The same 200-file job, a
# sorted CDXJ run per WARC.gz (waczpack index --sort, batch mode, 2 shards), as
# deploy/spark/arcport_spark.py in Spark local[2] vs GNU parallel -j 2 running the 2 shards;
# outputs compared file by file. The driver runs its tasks in the JVM (--via pipe: Spark's
# PipedRDD, no Python worker). Two rows: end to end (a Spark session started per run: the JVM,
# then the job), and the job in a session already started, as on a cluster or in a jobs file
# (one driver process runs the job REPEAT+1 times into fresh folders; the first job of the
# session, which also warms the JVM's task path, is in the note, the median of the others is
# the row). SPARK_RECORDS: records per WARC.gz (default 300: 574 MiB).
SPARK_FILES=200
bench_spark() {
  need_bin waczpack || return 1
  local py=scripts/venv-spark/bin/python
  [ -x "$py" ] && "$py" -c 'import pyspark' 2>/dev/null || { log "no pyspark in scripts/venv-spark: run make peers"; return 1; }
  have java || { log "no java (pyspark 4 needs Java 17+)"; return 1; }
  have parallel || { log "no GNU parallel"; return 1; }
  local recs=${SPARK_RECORDS:-300} dir list i
  [ "$QUICK" = 1 ] && recs=${SPARK_RECORDS:-20}
  dir=$IN/spark-$SPARK_FILES-$recs list=$IN/spark-$SPARK_FILES-$recs.txt
  if [ ! -s "$list" ]; then
    log "generating $SPARK_FILES WARC.gz of $recs records (scripts/arcgen) into $dir"
    mkdir -p "$dir" "$BENCH_DIR/bin"
    go build -o "$BENCH_DIR/bin/arcgen" ./scripts/arcgen
    seq 0 $((SPARK_FILES - 1)) | parallel -j 2 "$BENCH_DIR/bin/arcgen -format warc -records $recs -seed \$((3000 + {})) -o $dir/c-{}.warc.gz"
    for ((i = 0; i < SPARK_FILES; i++)); do echo "$dir/c-$i.warc.gz"; done >"$list.tmp" && mv "$list.tmp" "$list"
  fi
  local job="index --sort -j 1 --inputs $list --shard-count 2"
  local ours="rm -rf $R/spark-runs-{RUN}; SPARK_LOCAL_IP=127.0.0.1 $py deploy/spark/arcport_spark.py --master 'local[2]' --bin-dir $B run --via pipe --list $list --shard-count 2 -- waczpack index --sort -j 1 -o '$R/spark-runs-{RUN}/{stem}.cdxj' > $R/spark-{RUN}.json"
  local peer="rm -rf $R/par-runs-{RUN}; parallel -j 2 $B/waczpack $job --shard-index {} -o '$R/par-runs-{RUN}/{stem}.cdxj' ::: 0 1"
  bench_pair spark-index "$ours" parallel-index "$peer"
  local same=yes first
  diff -r -x _done "$R/spark-runs-1" "$R/par-runs-1" >/dev/null || same=no
  # the job in a started session: REPEAT+1 jobs in one driver process
  local jobs=$R/spark-session-jobs.json
  "$py" - "$list" "$B" "$R" "$REPEAT" >"$jobs" <<'PY'
import json, sys
lst, b, r, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
print(json.dumps([{"kind": "run", "name": f"index-{k}", "list": lst, "shard_count": 2, "via": "pipe",
                   "argv": ["waczpack", "index", "--sort", "-j", "1", "-o", f"{r}/spark-session-{k}/{{stem}}.cdxj"]}
                  for k in range(n + 1)]))
PY
  rm -rf "$R"/spark-session-[0-9]*
  log "spark-session: one driver, $((REPEAT + 1)) jobs"
  local sess="SPARK_LOCAL_IP=127.0.0.1 $py deploy/spark/arcport_spark.py --master 'local[2]' --bin-dir $B jobs $jobs"
  rm -f "$R/spark-session.t"
  bash -c "$sess" >"$R/spark-session.out" 2>"$R/spark-session.err" || log "spark-session: the driver failed (see $R/spark-session.err)"
  first=$(sed -n 's/.*"job": "index-0", "seconds": \([0-9.]*\).*/\1/p' "$R/spark-session.out")
  sed -n 's/.*"job": "index-[1-9][0-9]*", "seconds": \([0-9.]*\).*/\1 0 0 0/p' "$R/spark-session.out" >"$R/spark-session.t"
  diff -r -x _done "$R/spark-session-1" "$R/par-runs-1" >/dev/null || same=no
  add_row "arcport_spark.py local[2] vs parallel -j 2" \
    "$SPARK_FILES WARC.gz, $(mib "$(du -sb "$dir" | cut -f1)") MiB, $recs rec each" \
    spark-index "$ours" parallel-index "$peer" 1.3 "$same" \
    "end to end: a Spark session started per run (JVM start, then the job); tasks in the JVM (--via pipe); waczpack index --sort per file into CDXJ runs, 2 shards; runs identical: $same; Spark's processes are not in its cpu figure (not waited for by time); pyspark $("$py" -c 'import pyspark; print(pyspark.__version__)'), $(java -version 2>&1 | head -1)"
  add_row "the same job in a started Spark session vs parallel -j 2" \
    "$SPARK_FILES WARC.gz, $(mib "$(du -sb "$dir" | cut -f1)") MiB, $recs rec each" \
    spark-session "$sess" parallel-index "$peer" 1.3 "$same" \
    "the job's seconds as the driver measures them in a session already up, median of jobs 2 to $((REPEAT + 1)) of one driver process (its first job, with the JVM's task path cold: ${first:-?} s): on a cluster the application and its executors are up before the work is submitted (a long-running driver, a jobs file, a notebook or Spark Connect), so the JVM start of row 1 is paid once per application, not per job; parallel's figure is the row above's; cpu not measured (0)"
  rm -rf "$R"/spark-runs-[2-9] "$R"/par-runs-[2-9] "$R"/spark-session-[0-9]*
}

# --- report ----------------------------------------------------------------

header() {
  local cpu
  cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
  echo "arcport benchmarks -- $(date -u '+%Y-%m-%d %H:%M UTC') -- $(nproc) CPUs ($cpu), $(awk '/MemTotal/{printf "%.0f GiB", $2/1048576}' /proc/meminfo) RAM"
  echo "load average at start: $LOAD_START; at end: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "arcport $(git describe --tags --always --dirty 2>/dev/null || echo ?); peers: $(gzip --version | head -1), warcio.js $(node -p "require('./scripts/npm/node_modules/warcio/package.json').version" 2>/dev/null || echo ?), js-wacz $(node -p "require('./scripts/npm/node_modules/@harvard-lil/js-wacz/package.json').version" 2>/dev/null || echo ?), $(pigz --version 2>&1 | head -1), openzim zimdump $($OPENZIM --version 2>/dev/null | head -1 | awk '{print $NF}'), $(wget --version 2>/dev/null | head -1 | awk '{print $1, $2, $3}'), httrack $(httrack --version 2>/dev/null | awk '{print $3}' | head -1)"
  echo "runs: $REPEAT per command (median; httrack: $HT_REPEAT)$([ "$QUICK" = 1 ] && echo '; QUICK MODE: small inputs, figures meaningless')"
  echo "times: median wall seconds (CPU user+sys seconds); ratio = arcport wall / peer wall (targets apply to it); cpu ratio = arcport cpu / peer cpu; RSS = max resident MiB, arcport/peer; a row with an RSS target (note) is met only if arcport's max RSS is within it"
}

table() {
  printf '%-2s  %-36s  %-36s  %16s  %16s  %6s  %6s  %-4s  %9s  %-12s  %s\n' \
    '#' 'arcport vs peer' 'input' 'arcport s (cpu)' 'peer s (cpu)' 'ratio' 'target' 'met' 'cpu ratio' 'max RSS MiB' 'runs'
  awk -F'\t' '{
    t = ($9 == "-") ? "-" : "<=" $9
    printf "%-2s  %-36s  %-36s  %7.2f (%6.2f)  %7.2f (%6.2f)  %6.3f  %6s  %-4s  %9.3f  %-12s  %s\n",
      $1, $2, $3, $4, $5, $6, $7, $8, t, $10, $13, $11, $12 }' "$ROWS"
  if [ -s "$NOTES" ]; then
    echo
    echo "Notes:"
    cat "$NOTES"
  fi
  echo
  echo "Commands (from the repository root; {RUN} = 1 shown):"
  cat "$CMDS"
}

# --- docs/benchmarks.md ------------------------------------------------------
#
# Each run rewrites the blocks of the sections it ran in $BENCH_DOC (default
# docs/benchmarks.md; in quick mode $BENCH_DIR/benchmarks.md, since quick
# figures mean nothing) and keeps the blocks of the others as the last run
# of each wrote them. A block is everything between <!-- bench:NAME --> and
# <!-- /bench:NAME -->: when and where it ran, the table, the notes and the
# exact commands. Nothing in the file is copied by hand.
if [ "$QUICK" = 1 ]; then
  BENCH_DOC=${BENCH_DOC:-$BENCH_DIR/benchmarks.md}
else
  BENCH_DOC=${BENCH_DOC:-docs/benchmarks.md}
fi
SECTION_ROWS=$R/sections.tsv # NAME FIRST_ROW LAST_ROW, one line per section run

# doc_machine: the lines that say when, where and with what a section ran.
doc_machine() {
  local cpu mem
  cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)
  [ -n "$cpu" ] || cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p' | head -1)
  mem=$(awk '/MemTotal/{printf "%.0f GiB", $2/1048576}' /proc/meminfo 2>/dev/null)
  echo "- run: $(date -u '+%Y-%m-%d %H:%M UTC'), arcport $(git describe --tags --always --dirty 2>/dev/null || echo '?') ($(git rev-parse --short HEAD 2>/dev/null || echo '?'))"
  echo "- binaries: $B/ ($("$B/waczpack" --version 2>/dev/null | head -1 || echo 'version unknown'))"
  echo "- machine: \`uname -m\` $(uname -m), ${cpu:-unknown CPU}, \`nproc\` $(nproc), ${mem:-? GiB} RAM, $(uname -sr)"
  echo "- load average at the start of the run: $LOAD_START; at its end: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "- runs: $REPEAT per command, medians reported (httrack: $HT_REPEAT)$([ "$QUICK" = 1 ] && echo '; QUICK MODE: small inputs, figures meaningless')"
  echo "- command: \`${BENCH_CMDLINE}\`"
}

# doc_section NAME FIRST LAST: the Markdown block of one section's rows.
doc_section() {
  local name=$1 first=$2 last=$3
  echo "<!-- bench:$name -->"
  echo "## $name"
  echo
  doc_machine
  echo
  echo "| # | arcport vs peer | input | arcport s (cpu) | peer s (cpu) | ratio | target | met | cpu ratio | max RSS MiB arcport/peer |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  awk -F'\t' -v a="$first" -v b="$last" '$1 >= a && $1 <= b {
    t = ($9 == "-") ? "–" : "≤" $9
    m = ($10 == "-") ? "–" : $10
    n = $2; gsub(/\|/, "\\|", n)
    i = $3; gsub(/\|/, "\\|", i)
    printf "| %d | %s | %s | %.2f (%.2f) | %.2f (%.2f) | %.3f | %s | %s | %.3f | %s |\n",
      $1 - a + 1, n, i, $4, $5, $6, $7, $8, t, m, $13, $11 }' "$ROWS"
  if awk -v a="$first" -v b="$last" '$1+0 >= a && $1+0 <= b {f=1} END {exit !f}' "$NOTES"; then
    echo
    echo "Notes:"
    echo
    awk -v a="$first" -v b="$last" '$1+0 >= a && $1+0 <= b {
      n = $1; sub(/^ *[0-9]+  /, ""); printf "- row %d: %s\n", n - a + 1, $0 }' "$NOTES"
  fi
  echo
  echo "Commands, from the repository root (row: arcport, then the peer it is compared with):"
  echo
  echo '```'
  awk -v a="$first" -v b="$last" '
    /^ *[0-9]+  arcport: / { n = $1 + 0; keep = (n >= a && n <= b)
      if (keep) { sub(/^ *[0-9]+  /, ""); printf "%d  %s\n", n - a + 1, $0 }; next }
    keep' "$CMDS"
  echo '```'
  echo "<!-- /bench:$name -->"
}

# doc_old NAME: the block of NAME in the current $BENCH_DOC, if any.
doc_old() {
  [ -f "$BENCH_DOC" ] || return 0
  awk -v b="<!-- bench:$1 -->" -v e="<!-- /bench:$1 -->" '$0 == b {on = 1} on {print} $0 == e {on = 0}' "$BENCH_DOC"
}

# doc_sections: the sections of the page, in order: those `make bench` runs,
# then those run only when named (memory, spark, and any section this run or
# the page already has), each once.
doc_sections() {
  local s seen=" "
  for s in "${SECTIONS[@]}" memory spark $(cut -f1 "$SECTION_ROWS") \
    $([ -f "$BENCH_DOC" ] && sed -n 's/^<!-- bench:\([a-z0-9_-]*\) -->$/\1/p' "$BENCH_DOC"); do
    [[ $seen == *" $s "* ]] && continue
    seen="$seen$s "
    echo "$s"
  done
}

# write_doc: $BENCH_DOC with this run's sections replaced.
write_doc() {
  local s first last block tmp
  mkdir -p "$(dirname "$BENCH_DOC")"
  tmp=$BENCH_DOC.tmp.$$
  {
    cat <<'HEAD'
# Benchmarks

<!-- Written by scripts/bench.sh: do not edit by hand. Each run rewrites the sections it ran. -->

arcport against the tools that do the same job (its peers), on the same generated input, on the same
machine, in the same run. `make bench` runs every section; `scripts/bench.sh SECTION ...` runs only
those named and rewrites only their part of this page, so each section below says when, on what
machine and with which exact commands it was measured. The inputs are deterministic (generated by
`scripts/arcgen`, `scripts/gzsplit`, `testdata/zim/gen/make_zim.py`, `testdata/crawl/benchsite` and
one httrack crawl) and cached under `out/bench/in/`; the section list and the targets are at the top
of `scripts/bench.sh`.

How to read a table: times are the median wall-clock seconds, with the CPU seconds (user + sys) in
parentheses; ratio = arcport wall / peer wall, which the target applies to; cpu ratio = arcport CPU /
peer CPU, the steadier figure on a shared, loaded machine; max RSS is the largest resident set of
any process of the command over all runs. A row with an RSS target is met only if arcport's max RSS
is within it. Compare ratios within a run, not times across runs: the machine's speed varies with
its load.
HEAD
    for s in $(doc_sections); do
      echo
      first=$(awk -v n="$s" '$1 == n {print $2}' "$SECTION_ROWS")
      last=$(awk -v n="$s" '$1 == n {print $3}' "$SECTION_ROWS")
      if [ -n "$first" ] && [ "$first" -le "$last" ]; then
        doc_section "$s" "$first" "$last"
        continue
      fi
      block=$(doc_old "$s")
      if [ -n "$block" ]; then
        [ -z "$first" ] || log "section $s wrote no row: $BENCH_DOC keeps its previous figures"
        echo "$block"
      else
        echo "<!-- bench:$s -->"
        echo "## $s"
        echo
        echo "Not measured yet: run \`scripts/bench.sh $s\`."
        echo "<!-- /bench:$s -->"
      fi
    done
  } >"$tmp" && mv "$tmp" "$BENCH_DOC"
  log "wrote $BENCH_DOC"
}

# Further sections live in scripts/bench.d/NAME.sh, one file per section:
# each defines bench_NAME and appends NAME to SECTIONS (or not, for a
# section run only when named).
for f in "$(dirname "${BASH_SOURCE[0]}")"/bench.d/*.sh; do
  [ -e "$f" ] || continue
  # shellcheck source=/dev/null
  . "$f"
done

main() {
  local s status=0 first
  [ $# -gt 0 ] || set -- "${SECTIONS[@]}"
  for s in "$@"; do
    declare -F "bench_$s" >/dev/null || { echo "bench.sh: no section $s (have: ${SECTIONS[*]}; memory, only when named)" >&2; exit 2; }
  done
  BENCH_CMDLINE="scripts/bench.sh $*"
  [ "$QUICK" != 1 ] || BENCH_CMDLINE="BENCH_QUICK=1 $BENCH_CMDLINE"
  LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
  : >"$SECTION_ROWS"
  for s in "$@"; do
    log "== $s"
    first=$((ROWNO + 1))
    "bench_$s" || { log "section $s failed"; status=1; }
    printf '%s\t%d\t%d\n' "$s" "$first" "$ROWNO" >>"$SECTION_ROWS"
  done
  { header; echo; table; } | tee "$BENCH_DIR/table.txt"
  write_doc
  return $status
}
main "$@"; exit
