#!/usr/bin/env bash
# Opt-in (make speedscope-check): speedscope, from npm, imports wallfold's
# -f trace output in a headless Chromium (playwright-core drives Debian's
# chromium); prints speedscope's title and first line and writes a
# screenshot of its time-ordered view, then one of the parallelism track
# (SCREENSHOT-parallelism.png: speedscope shows no counters, so the trace
# has the counter as slices too).
#   scripts/speedscope-check.sh [TRACE] [SCREENSHOT.png]
# Needs node, npm (the registry) and /usr/bin/chromium.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
trace=${1:-$root/testdata/traces/phases.txt}
shot=${2:-$(mktemp -d)/speedscope.png}
case $shot in /*) ;; *) shot=$PWD/$shot ;; esac
cache=${XDG_CACHE_HOME:-$HOME/.cache}/wallfold-speedscope
mkdir -p "$cache"
if [ ! -d "$cache/node_modules/speedscope" ] || [ ! -d "$cache/node_modules/playwright-core" ]; then
	(cd "$cache" && npm install --no-audit --no-fund speedscope@1.25.0 playwright-core >/dev/null)
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/wallfold" .)
"$tmp/wallfold" -q -f trace -o "$tmp/trace.json" "$trace"
out=$(cd "$cache" && NODE_PATH="$cache/node_modules" node "$root/scripts/speedscope/shot.js" \
	"$cache/node_modules/speedscope/dist/release/index.html" "$tmp/trace.json" "$shot")
echo "$out"
case $out in
*'"title":"trace.json - speedscope"'*) echo "speedscope-check: imported ($shot)" ;;
*) echo "speedscope-check: speedscope did not import the trace" >&2; exit 1 ;;
esac
case $out in
*'"parallelism":'*'parallelism (threads on CPU)'*) echo "speedscope-check: the parallelism track shows (${shot%.png}-parallelism.png)" ;;
*) echo "speedscope-check: no parallelism track in speedscope" >&2; exit 1 ;;
esac
