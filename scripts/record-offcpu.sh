#!/bin/bash
# Re-records the off-CPU traces in testdata/offcpu/ from the sources in
# testdata/offcpu/src/ (phases.c, spin.c, proj/). Builds into a temp dir.
#   scripts/record-offcpu.sh [-o OUTDIR] [sleep|busy|make]...
# Default: all three workloads, written to testdata/offcpu/ as NAME*.txt.gz.
# Needs root (or perf_event_paranoid <= -1 for `make`, which records -a),
# perf, gcc, make. Timings assume an otherwise idle 2-CPU machine.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
src=$root/testdata/offcpu/src
out=$root/testdata/offcpu
if [ "${1:-}" = -o ]; then out=$(cd "$2" && pwd); shift 2; fi
which=("$@")
[ ${#which[@]} -eq 0 ] && which=(sleep busy make)

tmp=$(mktemp -d /tmp/record-offcpu.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
gcc -O1 -g -fno-omit-frame-pointer -pthread -o phases "$src/phases.c"
gcc -O1 -g -fno-omit-frame-pointer -o spin "$src/spin.c"

# conv DATA OUTNAME [perf script options]: perf script | gzip -9
conv() {
	local data=$1 name=$2; shift 2
	perf script -i "$data" "$@" | gzip -9 -n > "$out/$name.txt.gz"
	echo "$out/$name.txt.gz: $(stat -c %s "$out/$name.txt.gz") bytes" >&2
}
rec=(-e cpu-clock -F 999 -g --switch-events)

# nolost DATA: fail when a ring buffer overflowed (records would be missing)
nolost() {
	local n
	n=$(perf script -i "$1" --show-lost-events 2>/dev/null | grep -c 'PERF_RECORD_LOST' || true)
	if [ "$n" -ne 0 ]; then echo "$1: $n PERF_RECORD_LOST records, record again" >&2; exit 1; fi
}

for w in "${which[@]}"; do
	case $w in
	sleep)
		# serial 0.3 s, 2 threads x 0.3 s, nanosleep 0.5 s, serial 0.3 s
		perf record -q -o sleep.data "${rec[@]}" -- ./phases 0.3 0.3 2 0.5
		nolost sleep.data
		conv sleep.data sleep --show-switch-events --show-task-events
		conv sleep.data sleep.notask --show-switch-events
		perf record -q -o sleep.sched.data -e cpu-clock -e sched:sched_switch \
			-F 999 -g --switch-events -- ./phases 0.3 0.3 2 0.5
		nolost sleep.sched.data
		conv sleep.sched.data sleep.sched --show-switch-events --show-task-events
		# the nanosleep must show as a sched:sched_switch sample with its stack
		zcat "$out/sleep.sched.txt.gz" | grep -A4 'sched:sched_switch:.*prev_state=S' | grep -q do_nanosleep ||
			{ echo "sleep.sched: no sched_switch sample in do_nanosleep" >&2; exit 1; }
		;;
	busy)
		# two unrecorded CPU hogs share the 2 CPUs with the workload
		./spin hog 4 & h1=$!
		./spin hog 4 & h2=$!
		sleep 0.2
		perf record -q -o busy.data "${rec[@]}" -- ./phases 0.2 1.0 2
		wait $h1 $h2
		nolost busy.data
		conv busy.data busy --show-switch-events --show-task-events
		conv busy.data busy.notask --show-switch-events
		;;
	make)
		# make -j2 of six heavy objects, system-wide, one unrelated hog
		rm -rf proj && cp -r "$src/proj" proj && make -s -C proj clean
		sync
		./spin other 3 & h1=$!
		sleep 0.2
		perf record -q -a -o make.data "${rec[@]}" -- make -s -j2 -C "$tmp/proj" >/dev/null
		wait $h1
		nolost make.data
		conv make.data make --show-switch-events --show-task-events -F +pid
		conv make.data make.nopid --show-switch-events --show-task-events
		;;
	*) echo "unknown workload $w" >&2; exit 2 ;;
	esac
done
