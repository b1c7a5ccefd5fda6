#!/bin/bash
# Re-records the known-answer off-CPU traces in testdata/offcpu2/ from the
# sources in testdata/offcpu2/src/ (see its README). Builds into a temp dir.
#   scripts/record-offcpu2.sh [-o OUTDIR] [NAME]...
# NAMEs: selfmeasure.wake selfmeasure.taskwake selfmeasure.nowake crowd
# crowd.idle pool (default: all). Writes NAME.txt.gz (perf script text)
# and NAME.truth.json (what the program printed about itself).
# Needs root, perf, gcc, taskset. Every workload runs pinned to CPU 0
# beside unrecorded CPU hogs pinned there too (four for selfmeasure, so
# that a woken thread waits for the CPU; one for the others). The machine is shared: before each recording it waits
# until the CPUs were >= $IDLE % idle (default 60) for two seconds, and it
# records again (up to $TRIES times, default 5) when perf lost records or
# the gzipped trace is over 300 KB.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
src=$root/testdata/offcpu2/src
out=$root/testdata/offcpu2
if [ "${1:-}" = -o ]; then out=$(cd "$2" && pwd); shift 2; fi
which=("$@")
[ ${#which[@]} -eq 0 ] && which=(selfmeasure.wake selfmeasure.taskwake selfmeasure.nowake crowd crowd.idle pool)

tmp=$(mktemp -d /tmp/record-offcpu2.XXXXXX)
hogs=()
trap '[ ${#hogs[@]} -gt 0 ] && kill "${hogs[@]}" 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp"
for p in selfmeasure crowd pool hog; do
	gcc -O1 -g -fno-omit-frame-pointer -Wall -pthread -o $p "$src/$p.c"
done

# The clock at 999 Hz and a stack at every switch-out: a global -F 999
# would put sched:sched_switch in frequency mode too, and only some
# switch-outs would carry a stack; tracepoints take no freq term, so the
# frequency goes on cpu-clock alone, and name= keeps the event's name
# plain in perf script's text. -k mono: the records' times are
# CLOCK_MONOTONIC, the programs' clock (perf's default clock is not).
rec=(-k mono -g -e cpu-clock/freq=999,name=cpu-clock/ --switch-events -e sched:sched_switch)
wakeups=(-e sched:sched_wakeup,sched:sched_wakeup_new)

# idle_pct: percent of CPU time idle over the next second (/proc/stat)
idle_pct() {
	local a b
	read -r -a a < /proc/stat; sleep 1; read -r -a b < /proc/stat
	local busy=$(( (b[1]+b[2]+b[3]+b[6]+b[7]+b[8]) - (a[1]+a[2]+a[3]+a[6]+a[7]+a[8]) ))
	local idle=$(( (b[4]+b[5]) - (a[4]+a[5]) ))
	echo $(( 100 * idle / (idle + busy + 1) ))
}

wait_idle() {
	local ok=0 i
	for i in $(seq "${WAIT:-600}"); do
		if [ "$(idle_pct)" -ge "${IDLE:-60}" ]; then ok=$((ok + 1)); else ok=0; fi
		[ $ok -ge 2 ] && return 0
	done
	echo "machine not idle for ${WAIT:-600} s" >&2; exit 1
}

nolost() {
	local n
	n=$(perf script -i "$1" --show-lost-events 2>/dev/null | grep -c 'PERF_RECORD_LOST' || true)
	[ "$n" -eq 0 ] || { echo "$1: $n PERF_RECORD_LOST records" >&2; return 1; }
}

# record NAME HOGS [perf record options] -- CMD...: CMD runs pinned to
# CPU 0 beside HOGS hogs; keeps the first try without lost records that
# fits.
record() {
	local name=$1 nhogs=$2; shift 2
	local opts=()
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	local try size
	for try in $(seq "${TRIES:-5}"); do
		wait_idle
		for _ in $(seq "$nhogs"); do taskset -c 0 ./hog 60 & hogs+=($!); done
		sleep 0.3
		perf record -q -o "$name.data" "${opts[@]}" -- taskset -c 0 "$@" > "$name.truth.json"
		if [ ${#hogs[@]} -gt 0 ]; then kill "${hogs[@]}"; wait "${hogs[@]}" 2>/dev/null || true; hogs=(); fi
		nolost "$name.data" || continue
		perf script -i "$name.data" --show-switch-events --show-task-events | gzip -9 -n > "$name.txt.gz"
		size=$(stat -c %s "$name.txt.gz")
		if [ "$size" -gt 300000 ]; then echo "$name.txt.gz: $size bytes, record again" >&2; continue; fi
		cp "$name.txt.gz" "$name.truth.json" "$out/"
		echo "$out/$name.txt.gz: $size bytes (try $try)" >&2
		return 0
	done
	echo "$name: no good recording in ${TRIES:-5} tries" >&2; exit 1
}

for w in "${which[@]}"; do
	case $w in
	# the thread sleeps in a pipe that a recorded child process writes:
	# its wakeups are records of a recorded task
	selfmeasure.wake) record "$w" 4 "${rec[@]}" "${wakeups[@]}" -- ./selfmeasure 40 5 10 waker ;;
	# nanosleep, with the wakeup events: the timer interrupt wakes the
	# thread while an unrecorded hog has the CPU, so the trace holds only
	# the wakeups the thread does, none done to it
	selfmeasure.taskwake) record "$w" 4 "${rec[@]}" "${wakeups[@]}" -- ./selfmeasure ;;
	selfmeasure.nowake) record "$w" 4 "${rec[@]}" -- ./selfmeasure ;;
	crowd) record "$w" 1 "${rec[@]}" -- ./crowd 2 300 0 ;;
	crowd.idle) record "$w" 1 "${rec[@]}" -- ./crowd 2 300 3 ;;
	pool) record "$w" 1 "${rec[@]}" -- ./pool 4 300 ;;
	*) echo "unknown trace $w" >&2; exit 2 ;;
	esac
done
