#!/usr/bin/env bash
# Browser check of the Jupyter kernel: starts Debian's Jupyter Notebook server
# on 127.0.0.1 with a token and the sgp kernel (built from this tree) in a
# temporary JUPYTER_PATH, then drives headless Debian Chromium with
# playwright-core (scripts/browser-check.js) to open a notebook (default: the
# quickstart) with its outputs cleared, run all cells from the menu, and
# check that the plot image appears and that no cell shows an error.
#
#   scripts/browser-check.sh [NOTEBOOK]
#
# Exit status: 0 when the check passes, and also when its environment cannot
# be set up (no chromium, no Debian python3-notebook, no node/npm, npm install
# or the browser launch failing): it then prints one "SKIP: …" line. Non-zero
# only when the check itself fails.
#
# Needs (Debian): chromium, python3-notebook; node and npm (playwright-core
# is installed with npm into a cache folder, $SGP_BROWSER_CHECK_CACHE,
# default ~/.cache/sgp-browser-check; no browser is downloaded).
# The screenshots go to $SGP_BROWSER_CHECK_OUT (default /tmp/sgp-browser-check).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD

skip() { echo "SKIP: browser check: $*"; exit 0; }
fail() { echo "FAIL: browser check: $*" >&2; exit 1; }

notebook=${1:-notebooks/01-quickstart.ipynb}
[ -f "$notebook" ] || fail "no notebook $notebook"
chromium=${CHROMIUM:-/usr/bin/chromium}
playwright_version=1.65.1
out=${SGP_BROWSER_CHECK_OUT:-/tmp/sgp-browser-check}
cache=${SGP_BROWSER_CHECK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sgp-browser-check}

[ -x "$chromium" ] || skip "$chromium not found (apt-get install chromium)"
/usr/bin/python3 -c 'import notebook' 2>/dev/null || skip "Debian's Jupyter Notebook is not installed (apt-get install python3-notebook)"
command -v node >/dev/null && command -v npm >/dev/null || skip "node and npm are needed for playwright-core"
command -v go >/dev/null || skip "the Go toolchain is needed to build the kernel"

# playwright-core, without a browser download (the check uses Debian's chromium).
if [ "$(node -p "try { require('$cache/node_modules/playwright-core/package.json').version } catch (e) { '' }" 2>/dev/null)" != "$playwright_version" ]; then
  mkdir -p "$cache" || skip "cannot create $cache"
  echo "browser check: installing playwright-core@$playwright_version into $cache"
  if ! PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 timeout 300 npm install --prefix "$cache" --no-save --no-audit --no-fund \
      --loglevel=error "playwright-core@$playwright_version" >"$cache/npm.log" 2>&1; then
    tail -5 "$cache/npm.log" >&2
    skip "npm install playwright-core@$playwright_version failed (see $cache/npm.log)"
  fi
fi

work=$(mktemp -d)
server_pid=
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$server_pid" 2>/dev/null
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# The kernel, built from this tree and installed in a temporary JUPYTER_PATH.
go build -o "$work/sgprepl" ./cmd/sgprepl || fail "go build ./cmd/sgprepl failed"
"$work/sgprepl" install-kernel --prefix "$work/prefix" >/dev/null || fail "sgprepl install-kernel failed"
export JUPYTER_PATH="$work/prefix/share/jupyter"
export JUPYTER_RUNTIME_DIR="$work/runtime" JUPYTER_CONFIG_DIR="$work/config" JUPYTER_DATA_DIR="$work/data"

# A copy of the notebook with its outputs cleared, so that the image the
# check finds is one the run made.
mkdir -p "$work/nb"
name=$(basename "$notebook")
node -e '
  const fs = require("fs");
  const nb = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
  for (const c of nb.cells) if (c.cell_type === "code") { c.outputs = []; c.execution_count = null; }
  fs.writeFileSync(process.argv[2], JSON.stringify(nb, null, 1));
' "$notebook" "$work/nb/$name" || fail "cannot copy $notebook"

port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
token=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
as_root=
[ "$(id -u)" = 0 ] && as_root=--allow-root # CI machines run as root
/usr/bin/python3 -m notebook --no-browser --ip=127.0.0.1 --port="$port" --port-retries=0 $as_root \
  --NotebookApp.token="$token" --NotebookApp.password='' --notebook-dir="$work/nb" \
  >"$work/server.log" 2>&1 &
server_pid=$!
up=
for _ in $(seq 150); do
  if node -e '
      fetch(process.argv[1]).then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1));
    ' "http://127.0.0.1:$port/api/kernelspecs?token=$token" 2>/dev/null; then
    up=1; break
  fi
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.2
done
if [ -z "$up" ]; then
  tail -20 "$work/server.log" >&2
  skip "the Jupyter Notebook server did not start on 127.0.0.1:$port"
fi

mkdir -p "$out" && rm -f "$out"/*.png
status=0
PLAYWRIGHT_CORE="$cache/node_modules/playwright-core" CHROMIUM="$chromium" \
  node "$root/scripts/browser-check.js" "http://127.0.0.1:$port" "$token" "$name" "$out" || status=$?
case $status in
0) echo "browser check: passed; screenshots in $out" ;;
3) tail -20 "$work/server.log" >&2; skip "headless chromium could not be started by playwright-core" ;;
*) echo "--- notebook server log (last lines)" >&2; tail -30 "$work/server.log" >&2
   fail "the notebook did not run cleanly in the browser (screenshots in $out)" ;;
esac
