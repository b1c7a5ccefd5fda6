#!/bin/bash
# Re-records the spin-wait traces in testdata/spin/ from the sources in
# testdata/spin/src/. Builds into a temp dir.
#   scripts/record-spin.sh [-o OUTDIR] [NAME]...
# NAMEs: numpy2 numpy2_timeout4 numpy1 yield omp_active omp_default
# (default: all). Writes NAME.txt.gz (perf script text) and NAME.truth.json
# (what the program printed: its own clock's phase totals).
# Needs root, perf, gcc with OpenMP, /usr/bin/python3 with python3-numpy and
# libopenblas0-pthread. The machine is shared: before each recording it
# waits for >= 90 % idle CPUs, and it records again (up to $TRIES times,
# default 5) when the program's CPU time in its serial phase is below 99 %
# of that phase's wall time (something else took the CPU) or a ring buffer
# overflowed.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
src=$root/testdata/spin/src
out=$root/testdata/spin
if [ "${1:-}" = -o ]; then out=$(cd "$2" && pwd); shift 2; fi
which=("$@")
[ ${#which[@]} -eq 0 ] && which=(numpy2 numpy2_timeout4 numpy1 yield omp_active omp_default)

tmp=$(mktemp -d /tmp/record-spin.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
gcc -O1 -g -fno-omit-frame-pointer -pthread -o yield_phases "$src/yield_phases.c"
gcc -O1 -g -fno-omit-frame-pointer -fopenmp -o omp_phases "$src/omp_phases.c"

# idle_pct: percent of CPU time idle over the next second (/proc/stat)
idle_pct() {
	local a b
	read -r -a a < /proc/stat; sleep 1; read -r -a b < /proc/stat
	local busy=$(( (b[1]+b[2]+b[3]+b[6]+b[7]+b[8]) - (a[1]+a[2]+a[3]+a[6]+a[7]+a[8]) ))
	local idle=$(( (b[4]+b[5]) - (a[4]+a[5]) ))
	echo $(( 100 * idle / (idle + busy + 1) ))
}

# wait_idle: until two seconds in a row were >= 90 % idle (at most $WAIT
# seconds, default 600)
wait_idle() {
	local ok=0 i
	for i in $(seq "${WAIT:-600}"); do
		if [ "$(idle_pct)" -ge 90 ]; then ok=$((ok + 1)); else ok=0; fi
		[ $ok -ge 2 ] && return 0
	done
	echo "machine not idle for ${WAIT:-600} s" >&2; exit 1
}

# uncontended TRUTH: the serial phase had its CPU (cpu >= 97 % of wall)
uncontended() {
	python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))
wall = t.get("serial_s", t.get("python_s"))
cpu = t.get("serial_cpu_s", t.get("python_cpu_s"))
print("serial phase cpu/wall %.3f" % (cpu / wall), file=sys.stderr)
sys.exit(0 if cpu >= 0.99 * wall else 1)' "$1"
}

# nolost DATA: true when no ring buffer overflowed
nolost() {
	local n
	n=$(perf script -i "$1" --show-lost-events 2>/dev/null | grep -c 'PERF_RECORD_LOST' || true)
	[ "$n" -eq 0 ] || { echo "$1: $n PERF_RECORD_LOST records" >&2; return 1; }
}

# record NAME ENV... -- CMD...: record until uncontended, write the outputs
record() {
	local name=$1; shift
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	local try
	for try in $(seq "${TRIES:-5}"); do
		wait_idle
		env "${envs[@]}" perf record -q -k mono -e cpu-clock -F 999 -g --switch-events \
			-o "$name.data" -- "$@" > "$name.truth.json"
		if nolost "$name.data" && uncontended "$name.truth.json"; then
			perf script -i "$name.data" --show-switch-events --show-task-events |
				gzip -9 -n > "$out/$name.txt.gz"
			cp "$name.truth.json" "$out/$name.truth.json"
			echo "$out/$name.txt.gz: $(stat -c %s "$out/$name.txt.gz") bytes (try $try)" >&2
			return 0
		fi
		echo "$name: contended or lost records, recording again" >&2
	done
	echo "$name: no clean recording in ${TRIES:-5} tries" >&2; exit 1
}

py=(/usr/bin/python3 "$src/numpy_phases.py" 6 0.2)
for w in "${which[@]}"; do
	case $w in
	numpy2) record numpy2 OPENBLAS_NUM_THREADS=2 -- "${py[@]}" ;;
	numpy2_timeout4) record numpy2_timeout4 OPENBLAS_NUM_THREADS=2 OPENBLAS_THREAD_TIMEOUT=4 -- "${py[@]}" ;;
	numpy1) record numpy1 OPENBLAS_NUM_THREADS=1 -- "${py[@]}" ;;
	yield) record yield -- ./yield_phases 6 0.25 0.15 ;;
	omp_active) record omp_active OMP_NUM_THREADS=2 OMP_WAIT_POLICY=active -- ./omp_phases 6 0.25 0.15 ;;
	omp_default) record omp_default OMP_NUM_THREADS=2 -- ./omp_phases 6 0.25 0.15 ;;
	*) echo "unknown workload $w" >&2; exit 2 ;;
	esac
done
