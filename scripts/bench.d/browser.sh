# shellcheck shell=bash
# browser (only when named: Chromium runs, minutes): mirrorget --browser
# (issue 26).
#   row 1: the bench site (start_site: SITE_PAGES static pages, no script)
#          crawled with --browser=auto vs the plain crawl, same flags
#          (target 1.2). --browser=auto renders only pages holding a
#          <script>: here none, so the row measures what auto costs a
#          static site (the check of each page; Chromium is started only
#          for a first page to render).
#   row 2: the JS shop of the e2e tests (e2e/browser_site_test.go, served
#          by the e2e test binary's TestJSShopServe) crawled with
#          --browser vs the plain crawl of it (informative ratio: the
#          plain crawl captures its shell only). Target: the --browser
#          crawl in under 60 s (wall, median); the row fails otherwise.
#          The note gives the URLs each captured, and the peak memory of
#          mirrorget plus Chromium: the largest sums of the resident sets
#          (RSS: shared pages counted in every process) and of the
#          proportional set sizes (PSS) of the whole process tree
#          (mirrorget, Chromium and each of its processes), sampled every
#          100 ms over one more run; /usr/bin/time's max RSS (the table's
#          column) is that of the largest single process.

# tree_mem_peak PID: prints "RSS PSS", the largest sums (KiB) of the
# resident sets and of the proportional set sizes (shared pages divided
# among the processes sharing them: Chromium's processes share much) of
# PID and its descendants seen until PID exits, sampled every 100 ms.
tree_mem_peak() {
  local root=$1 peak=0 ppeak=0 now pids p pss
  while kill -0 "$root" 2>/dev/null; do
    read -r now pids < <(ps -eo pid=,ppid=,rss= | awk -v r="$root" '
      {pp[$1]=$2; rss[$1]=$3}
      END {
        s=0; l=""
        for (p in pp) { q=p; n=0; while (q != r && q in pp && n < 64) { q=pp[q]; n++ } if (q == r) { s+=rss[p]; l=l" "p } }
        print s l
      }')
    pss=0
    for p in $pids; do
      pss=$((pss + $(awk '/^Pss:/ {print $2; exit}' "/proc/$p/smaps_rollup" 2>/dev/null || echo 0)))
    done
    ((now <= peak)) || peak=$now
    ((pss <= ppeak)) || ppeak=$pss
    sleep 0.1
  done
  echo "$peak $ppeak"
}

# urls_in WARC: the number of distinct URLs its CDXJ index lists (urn:
# resources left out).
urls_in() {
  "$B/waczpack" index "$1" 2>/dev/null | grep -o '"url": *"[^"]*"' | grep -v '"urn:' | sort -u | wc -l
}

JSSHOP_PID=
start_jsshop() {
  [ -z "$JSSHOP_PID" ] || return 0
  mkdir -p "$BENCH_DIR/bin"
  go test -c -o "$BENCH_DIR/bin/e2e.test" ./e2e || return 1
  local port
  for port in $(seq 19150 2 19250); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || (exec 3<>"/dev/tcp/127.0.0.1/$((port + 1))") 2>/dev/null || break
  done
  ARCPORT_JSSHOP_ADDR=127.0.0.1:$port "$BENCH_DIR/bin/e2e.test" -test.run '^TestJSShopServe$' >/dev/null 2>&1 &
  JSSHOP_PID=$!
  trap 'kill "$JSSHOP_PID" "${SITE_PID:-}" 2>/dev/null || true; cleanup' EXIT
  JSSHOP_URL=http://127.0.0.1:$port/
  local i
  for i in $(seq 100); do
    curl -fs -o /dev/null "$JSSHOP_URL" && return 0
    sleep 0.1
  done
  log "the JS shop did not start"
  return 1
}

bench_browser() {
  need_bin mirrorget waczpack || return 1
  local chromium
  chromium=$(command -v chromium || command -v chromium-browser || true)
  [ -n "$chromium" ] || { log "chromium missing (make peers)"; return 1; }
  start_site || return 1
  local load0
  load0=$(cut -d' ' -f1-3 /proc/loadavg)
  rm -f "$R"/browser-*.warc.gz "$R"/plain-*.warc.gz

  local auto="$B/mirrorget -q --scope host --browser=auto --browser-path $chromium --format warc -o $R/browser-auto-{RUN}.warc.gz $SITE_URL"
  local plain="$B/mirrorget -q --scope host --format warc -o $R/plain-site-{RUN}.warc.gz $SITE_URL"
  bench_pair browser-auto "$auto" plain-site "$plain"
  local na np
  na=$(urls_in "$R/browser-auto-1.warc.gz") np=$(urls_in "$R/plain-site-1.warc.gz")
  add_row "mirrorget --browser=auto vs plain crawl" "site: $SITE_PAGES static pages, $SITE_LATENCY/request" \
    browser-auto "$auto" plain-site "$plain" 1.2 "$([ "$na" = "$np" ] && echo yes || echo no)" \
    "URLs captured: --browser=auto $na, plain $np; load average at the start of the section: $load0"

  start_jsshop || return 1
  local js="$B/mirrorget -q --browser --browser-path $chromium --format warc -o $R/browser-js-{RUN}.warc.gz $JSSHOP_URL"
  local jsplain="$B/mirrorget -q --format warc -o $R/plain-js-{RUN}.warc.gz $JSSHOP_URL"
  bench_pair browser-js "$js" plain-js "$jsplain"
  local wall ok nb npj
  wall=$(median "$R/browser-js.t" 1)
  ok=$(awk -v w="$wall" 'BEGIN{print (w < 60) ? "yes" : "no"}')
  nb=$(urls_in "$R/browser-js-1.warc.gz") npj=$(urls_in "$R/plain-js-1.warc.gz")
  # one more run, its process tree sampled
  log "browser-js run with the process tree's memory sampled"
  rm -f "$R/browser-js-mem.warc.gz"
  $B/mirrorget -q --browser --browser-path "$chromium" --format warc -o "$R/browser-js-mem.warc.gz" "$JSSHOP_URL" 2>>"$R/browser-js.err" &
  local pid=$! peak
  peak=$(tree_mem_peak $pid)
  wait $pid || true
  add_row "mirrorget --browser, JS shop (vs its plain crawl)" "e2e JS shop: 30 cards on scroll, 3 item pages, worker, br, video" \
    browser-js "$js" plain-js "$jsplain" - "$ok" \
    "--browser crawl ${wall} s (target < 60 s: $([ "$ok" = yes ] && echo met || echo NOT met)); URLs captured: --browser $nb, plain $npj; peak memory of mirrorget + Chromium, the whole process tree sampled: $(mib $((${peak% *} * 1024))) MiB summing RSS, $(mib $((${peak#* } * 1024))) MiB summing PSS; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
}
