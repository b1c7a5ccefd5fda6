#!/bin/bash
# Records testdata/diff/: the program testdata/diff/src/steps.c before
# (fetch, then transform) and after (fetch on a thread, beside transform)
# the change, with
# the off-CPU recipe of the README, and keeps beside each trace the step
# times the program measured in that very run.
#   scripts/record-diff.sh [-o OUTDIR]
# Writes OUTDIR/before.txt.gz, before.steps, after.txt.gz, after.steps.
# Needs perf, gcc and permission to record sched tracepoints (root, or
# perf_event_paranoid <= 1 and a readable tracefs).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/testdata/diff
if [ "${1:-}" = -o ]; then out=$(cd "$2" && pwd); fi

tmp=$(mktemp -d /tmp/record-diff.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
gcc -O0 -g -fno-omit-frame-pointer -pthread -o steps "$root/testdata/diff/src/steps.c"

for v in before:serial after:overlap; do
	name=${v%:*} mode=${v#*:}
	perf record -q -o "$name.data" -e cpu-clock/freq=999/ -e sched:sched_switch -c 1 -g \
		--switch-events -e sched:sched_wakeup -e sched:sched_wakeup_new -- ./steps "$mode" > "$out/$name.steps"
	n=$(perf script -i "$name.data" --show-lost-events 2>/dev/null | grep -c 'PERF_RECORD_LOST' || true)
	if [ "$n" -ne 0 ]; then echo "$name: $n PERF_RECORD_LOST records, record again" >&2; exit 1; fi
	perf script -i "$name.data" --show-switch-events --show-task-events | gzip -9 -n > "$out/$name.txt.gz"
	echo "$out/$name.txt.gz: $(stat -c %s "$out/$name.txt.gz") bytes; $(tr '\n' ' ' < "$out/$name.steps")" >&2
done
