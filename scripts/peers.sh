#!/usr/bin/env bash
# Installs the peers and servers arcport's tests and benchmarks run against:
#   Debian: httrack, zim-tools (zimdump, zimcheck, zimwriterfs), python3-libzim,
#           kiwix-tools, wget, chromium, xz-utils, zstd, unzip, bsdutils
#           (script), redis-server, time, hyperfine, pigz (bench.sh's arc2warc peer),
#           man-db (man -l renders man/*.1: lib/cli/clidoc TestManRenders)
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
  /usr/bin/time:time hyperfine:hyperfine pigz:pigz node:nodejs npm:npm man:man-db xapian-check:xapian-tools; do
  cmd=${pair%%:*} pkg=${pair#*:}
  command -v "$cmd" >/dev/null 2>&1 || need+=("$pkg")
done
/usr/bin/python3 -c 'import libzim' >/dev/null 2>&1 || need+=(python3-libzim)
/usr/bin/python3 -c 'import xapian' >/dev/null 2>&1 || need+=(python3-xapian)
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

# Python reference tools, pinned, each in a virtual environment under scripts/
# (never the system Python; Debian's python3-libzim stays on /usr/bin/python3):
#   scripts/venv:     warcio, wacz (py-wacz) with authsign (its [signing] extra), cdxj-indexer,
#                     pywb - one venv, they install together
#   scripts/venv-zim: warc2zim, which wants a newer Python than the others run on (its own venv):
#                     2.3.1 requires Python >=3.14,<3.15, 2.2.x >=3.13,<3.14; the newest release
#                     that an interpreter on this machine supports is installed
# lib/internal/peertest/python.go (NeedPy) finds them and checks the same versions.
# Quick when done: the versions installed are read from the venv's metadata, pip runs only on a mismatch.
PY_PINS=(warcio==1.8.1 wacz==0.6.0 cdxj-indexer==1.5.0 pywb==2.10.0 authsign==0.6.1)
ZIM_PINS=("3.14 warc2zim==2.3.1" "3.13 warc2zim==2.2.2")

# py_has VENV PIN... is true when VENV has exactly these versions.
py_has() {
  local venv=$1; shift
  [ -x "$venv/bin/python" ] || return 1
  "$venv/bin/python" - "$@" <<'PY' 2>/dev/null
import sys, importlib.metadata as m
for pin in sys.argv[1:]:
    name, want = pin.split("==")
    try:
        if m.version(name) != want: sys.exit(1)
    except m.PackageNotFoundError:
        sys.exit(1)
PY
}

# py_pip VENV installs pip into a venv made --without-pip: the wheel from the package index (by
# scripts/venv's pip, or python3's), run from the wheel itself.
PIP_PIN=pip==25.3
py_pip() {
  local venv=$1 wh dl=python3
  wh=$(mktemp -d)
  [ -x "$PWD/venv/bin/python" ] && dl=$PWD/venv/bin/python
  local whl rc=1
  if "$dl" -m pip download -q --disable-pip-version-check --no-deps -d "$wh" "$PIP_PIN" >/dev/null; then
    whl=$(echo "$wh"/pip-*.whl)
    "$venv/bin/python" "$whl/pip" install -q --disable-pip-version-check "$whl" >/dev/null && rc=0
  fi
  rm -rf "$wh"
  return $rc
}

# py_venv VENV PYTHON PIN...: (re)creates VENV from PYTHON and installs the pins.
py_venv() {
  local venv=$1 py=$2; shift 2
  py_has "$venv" "$@" && return 0
  # one install at a time (make peers may run from several checkouts' tests at once):
  # the lock is this script's own file, held until the function returns
  exec 9<"$PWD/peers.sh"
  command -v flock >/dev/null && flock 9
  py_has "$venv" "$@" && { exec 9<&-; return 0; }
  echo "peers: pip install $* into scripts/${venv##*/} ($("$py" --version 2>&1))" >&2
  local minor='import sys; print("%d.%d" % sys.version_info[:2])'
  if [ ! -x "$venv/bin/python" ] || [ "$("$venv/bin/python" -c "$minor" 2>/dev/null)" != "$("$py" -c "$minor")" ]; then
    rm -rf "$venv"
    # an interpreter without ensurepip (the embedded 3.14 below): pip from its wheel
    "$py" -m venv "$venv" 2>/dev/null || { rm -rf "$venv" && "$py" -m venv --without-pip "$venv" && py_pip "$venv"; }
  fi
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "$@" >/dev/null
  exec 9<&-
  py_has "$venv" "$@" || { echo "peers: $venv: $* not installed as pinned" >&2; return 1; }
}

# Python 3.14 for warc2zim 2.3.1, where the machine has none (Debian 12 stops at 3.11, python.org
# is not reachable here): the CPython 3.14 build (python-build-standalone) that the Go module
# github.com/kluctl/go-embed-python embeds, fetched through the Go module proxy (so checked
# against sum.golang.org) and unpacked by scripts/pyembed.py into the user's cache, outside
# any checkout; 36 MB, a few seconds once downloaded.
PY314_MOD=github.com/kluctl/go-embed-python@v0.0.0-3.14.6-20260610-1
PY314=${XDG_CACHE_HOME:-$HOME/.cache}/arcport/python-3.14.6
py314() {
  [ -x "$PY314/bin/python3" ] && return 0
  command -v go >/dev/null || return 1
  local plat dir tmp
  plat=$(go env GOOS)-$(go env GOARCH)
  case $plat in linux-amd64 | linux-arm64 | darwin-amd64 | darwin-arm64) ;; *) return 1 ;; esac
  tmp=$(mktemp -d)
  dir=$(cd "$tmp" && go mod init peers >/dev/null 2>&1 && go mod download -json "$PY314_MOD" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  rm -rf "$tmp"
  [ -n "$dir" ] || return 1
  echo "peers: Python 3.14.6 from $PY314_MOD into $PY314" >&2
  mkdir -p "$(dirname "$PY314")"
  python3 "$PWD/pyembed.py" "$dir" "$plat" "$PY314"
}

# py_find_314: a python3.14 on PATH or in pyenv already (then nothing is fetched).
py_find_314() {
  local p
  for p in python3.14 "$(pyenv root 2>/dev/null)/versions/3.14"*/bin/python3 "$HOME/.pyenv/versions/3.14"*/bin/python3; do
    command -v "$p" >/dev/null 2>&1 && return 0
  done
  return 1
}

# py_find VERSION prints a python3 of that minor version (PATH, pyenv's, then the one above).
py_find() {
  local v=$1 p
  [ "$v" != 3.14 ] || py_find_314 || py314 || true
  for p in "python$v" "$(pyenv root 2>/dev/null)/versions/$v"*/bin/python3 "$HOME/.pyenv/versions/$v"*/bin/python3 "$PY314/bin/python3"; do
    p=$(command -v "$p" 2>/dev/null) || continue
    [ "$("$p" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)" = "$v" ] && { echo "$p"; return 0; }
  done
  return 1
}

py=${ARCPORT_PYTHON:-python3}
if command -v "$py" >/dev/null && "$py" -c 'import sys, venv; sys.exit(sys.version_info < (3, 9))' 2>/dev/null; then
  py_venv "$PWD/venv" "$(command -v "$py")" "${PY_PINS[@]}" ||
    echo "peers: ${PY_PINS[*]} not installed: their tests will skip (fail under CI)" >&2
else
  echo "peers: no python3 >= 3.9 with venv ($py): warcio, wacz, cdxj-indexer, pywb tests will skip (fail under CI)" >&2
fi
zim_done=
for pair in "${ZIM_PINS[@]}"; do
  v=${pair%% *} pin=${pair#* }
  if zpy=$(py_find "$v"); then
    py_venv "$PWD/venv-zim" "$zpy" "$pin" && zim_done=$pin
    break
  fi
done
[ -n "$zim_done" ] || echo "peers: no Python 3.13 or 3.14 for warc2zim: its tests will skip (fail under CI)" >&2

# PySpark for deploy/spark (e2e/spark_test.go, bench.sh spark): pyspark from the Python package
# index in its own venv, scripts/venv-spark (its ~450 MB and py4j stay apart from pywb's pins in
# scripts/venv). pyspark 4 runs on Java 17 or newer: without it the Spark tests skip (fail under CI).
SPARK_PINS=(pyspark==4.3.0)
if command -v "$py" >/dev/null && "$py" -c 'import sys, venv; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
  py_venv "$PWD/venv-spark" "$(command -v "$py")" "${SPARK_PINS[@]}" ||
    echo "peers: ${SPARK_PINS[*]} not installed: the Spark tests will skip (fail under CI)" >&2
else
  echo "peers: no python3 >= 3.10 with venv ($py) for ${SPARK_PINS[*]}: the Spark tests will skip (fail under CI)" >&2
fi
java17() { java -version 2>&1 | awk -F'"' '/version/ {split($2, v, "."); ok = v[1] >= 17} END {exit !ok}'; }
if ! java17 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "peers: apt-get install default-jre-headless (Java for pyspark)" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq default-jre-headless >/dev/null || true
fi
java17 || echo "peers: no Java 17 or newer (java on PATH) for pyspark 4: the Spark tests will skip (fail under CI)" >&2
