#!/usr/bin/env bash
# Installs the peer tools arcport's end-to-end tests and benchmarks compare
# with: Debian httrack, zim-tools, python3-libzim, wget, chromium, time,
# hyperfine; npm warcio and playwright-core; and ReplayWeb.page's bundled
# ui.js/sw.js (fetched with `npm pack`: its dependency tree is not needed).
# Idempotent: does nothing for tools already present.
set -euo pipefail
cd "$(dirname "$0")"

need=()
for pair in httrack:httrack zimdump:zim-tools wget:wget chromium:chromium /usr/bin/time:time hyperfine:hyperfine; do
  cmd=${pair%%:*} pkg=${pair#*:}
  command -v "$cmd" >/dev/null 2>&1 || need+=("$pkg")
done
/usr/bin/python3 -c 'import libzim' >/dev/null 2>&1 || need+=(python3-libzim)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "peers: apt-get install ${need[*]}" >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "peers: missing ${need[*]} (not root or no apt-get): tests that need them will skip" >&2
  fi
fi

if command -v npm >/dev/null; then
  if [ ! -x npm/node_modules/.bin/warcio ] || [ ! -d npm/node_modules/playwright-core ]; then
    echo "peers: npm install (warcio, playwright-core)" >&2
    (cd npm && npm install --no-audit --no-fund --loglevel=error >/dev/null)
  fi
  if [ ! -f npm/rwp/package/sw.js ]; then
    echo "peers: npm pack replaywebpage" >&2
    mkdir -p npm/rwp
    (cd npm/rwp && npm pack --silent replaywebpage@2.5.3 >/dev/null && tar xzf replaywebpage-2.5.3.tgz)
  fi
else
  echo "peers: no npm: warcio and ReplayWeb.page tests will skip" >&2
fi
