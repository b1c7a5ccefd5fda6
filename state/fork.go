package state

// This file holds a task's first moments: from its FORK to its first run
// it waits on a run queue, runnable. A fork-heavy workload (a configure
// script, a build) forks thousands of processes, and on a busy machine
// each waits a while for a CPU: that wait is runnable time, not blocked
// (the parent, blocked in wait(), is the only other thread off CPU then).

// forked notes a thread created at now (a FORK record, not perf's
// synthesized one at time 0): runnable until its first IN or sample.
// ref is a handle for its stack (its name: it runs its parent's
// program until it execs).
func (t *tracker) forked(now int64, pid, tid, ref int) {
	if now <= 0 || tid <= 0 {
		return // perf's synthesized records: threads that existed already
	}
	th := t.thread(pid, tid)
	if th.on || th.inSet || th.running {
		return
	}
	if ref != OtherEvent {
		th.switchRef = ref
	}
	th.g.off.touch(now)
	t.runOff(th, now, offRunnable)
}
