#!/bin/bash
# Time from the command's end to wallfold record's exit, two builds
# interleaved (ABBA): scripts/record-tail.sh OLD_WALLFOLD NEW_WALLFOLD [RUNS]
# The command is perf bench sched pipe -l 200000 (a ~20 MB perf.data);
# it writes the time as its last act (BENCH_PERF: the perf that runs the
# bench, default perf). Prints "old|new SECONDS" a run.
set -eu
old=$(realpath "$1") new=$(realpath "$2") runs=${3:-5}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
for i in $(seq 1 "$runs"); do
	if [ $((i % 2)) = 1 ]; then order="old new"; else order="new old"; fi
	for b in $order; do
		bin=$old; [ "$b" = new ] && bin=$new
		"$bin" record -q -o w.svg -- sh -c '"$0" bench sched pipe -l 200000 >/dev/null; date +%s.%N > end' "${BENCH_PERF:-perf}" || true
		t=$(date +%s.%N)
		echo "$b $(echo "$t - $(cat end)" | bc)"
	done
done
