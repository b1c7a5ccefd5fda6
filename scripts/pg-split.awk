# The merged profile of a PostgreSQL server's backends, per transaction,
# split by the stacks that name each part; scripts/pg-check.sh runs it.
#
#   awk -v tx=N -v lat=MS -v clients=C -v secs=S -v merged=OUT.folded \
#       -f scripts/pg-split.awk SUMMARY FOLDED FOLDED
#
# SUMMARY: wallfold -f summary --scope=process --off-cpu (for the spans);
# FOLDED: wallfold --off-cpu --scope=process --pid (roots "comm-PID"),
# given twice (first who is a backend, then the parts).
# Backends are the processes with PostgresMain in some stack (the
# postmaster, checkpointer, walwriter... never run it); each backend's
# stacks count whole, from its fork to its exit. Prints the table and a
# line "result PER_TX_MS LAT_MS" for the caller's check; writes the
# backends' merged profile (roots dropped) to `merged`.

function pidof_root(stack,    root) {
	root = stack
	sub(/;.*/, "", root)
	sub(/.*-/, "", root)
	return root
}

# part: which part of a transaction a stack's time is. Order matters: a
# WAL flush that waits for the WAL write lock is WAL flush, not a lock.
function part(stack, leaf) {
	if (leaf == "[runnable]") return "runq"
	if (leaf != "[blocked]") return "cpu"
	if (stack ~ /;(pq_getbyte|pq_getbytes|pq_getmessage|pq_recvbuf|secure_read);/) return "client"
	if (stack ~ /;(XLogFlush|XLogWrite|issue_xlog_fsync|XLogBackgroundFlush);/) return "wal"
	if (stack ~ /;(ProcSleep|LockAcquireExtended|XactLockTableWait|LockTuple);/) return "lock"
	if (stack ~ /;(LWLockAcquire|LWLockAcquireOrWait|PGSemaphoreLock|__futex_abstimed_wait_common|futex_wait);/) return "lwlock"
	return "other"
}

# brief: a stack told short: its frames but the entry and start-up
# noise, the first 3 and the last 4 (the leaf among them).
function brief(stack,    f, n, i, g, k, out) {
	n = split(stack, f, ";")
	k = 0
	for (i = 2; i <= n; i++) {
		if (f[i] ~ /^(entry_SYSCALL_64_after_hwframe|do_syscall_64|__libc_start_call_main|main|PostmasterMain|\[postgres\]|\[unknown\]|schedule|__schedule)$/) continue
		g[++k] = f[i]
	}
	out = ""
	for (i = 1; i <= k; i++) {
		if (k > 7 && i > 3 && i <= k - 4) {
			if (i == 4) out = out ";..."
			continue
		}
		out = out (i > 1 ? ";" : "") g[i]
	}
	return out
}

BEGIN {
	label["client"] = "client round trip"
	label["cpu"] = "CPU"
	label["wal"] = "WAL flush"
	label["lock"] = "row and xact locks"
	label["lwlock"] = "LWLocks (futex)"
	label["runq"] = "run queue"
	label["other"] = "other waits"
	how["client"] = "[blocked] under pq_getbyte/secure_read: the client's next command"
	how["cpu"] = "on-CPU samples and [unsampled]"
	how["wal"] = "[blocked] under XLogFlush: fdatasync, the WAL write lock"
	how["lock"] = "[blocked] under ProcSleep: XactLockTableWait, LockTuple"
	how["lwlock"] = "[blocked] in futex: sem_wait of an LWLock (glibc cuts the user stack)"
	how["runq"] = "[runnable]: preempted or woken, waiting for a CPU"
	how["other"] = "[blocked] anywhere else"
	nparts = split("client cpu wal lock lwlock runq other", order, " ")
}

# the summary: "process COMM (pid N)" then "  span: S s = ..."
FNR == 1 { fileno++ }

fileno == 1 {
	if (match($0, /\(pid [0-9]+\)/)) {
		cur = substr($0, RSTART + 5, RLENGTH - 6)
	} else if (cur != "" && $1 == "span:") {
		span[cur] = $2 * 1e9
		cur = ""
	}
	next
}

# the folded profile, twice over: first who is a backend, then the parts
fileno == 2 {
	if ($0 ~ /;PostgresMain;/) backend[pidof_root($0)] = 1
	next
}

{
	if (!match($0, / [0-9]+$/)) next
	w = substr($0, RSTART + 1) + 0
	stack = substr($0, 1, RSTART - 1)
	pid = pidof_root(stack)
	if (!(pid in backend)) {
		others += w
		next
	}
	n = split(stack, f, ";")
	p = part(stack, f[n])
	sum[p] += w
	total += w
	ptotal[pid] += w
	rest = stack
	sub(/^[^;]*;/, "", rest)
	mw[rest] += w
	if (w > topw[p] + 0) {
		topw[p] = w
		top[p] = stack
	}
}

END {
	nb = 0
	maxdev = 0
	spansum = 0
	for (pid in ptotal) {
		nb++
		if (pid in span) {
			spansum += span[pid]
			d = ptotal[pid] - span[pid]
			if (d < 0) d = -d
			if (span[pid] > 0 && d / span[pid] > maxdev) maxdev = d / span[pid]
		} else {
			nospan++
		}
	}
	if (nb == 0 || tx <= 0) {
		print "no backend (no stack with PostgresMain) or no transactions"
		exit 1
	}
	for (s in mw) print "postgres backends;" s, mw[s] > merged
	pertx = total / tx / 1e6
	printf "backends: %d, their profile %.3f s (sum of their spans %.3f s, each within %.2f %%%s; %d clients x %s s = %.3f s)\n",
		nb, total / 1e9, spansum / 1e9, 100 * maxdev, (nospan ? ", " nospan " without a span" : ""), clients, secs, clients * secs
	printf "other processes recorded (the postmaster, the rest of the machine): %.3f s, not counted\n", others / 1e9
	printf "transactions: %d; profile / transactions = %.4f ms; pgbench latency average %.4f ms\n\n", tx, pertx, lat
	printf "%-20s %10s %7s  %s\n", "part", "ms/tx", "share", "stacks"
	for (i = 1; i <= nparts; i++) {
		p = order[i]
		printf "%-20s %10.4f %6.1f%%  %s\n", label[p], sum[p] / tx / 1e6, 100 * sum[p] / total, how[p]
	}
	printf "%-20s %10.4f %6.1f%%\n\n", "total", pertx, 100
	print "heaviest stack of each part (one backend):"
	for (i = 1; i <= nparts; i++) {
		p = order[i]
		if (p in top) printf "  %-18s %8.1f ms  %s\n", label[p], topw[p] / 1e6, brief(top[p])
	}
	printf "result %.6f %.6f\n", pertx, lat
}
