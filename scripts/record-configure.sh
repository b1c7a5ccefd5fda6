#!/bin/bash
# Re-records testdata/offcpu/configure*.txt.gz: a fork-heavy build, a real
# autoconf configure script and make -j2 of a small C program (Debian's
# pv 1.6.20 source), on a busy machine (CPU hogs beside it).
#   scripts/record-configure.sh [-o OUTDIR] SRCDIR
# SRCDIR: the unpacked source, e.g. after adding a deb-src line for the
# Debian mirror: `apt-get update && apt-get source pv` (pv-1.6.20/).
#   configure.txt.gz      per-task (perf record -- CMD), one hog beside it
#   configure.sys.txt.gz  system-wide (perf record -a), three hogs, cut to
#                         the build's process tree by scripts/treetrim
# Needs root (system-wide recording), perf, gcc, make, go.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/testdata/offcpu
if [ "${1:-}" = -o ]; then out=$(cd "$2" && pwd); shift 2; fi
src=$(cd "${1:?usage: record-configure.sh [-o OUTDIR] SRCDIR}" && pwd)

tmp=$(mktemp -d /tmp/record-configure.XXXXXX)
hogs=()
trap 'kill "${hogs[@]}" 2>/dev/null || true; rm -rf "$tmp"' EXIT
build='./configure >/dev/null && make -j2 >/dev/null'
rec=(-m 4096 -e cpu-clock -F 999 -g --switch-events)
script=(--show-switch-events --show-task-events --show-lost-events)

# hog N: N processes that spin until killed
hog() {
	local i
	for ((i = 0; i < $1; i++)); do
		sh -c 'while :; do :; done' &
		hogs+=($!)
	done
	sleep 0.2
}
unhog() { kill "${hogs[@]}"; wait "${hogs[@]}" 2>/dev/null || true; hogs=(); }

# nolost DATA: fail when a ring buffer overflowed (records would be missing)
nolost() {
	if perf script -i "$1" --show-lost-events 2>/dev/null | grep -q 'PERF_RECORD_LOST'; then
		echo "$1: PERF_RECORD_LOST records, record again" >&2
		exit 1
	fi
}

# fresh: a clean copy of the source (cp -a keeps the times make compares)
fresh() { rm -rf "$tmp/build" && cp -a "$src" "$tmp/build"; }

fresh
hog 1
(cd "$tmp/build" && perf record -q -o "$tmp/task.data" "${rec[@]}" -- sh -c "$build")
unhog
nolost "$tmp/task.data"
perf script -i "$tmp/task.data" "${script[@]}" 2>/dev/null | gzip -9 -n > "$out/configure.txt.gz"
echo "$out/configure.txt.gz: $(stat -c %s "$out/configure.txt.gz") bytes" >&2

fresh
hog 3
(cd "$tmp/build" && perf record -q -a -o "$tmp/sys.data" "${rec[@]}" -- sh -c "$build")
unhog
nolost "$tmp/sys.data"
perf script -i "$tmp/sys.data" "${script[@]}" -F +pid 2>/dev/null > "$tmp/sys.txt"
# the build's root: the shell perf started (its exec is the first of a sh)
pid=$(grep -m1 -o 'PERF_RECORD_COMM exec: sh:[0-9]*' "$tmp/sys.txt" | sed 's/.*://')
(cd "$root" && go run ./scripts/treetrim -root="$pid") < "$tmp/sys.txt" | gzip -9 -n > "$out/configure.sys.txt.gz"
echo "$out/configure.sys.txt.gz: $(stat -c %s "$out/configure.sys.txt.gz") bytes, the build's root pid $pid" >&2
