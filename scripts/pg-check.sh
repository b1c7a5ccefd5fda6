#!/usr/bin/env bash
# Opt-in check (make pg-check, not make test): a real server's whole wait
# told by wallfold --off-cpu. Starts Debian's PostgreSQL in a temp dir on
# a unix socket, loads pgbench tables, records the server's processes
# while pgbench runs, and checks two things (PASS/FAIL lines, exit 1 on
# any failure):
#
# 1. time per transaction. Each backend serves one pgbench client for its
#    whole session, so the sum of the backends' spans (on CPU + runnable +
#    blocked, fork to exit) is about CLIENTS x SECS, and divided by the
#    transactions pgbench counted it is the mean time a client waits for
#    a transaction, as seen by the server. pgbench -P makes pgbench
#    measure each transaction's latency itself, so its "latency average"
#    is the client's own clock. The backends' merged --off-cpu profile
#    (the sum of all their stacks' weights) / transactions must be within
#    10 % of it. The profile is then split into parts by the frames that
#    name them (scripts/pg-split.awk): client round trip, CPU, WAL flush,
#    row and xact locks, LWLocks, run queue, other.
# 2. cost. pgbench tps without recording, with a plain recording (cpu-clock
#    and switch events) and with the off-CPU recording, interleaved ROUNDS
#    times; the median with the off-CPU recording must be within 15 % of
#    the median with the plain one (what --off-cpu adds to a recording).
#    Beside it, the ratio to no recording, and the backends' CPU per
#    transaction, which other work on a shared machine moves less than tps.
#
#   scripts/pg-check.sh     # KEEP=1 keeps the temp dir (perf.data, profiles, logs)
#
# Knobs (environment): SCALE=10 CLIENTS=4 SECS=15 (the profiled run),
# TPS_SECS=10 ROUNDS=5 (the cost runs; ROUNDS=0 skips them), COST_PARTS=1
# (the cost of the switch stacks alone and of the wakeups without stacks too), FREQ=999,
# PER_TASK=1 (perf record -p POSTMASTER instead of -a),
# PG_BIN (default: the newest /usr/lib/postgresql/*/bin).
#
# Needs perf with perf_event_paranoid allowing -a (or -p of the server
# with PER_TASK=1), and Debian's postgresql and postgresql-client
# (apt-get install postgresql postgresql-contrib). As root the server runs
# as the postgres user.
#
# The recording: wallfold record --off-cpu's events (it cannot attach to
# a running server): sched:sched_switch and the wakeups with a period of 1
# (-c 1), so that every switch-out and wakeup has its stack (-F would put
# them in frequency mode and most would have none); the clock keeps its
# frequency through its own term. A wakeup makes a blocked backend
# runnable until its switch-in. System-wide (-a, 16 MiB per CPU, the perf
# script fields wallfold record -a uses: -F +pid alone drops tracepoint
# stacks in perf 6.1), because per task perf sees only the wakeups that
# happen while a recorded thread runs, and pgbench, which wakes the
# backends, is not recorded; and per task the sampling clock costs the
# backends more CPU (README). PER_TASK=1: perf record -p POSTMASTER, which
# follows the backends pgbench's connections fork, and no other process.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
SCALE=${SCALE:-10} CLIENTS=${CLIENTS:-4} SECS=${SECS:-15}
TPS_SECS=${TPS_SECS:-10} ROUNDS=${ROUNDS:-5} FREQ=${FREQ:-999}
PG_BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}

for t in "$PG_BIN/initdb" "$PG_BIN/pg_ctl" "$PG_BIN/pgbench"; do
	[ -x "$t" ] || { echo "pg-check: no $t: apt-get install postgresql postgresql-contrib (or set PG_BIN)" >&2; exit 2; }
done
command -v perf >/dev/null || { echo "pg-check: no perf (apt-get install linux-perf)" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/wallfold-pg.XXXXXX")
data=$tmp/data
child=
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
cleanup() {
	if [ -n "$child" ]; then kill "$child" 2>/dev/null && wait "$child" 2>/dev/null || true; fi
	if [ -f "$data/postmaster.pid" ]; then
		as_pg "$PG_BIN/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
	fi
	if [ -n "${KEEP:-}" ]; then echo "pg-check: kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# waited CMD...: CMD in the background, waited for, so that a signal to this
# script ends it at once (bash runs a trap only after a foreground child)
waited() {
	local rc=0
	"$@" &
	child=$!
	wait "$child" || rc=$?
	child=
	return $rc
}

fails=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

$GO build -o "$tmp/wallfold" .
wf=$tmp/wallfold
[ "$(id -u)" = 0 ] && chown postgres "$tmp"

# the server: default settings (fsync on), no TCP, its socket in $tmp
as_pg "$PG_BIN/initdb" -D "$data" -A trust -U postgres --no-sync >"$tmp/initdb.log"
as_pg "$PG_BIN/pg_ctl" -D "$data" -l "$tmp/server.log" -w \
	-o "-k $tmp -c listen_addresses=" start >/dev/null
pm=$(head -1 "$data/postmaster.pid")
target=(-a -m 16M)
script_fields=(-F +pid,+ip,+sym,+symoff,+dso)
if [ -n "${PER_TASK:-}" ]; then
	target=(-p "$pm")
	script_fields=()
fi
echo "server: $("$PG_BIN/postgres" --version), postmaster pid $pm, socket in $tmp"
pgbench=("$PG_BIN/pgbench" -h "$tmp" -U postgres)
"${pgbench[@]}" -i -q -s "$SCALE" postgres >"$tmp/init.log" 2>&1 || { cat "$tmp/init.log"; exit 1; }

plain=(-e cpu-clock -F "$FREQ" -g --switch-events)
# wallfold record --off-cpu's events: every switch-out and wakeup (-c 1)
offcpu=(-e "cpu-clock/freq=$FREQ/" -e sched:sched_switch -e sched:sched_wakeup -e sched:sched_wakeup_new -c 1 -g --switch-events)
# its parts (COST_PARTS=1): the switch stacks alone; the wakeups without their stacks
switchonly=(-e "cpu-clock/freq=$FREQ/" -e sched:sched_switch -c 1 -g --switch-events)
wakenostack=(-e "cpu-clock/freq=$FREQ/" -e sched:sched_switch -e sched:sched_wakeup/call-graph=no/ -e sched:sched_wakeup_new/call-graph=no/ -c 1 -g --switch-events)

# field FILE PATTERN: the number after PATTERN in pgbench's output
field() { sed -n "s/^$2 *= *\([0-9.]*\).*/\1/p" "$1" | tail -1; }

# 1. the profiled run: -n, as pgbench -i vacuumed (no extra vacuum session)
run="pgbench -n -P $SECS -c $CLIENTS -T $SECS"
echo "recording: perf record ${offcpu[*]} ${target[*]} -- $run"
waited perf record -q -o "$tmp/perf.data" "${offcpu[@]}" "${target[@]}" -- \
	"${pgbench[@]}" -n -P "$SECS" -c "$CLIENTS" -T "$SECS" postgres >"$tmp/pgbench.out" 2>&1
grep -E '^(number of transactions|latency|tps)' "$tmp/pgbench.out" | sed 's/^/  pgbench: /'
tx=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$tmp/pgbench.out")
lat=$(field "$tmp/pgbench.out" 'latency average')
grep -q '^latency stddev' "$tmp/pgbench.out" ||
	echo "pg-check: pgbench printed no latency stddev: its average is duration x clients / transactions, not measured" >&2

# one perf script (the slow part) into three wallfolds: the summary for
# the spans, the summary of all postgres processes as one (--merge=comm),
# the folded profile with each process's pid as its root
mkfifo "$tmp/script.fifo" "$tmp/merge.fifo"
"$wf" --off-cpu --scope=process --top=1000 -f summary -q <"$tmp/script.fifo" >"$tmp/summary.txt" &
summary_pid=$!
"$wf" --off-cpu --scope=process --merge=comm -f summary -q <"$tmp/merge.fifo" >"$tmp/merged-summary.txt" &
merge_pid=$!
perf script -i "$tmp/perf.data" --show-switch-events --show-task-events --show-lost-events "${script_fields[@]}" 2>"$tmp/script.err" |
	tee "$tmp/script.fifo" "$tmp/merge.fifo" |
	"$wf" --off-cpu --scope=process --pid -o "$tmp/profile.folded" 2>"$tmp/wallfold.err"
wait "$summary_pid"
wait "$merge_pid" || echo "pg-check: wallfold --merge=comm failed" >&2
sed 's/^/  wallfold: /' "$tmp/wallfold.err"
echo
awk -v tx="$tx" -v lat="$lat" -v clients="$CLIENTS" -v secs="$SECS" -v merged="$tmp/backends.folded" \
	-f scripts/pg-split.awk "$tmp/summary.txt" "$tmp/profile.folded" "$tmp/profile.folded" | tee "$tmp/split.txt"
read -r per ref < <(sed -n 's/^result //p' "$tmp/split.txt")
# wallfold's own merge, every postgres process recorded (the postmaster
# too): a cross-check of the sum, not the check
msum=$(sed -n 's/^postgres: \([0-9]*\) processes merged.*/\1/p' "$tmp/merged-summary.txt")
mspan=$(sed -n 's/^  span (sum of [0-9]*): \([0-9.]*\) s.*/\1/p' "$tmp/merged-summary.txt" | head -1)
if [ -n "$mspan" ]; then
	echo "wallfold --merge=comm (every postgres process recorded, the idle postmaster too): $msum processes, span $mspan s; / transactions = $(awk -v s="$mspan" -v t="$tx" 'BEGIN { printf "%.4f", 1000 * s / t }') ms"
fi
echo
if awk -v a="$per" -v b="$ref" 'BEGIN { d = a / b - 1; exit !(d <= 0.10 && d >= -0.10) }'; then
	pass "backends' profile per transaction $per ms, pgbench latency average $ref ms (within 10 %)"
else
	fail "backends' profile per transaction $per ms, pgbench latency average $ref ms (not within 10 %)"
fi

# 2. the cost: interleaved runs, the order turning each round
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
# reaped_cpu: CPU ticks of the postmaster's children it has reaped (the
# exited backends: cutime + cstime of /proc/PID/stat)
reaped_cpu() { sed 's/.*) //' "/proc/$pm/stat" | awk '{ print $14 + $15 }'; }
hz=$(getconf CLK_TCK)
# tps_run MODE: one pgbench run, its output in $tmp/tps.out, and the
# backends' CPU per transaction in ms in $cpu_tx (after they are reaped)
tps_run() {
	local out=$tmp/tps.out n0 c0 tx i
	n0=$(pgrep -c -P "$pm" || true)
	c0=$(reaped_cpu)
	local -n events=$1
	if [ "$1" = none ]; then
		waited "${pgbench[@]}" -n -c "$CLIENTS" -T "$TPS_SECS" postgres >"$out" 2>&1
	else
		waited perf record -q -o "$tmp/tps.data" "${events[@]}" "${target[@]}" -- \
			"${pgbench[@]}" -n -c "$CLIENTS" -T "$TPS_SECS" postgres >"$out" 2>&1
	fi
	for i in $(seq 50); do
		[ "$(pgrep -c -P "$pm" || true)" -gt "$n0" ] || break
		sleep 0.1
	done
	tx=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$out")
	cpu_tx=$(awk -v c="$(($(reaped_cpu) - c0))" -v hz="$hz" -v t="$tx" 'BEGIN { printf "%.3f", 1000 * c / hz / t }')
}
if [ "$ROUNDS" -gt 0 ]; then
	modes=(none plain offcpu)
	# COST_PARTS=1: also the off-CPU events in parts (what each costs)
	[ -n "${COST_PARTS:-}" ] && modes+=(switchonly wakenostack)
	declare -A tps=() cpu=()
	echo "cost: $ROUNDS rounds of pgbench -n -c $CLIENTS -T $TPS_SECS, tps (the backends' CPU per transaction, ms):"
	for r in $(seq 0 $((ROUNDS - 1))); do
		line="  round $((r + 1)):"
		for i in "${!modes[@]}"; do
			m=${modes[$(((i + r) % ${#modes[@]}))]}
			tps_run "$m"
			v=$(field "$tmp/tps.out" tps)
			tps[$m]="${tps[$m]:-} $v"
			cpu[$m]="${cpu[$m]:-} $cpu_tx"
			line="$line $m $v ($cpu_tx)"
		done
		echo "$line"
	done
	declare -A med=() cmed=()
	for m in "${modes[@]}"; do
		med[$m]=$(tr ' ' '\n' <<<"${tps[$m]}" | grep . | median)
		cmed[$m]=$(tr ' ' '\n' <<<"${cpu[$m]}" | grep . | median)
	done
	echo "  medians:$(for m in "${modes[@]}"; do printf ' %s %s' "$m" "${med[$m]}"; done) tps"
	echo "  backends' CPU per transaction, medians:$(for m in "${modes[@]}"; do printf ' %s %s' "$m" "${cmed[$m]}"; done) ms"
	ratio=$(awk -v a="${med[offcpu]}" -v b="${med[none]}" 'BEGIN { printf "%.3f", a / b }')
	pratio=$(awk -v a="${med[plain]}" -v b="${med[none]}" 'BEGIN { printf "%.3f", a / b }')
	echo "  plain / none = $pratio, offcpu / none = $ratio"
	oratio=$(awk -v a="${med[offcpu]}" -v b="${med[plain]}" 'BEGIN { printf "%.3f", a / b }')
	echo "  offcpu / plain = $oratio"
	if awk -v r="$oratio" 'BEGIN { exit !(r >= 0.85) }'; then
		pass "tps with the --off-cpu recording $oratio of the recording without it (within 15 %)"
	else
		fail "tps with the --off-cpu recording $oratio of the recording without it (not within 15 %)"
	fi
fi
[ "$fails" -eq 0 ] || exit 1
