#!/usr/bin/env bash
# Installs the peers and servers arcport's tests and benchmarks run against:
#   Debian: httrack, zim-tools (zimdump, zimcheck, zimwriterfs), python3-libzim,
#           kiwix-tools, wget, chromium, xz-utils, zstd, unzip, bsdutils
#           (script), redis-server, time, hyperfine, pigz (bench.sh's arc2warc peer)
#   npm:    warcio, playwright-core and @harvard-lil/js-wacz (scripts/npm), ReplayWeb.page's bundled
#           ui.js/sw.js (npm pack: its dependency tree is not needed)
#   Go:     versitygw (a real S3 gateway) into $(go env GOPATH)/bin
# Idempotent: installs only what is missing. `make test` runs it first.
# Without root (no apt-get), it says what is missing and the tests that need
# it skip with "missing peer ..." (under CI=true they fail instead).
set -euo pipefail
cd "$(dirname "$0")"

VERSITYGW_VERSION=v1.8.0

need=()
for pair in httrack:httrack zimdump:zim-tools zimcheck:zim-tools kiwix-serve:kiwix-tools wget:wget \
  chromium:chromium xz:xz-utils zstd:zstd unzip:unzip script:bsdutils redis-server:redis-server \
  /usr/bin/time:time hyperfine:hyperfine pigz:pigz node:nodejs npm:npm; do
  cmd=${pair%%:*} pkg=${pair#*:}
  command -v "$cmd" >/dev/null 2>&1 || need+=("$pkg")
done
/usr/bin/python3 -c 'import libzim' >/dev/null 2>&1 || need+=(python3-libzim)
if [ ${#need[@]} -gt 0 ]; then
  mapfile -t need < <(printf '%s\n' "${need[@]}" | sort -u)
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "peers: apt-get install ${need[*]}" >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "peers: missing ${need[*]} (not root or no apt-get): tests that need them will skip (fail under CI)" >&2
  fi
fi

if command -v npm >/dev/null; then
  if [ ! -x npm/node_modules/.bin/warcio ] || [ ! -d npm/node_modules/playwright-core ] || [ ! -d npm/node_modules/@harvard-lil/js-wacz ]; then
    echo "peers: npm install (warcio, playwright-core, js-wacz)" >&2
    (cd npm && npm install --no-audit --no-fund --loglevel=error >/dev/null)
  fi
  if [ ! -f npm/rwp/package/sw.js ]; then
    echo "peers: npm pack replaywebpage" >&2
    mkdir -p npm/rwp
    (cd npm/rwp && npm pack --silent replaywebpage@2.5.3 >/dev/null && tar xzf replaywebpage-2.5.3.tgz)
  fi
else
  echo "peers: no npm: warcio and ReplayWeb.page tests will skip (fail under CI)" >&2
fi

gobin=$(go env GOBIN); [ -n "$gobin" ] || gobin=$(go env GOPATH)/bin
if ! command -v versitygw >/dev/null && [ ! -x "$gobin/versitygw" ]; then
  echo "peers: go install versitygw@$VERSITYGW_VERSION (a few minutes)" >&2
  GOFLAGS=-mod=mod go install "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION"
fi
