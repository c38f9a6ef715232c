# serve: waczpack serve vs pywb 2.10.0 (scripts/venv, make peers) on
# loopback, the same data: a pywb collection folder (indexes/index.cdxj,
# archive/bench.warc.gz) of SERVE_CAPTURES captures made by
# lib/internal/tools/servebench (HTML pages, a quarter of them 20 KB),
# indexed by `waczpack index --cdxj-indexer` (cdxj-indexer -p's lines).
# The load: servebench load (a Go client: N GETs over SERVE_CONNS
# connections, the URLs of a list in turn, every request's time; hey
# asks one URL only). Rows (time = wall time of the N requests; the
# servers run through all runs):
#   CDX exact lookups   /bench/cdx?url=U, 2000 distinct URLs      <= 0.1 (10x pywb's
#                       throughput) and arcport's p99 < 20 ms
#   replay id_ 20 KB    /bench/TSid_/U, 500 distinct 20 KB pages  <= 0.1 and p99 < 20 ms
#   RSS, 10M cluster    serve started on a ZipNum cluster of SERVE_CLUSTER
#                       (10,000,000) captures (no WARC), 5000 exact lookups, stopped;
#                       pywb the same (informative time); RSS target <= 100 MiB
#   S3 first replay     serve s3://bench/serve.wacz (versitygw) started, one id_
#                       replay, stopped, vs the same on the local WACZ; the
#                       requests to versitygw (ARCPORT_STORE_STATS) <= 8
if [ "$QUICK" = 1 ]; then
  SERVE_CAPTURES=2000 SERVE_CLUSTER=100000 SERVE_N=400 SERVE_PYWB_N=400
else
  SERVE_CAPTURES=${SERVE_CAPTURES:-50000} SERVE_CLUSTER=${SERVE_CLUSTER:-10000000}
  SERVE_N=${SERVE_N:-20000} SERVE_PYWB_N=${SERVE_PYWB_N:-2000}
fi
SERVE_CONNS=${SERVE_CONNS:-8} SERVE_CL_N=${SERVE_CL_N:-2000}
SECTIONS+=(serve)

SERVE_PIDS=()
free_port() {
  local port
  for port in $(seq "$1" "$2"); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return; }
  done
}
wait_http() {
  local i
  for i in $(seq 600); do
    curl -fs -o /dev/null "$1" && return 0
    sleep 0.1
  done
  log "$1 did not answer in 60 s"
  return 1
}

# wait_cmd URL: a shell loop that waits (up to 60 s) for URL to answer, for
# the commands run_once runs
wait_cmd() { echo "for i in \$(seq 6000); do curl -fs -o /dev/null '$1' && break; sleep 0.01; done"; }

# serve_med FIELD FILE... : the median over the runs' JSON of a field
serve_med() {
  local field=$1
  shift
  for f in "$@"; do sed -n "s/.*\"$field\":\([0-9.e+-]*\).*/\1/p" "$f"; done | sort -g |
    awk '{v[NR]=$1} END {if (NR==0) print "nan"; else if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'
}

bench_serve() {
  need_bin waczpack || return 1
  local wayback=scripts/venv/bin/wayback
  [ -x "$wayback" ] || { log "pywb missing (scripts/venv/bin/wayback): run make peers"; return 1; }
  mkdir -p "$BENCH_DIR/bin"
  go build -o "$BENCH_DIR/bin/servebench" ./lib/internal/tools/servebench || return 1
  local sb=$BENCH_DIR/bin/servebench d=$IN/serve-$SERVE_CAPTURES
  local coll=$d/coll
  if [ ! -s "$coll/indexes/index.cdxj" ]; then
    log "generating $SERVE_CAPTURES captures (servebench warc) and their index"
    rm -rf "$d" && mkdir -p "$coll/archive" "$coll/indexes"
    "$sb" warc -n "$SERVE_CAPTURES" -o "$coll/archive" || return 1
    "$B/waczpack" index --cdxj-indexer "$coll/archive/bench.warc.gz" | LC_ALL=C sort >"$coll/indexes/index.cdxj.tmp" &&
      mv "$coll/indexes/index.cdxj.tmp" "$coll/indexes/index.cdxj" || return 1
  fi
  local ncap
  ncap=$(wc -l <"$coll/indexes/index.cdxj")
  # the two servers
  local pw_port sv_port pwdir=$R/serve-pywb
  sv_port=$(free_port 19450 19500) pw_port=$(free_port 19501 19550)
  mkdir -p "$pwdir"
  printf 'collections:\n  bench:\n    index_paths: %s/indexes/\n    archive_paths: %s/archive/\n' "$ROOT/$coll" "$ROOT/$coll" >"$pwdir/config.yaml"
  "$B/waczpack" serve -q --listen "127.0.0.1:$sv_port" --collection "bench=$coll" >"$R/serve.log" 2>&1 &
  SERVE_PIDS+=($!)
  local sv_pid=$!
  (cd "$pwdir" && exec "$ROOT/$wayback" -p "$pw_port" -b 127.0.0.1) >"$R/serve-pywb.log" 2>&1 &
  SERVE_PIDS+=($!)
  trap 'kill "${SERVE_PIDS[@]}" "$S3_PID" "$SITE_PID" 2>/dev/null || true; cleanup' EXIT
  wait_http "http://127.0.0.1:$sv_port/healthz" || return 1
  wait_http "http://127.0.0.1:$pw_port/bench/cdx?url=http://host0.bench.example/p20k/0.html&limit=1" || return 1
  # URL lists: 2000 distinct URLs, 500 distinct 20 KB captures at their time-stamps
  awk '{print $0}' "$coll/indexes/index.cdxj" | sed -n 's/^[^ ]* \([0-9]*\) .*"url": "\([^"]*\)".*/\1 \2/p' >"$R/serve-caps.txt"
  awk 'NR % int(('"$ncap"' + 1999) / 2000) == 0 {print $2}' "$R/serve-caps.txt" | head -2000 >"$R/serve-urls.txt"
  awk '$2 ~ /\/p20k\// && NR % 7 == 0 {print $1, $2}' "$R/serve-caps.txt" | head -500 >"$R/serve-pages.txt"
  local port list
  for port in "$sv_port" "$pw_port"; do
    list=$R/serve-cdx-$port.txt
    awk -v b="http://127.0.0.1:$port/bench/cdx?url=" '{print b $1}' "$R/serve-urls.txt" >"$list"
    awk -v b="http://127.0.0.1:$port/bench/" '{print b $1 "id_/" $2}' "$R/serve-pages.txt" >"$R/serve-replay-$port.txt"
  done
  # both answer every request of both lists with 200
  local chk
  for port in "$sv_port" "$pw_port"; do
    for list in "$R/serve-cdx-$port.txt" "$R/serve-replay-$port.txt"; do
      chk=$("$sb" load -urls "$list" -n "$(wc -l <"$list")" -c 4)
      case $chk in *'"non_2xx":0,'*) ;; *) log "not all 200 from $list: $chk"; return 1 ;; esac
    done
  done
  local kind ours peer p99o p99p rpso rpsp ok row
  for kind in cdx replay; do
    ours="$sb load -urls $R/serve-$kind-$sv_port.txt -n $SERVE_N -c $SERVE_CONNS -o $R/serve-$kind-ours-{RUN}.json"
    peer="$sb load -urls $R/serve-$kind-$pw_port.txt -n $SERVE_PYWB_N -c $SERVE_CONNS -o $R/serve-$kind-pywb-{RUN}.json"
    bench_pair "serve-$kind" "$ours" "serve-$kind-pywb" "$peer"
    # per request: the time of N requests scaled to the peer's N
    awk -v k="$SERVE_PYWB_N" -v n="$SERVE_N" '{printf "%.3f %.3f %d %d\n", $1*k/n, $2*k/n, $3, $4}' "$R/serve-$kind.t" >"$R/serve-$kind-scaled.t"
    p99o=$(serve_med p99_ms "$R"/serve-$kind-ours-*.json) p99p=$(serve_med p99_ms "$R"/serve-$kind-pywb-*.json)
    rpso=$(serve_med rps "$R"/serve-$kind-ours-*.json) rpsp=$(serve_med rps "$R"/serve-$kind-pywb-*.json)
    ok=$(awk -v p="$p99o" 'BEGIN{print (p < 20) ? "yes" : "no"}')
    row="CDX exact lookups vs pywb"
    [ "$kind" = cdx ] || row="replay id_ 20 KB page vs pywb"
    add_row "$row" "$ncap captures, $SERVE_CONNS conns" "serve-$kind-scaled" "$ours" "serve-$kind-pywb" "$peer" 0.1 "$ok" \
      "throughput $(printf %.0f "$rpso") vs $(printf %.0f "$rpsp") req/s ($(awk -v a="$rpso" -v b="$rpsp" 'BEGIN{printf "%.1f", a/b}')x); p99 $p99o ms (target < 20 ms: $ok) vs pywb $p99p ms; arcport $SERVE_N requests a run, pywb $SERVE_PYWB_N (times scaled to $SERVE_PYWB_N); serve max RSS so far $(awk '/VmHWM/{printf "%.1f MiB", $2/1024}' /proc/$sv_pid/status)"
  done
  kill "${SERVE_PIDS[@]}" 2>/dev/null || true
  wait "${SERVE_PIDS[@]}" 2>/dev/null || true
  SERVE_PIDS=()

  # RSS with a 10-million-capture ZipNum cluster (no WARC: lookups only)
  local cl=$IN/serve-cluster-$SERVE_CLUSTER
  if [ ! -s "$cl/cluster.idx" ]; then
    log "generating a ZipNum cluster of $SERVE_CLUSTER captures (servebench cluster)"
    rm -rf "$cl" && mkdir -p "$cl"
    "$sb" cluster -n "$SERVE_CLUSTER" -o "$cl" -keys "$cl/keys.txt" || return 1
  fi
  local cport=$(free_port 19551 19600) ppdir=$R/serve-pywb-cluster
  mkdir -p "$ppdir"
  printf 'collections:\n  cl:\n    index_paths: %s/cluster.idx\n' "$ROOT/$cl" >"$ppdir/config.yaml"
  awk -v b="http://127.0.0.1:$cport/cl/cdx?url=" '{print b $1}' "$cl/keys.txt" >"$R/serve-cl-urls.txt"
  ours="$B/waczpack serve -q --listen 127.0.0.1:$cport --collection cl=$cl/cluster.idx & p=\$!; $(wait_cmd "http://127.0.0.1:$cport/healthz"); $sb load -urls $R/serve-cl-urls.txt -n $SERVE_CL_N -c $SERVE_CONNS -o $R/serve-cl-ours-{RUN}.json; kill -INT \$p; wait \$p"
  peer="cd $ppdir && { $ROOT/$wayback -p $cport -b 127.0.0.1 & p=\$!; cd $ROOT; $(wait_cmd "http://127.0.0.1:$cport/cl/cdx?url=x.com"); $sb load -urls $R/serve-cl-urls.txt -n $SERVE_CL_N -c $SERVE_CONNS -o $R/serve-cl-pywb-{RUN}.json; kill \$p; wait \$p; }"
  bench_pair serve-cluster "$ours" serve-cluster-pywb "$peer"
  local nchk
  nchk=$(serve_med non_2xx "$R"/serve-cl-ours-*.json)
  # wayback exits 143 on the SIGTERM that stops it (it ignores SIGINT)
  PEER_OK_STATUS=143 RSS_MAX=$RSS_TARGET add_row "serve RSS, ZipNum cluster" "$SERVE_CLUSTER captures, $SERVE_CL_N lookups" serve-cluster "$ours" serve-cluster-pywb "$peer" - \
    "$([ "$nchk" = 0 ] && echo yes || echo no)" \
    "max RSS of serve (start, $SERVE_CL_N exact lookups, SIGINT; the load client's RSS is in the figure too, ~10 MiB) vs pywb's; lookups p99 $(serve_med p99_ms "$R"/serve-cl-ours-*.json) ms vs pywb $(serve_med p99_ms "$R"/serve-cl-pywb-*.json) ms; non-200 answers: $nchk; cluster $(du -sm "$cl" | cut -f1) MiB on disk"

  # S3: the requests of the first replay from a WACZ in versitygw
  start_s3 || return 1
  if [ ! -s "$d/serve.wacz" ]; then
    "$B/waczpack" create -q -o "$d/serve.wacz" "$coll/archive/bench.warc.gz" || return 1
  fi
  cp "$d/serve.wacz" "$BENCH_DIR/s3/bench/serve.wacz"
  local sport=$(free_port 19601 19650) page
  page=$(head -1 "$R/serve-pages.txt" | awk '{print $1 "id_/" $2}')
  ours="$B/waczpack serve -q --listen 127.0.0.1:$sport s3://bench/serve.wacz & p=\$!; $(wait_cmd "http://127.0.0.1:$sport/healthz"); curl -fsS -o /dev/null http://127.0.0.1:$sport/serve/$page; kill -INT \$p; wait \$p"
  peer="$B/waczpack serve -q --listen 127.0.0.1:$sport $d/serve.wacz & p=\$!; $(wait_cmd "http://127.0.0.1:$sport/healthz"); curl -fsS -o /dev/null http://127.0.0.1:$sport/serve/$page; kill -INT \$p; wait \$p"
  bench_pair serve-s3 "$ours" serve-local "$peer"
  local stats nreq
  stats=$(ARCPORT_STORE_STATS=1 bash -c "$ours" 2>&1 >/dev/null | sed -n 's/^waczpack: storage: //p' | tail -1)
  nreq=$(echo "$stats" | awk '{print $1}')
  add_row "serve first replay, WACZ in S3 vs local" "WACZ $(mib "$(stat -c %s "$d/serve.wacz")") MiB" serve-s3 "$ours" serve-local "$peer" - yes \
    "start + one id_ replay + stop; requests to versitygw: $stats (target <= 8: $([ -n "$nreq" ] && [ "$nreq" -le 8 ] && echo met || echo NOT met))"
}
