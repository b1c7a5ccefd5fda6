#!/usr/bin/env bash
# Throughput and peak RSS of wallfold on a large input.
#
#   scripts/bench.sh [TRACE.txt [PERF.data]]
#
# TRACE defaults to /work/big/gobuild.txt if present, else the shipped
# traces concatenated to ~200 MB in /tmp. Reports MB/s (best of 3) and
# peak RSS (/usr/bin/time -v) for folded and pprof output, and for a
# ~1 GB input (TRACE repeated) the peak RSS. With PERF.data, times
# `perf script ... > /dev/null` against `perf script ... | wallfold > /dev/null`.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
RUNS=${RUNS:-3}
tmp=${TMPDIR:-/tmp}/wallfold-bench
mkdir -p "$tmp"
bin=$tmp/wallfold
$GO build -o "$bin" .

in=${1:-}
if [ -z "$in" ]; then
	if [ -f /work/big/gobuild.txt ]; then
		in=/work/big/gobuild.txt
	else
		in=$tmp/gen200.txt
		if [ ! -f "$in" ]; then
			: >"$in"
			while [ "$(stat -c %s "$in")" -lt 200000000 ]; do
				cat testdata/traces/*.txt >>"$in"
			done
		fi
	fi
fi
data=${2:-}
[ -f /usr/bin/time ] || { echo "bench.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }

size=$(stat -c %s "$in")
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $($GO version | cut -d' ' -f3)"
echo "input: $in ($((size / 1000000)) MB)"
cat "$in" >/dev/null # page cache

# measure LABEL CMD...: best wall time of $RUNS, its MB/s, and peak RSS.
measure() {
	local label=$1 best='' rss=0 t r
	shift
	for _ in $(seq "$RUNS"); do
		/usr/bin/time -v -o "$tmp/time.txt" "$@" >/dev/null 2>"$tmp/stderr.txt"
		t=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$tmp/time.txt")
		r=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/time.txt")
		if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
		[ "$r" -gt "$rss" ] && rss=$r
	done
	awk -v l="$label" -v t="$best" -v s="$size" -v r="$rss" \
		'BEGIN{printf "%-28s %7.3f s  %8.1f MB/s  peak RSS %6.1f MB\n", l, t, s/1e6/t, r/1024}'
}

measure "folded" "$bin" -q "$in"
measure "pprof" "$bin" -q -f pprof -o "$tmp/out.pb.gz" "$in"
echo "pprof output: $(stat -c %s "$tmp/out.pb.gz") bytes gzipped, $(gzip -dc "$tmp/out.pb.gz" | wc -c) bytes of protobuf"
measure "folded (sequential reader)" env WALLFOLD_SEQUENTIAL=1 "$bin" -q "$in"
if command -v stackcollapse-perf.pl >/dev/null 2>&1; then
	measure "stackcollapse-perf.pl" stackcollapse-perf.pl "$in"
else
	echo "stackcollapse-perf.pl: not found on this machine (not measured)"
fi

# ~1 GB: the trace repeated (timestamps go backwards at each seam: fine).
n=$(( (1000000000 + size - 1) / size ))
big=$tmp/big1g.txt
if [ ! -f "$big" ] || [ "$(stat -c %s "$big")" -ne $((n * size)) ]; then
	: >"$big"
	for _ in $(seq "$n"); do cat "$in" >>"$big"; done
fi
size=$(stat -c %s "$big")
echo "input: $big ($((size / 1000000)) MB, $n copies)"
RUNS=1 measure "folded 1 GB" "$bin" -q "$big"
RUNS=1 measure "pprof 1 GB" "$bin" -q -f pprof -o "$tmp/out.pb.gz" "$big"
rm -f "$big"

if [ -n "$data" ]; then
	echo "perf script on $data:"
	ps="perf script --show-switch-events --show-task-events -i $data"
	for _ in $(seq "$RUNS"); do
		/usr/bin/time -f "perf script > /dev/null              %e s" bash -c "$ps > /dev/null 2>&1"
		/usr/bin/time -f "perf script | wallfold > /dev/null   %e s" bash -c "$ps 2>/dev/null | $bin -q > /dev/null"
	done
fi
