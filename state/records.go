package state

// This file holds the Tracker's inputs, one method per record kind.

// Sample gives the tracker a sample; it is released (with its
// parallelism) once every thread's state around it is decided.
func (t *Tracker) Sample(s Sample) {
	t.stats.Samples++
	// The clock moves first: gaps overdue at this moment are decided
	// before this sign of life counts.
	t.advance(s.Time)
	if s.TID == 0 {
		// Idle (swapper): no thread of any workload; wall weight 0. The
		// CPU it idles on runs nothing else.
		if s.CPU >= 0 {
			if cur := t.cpuCur[s.CPU]; cur != nil && cur.running && cur.cpu == s.CPU {
				t.stop(cur, s.Time)
				t.drain(cur.g)
			}
		}
		t.release(s, 0)
		return
	}
	if s.TID < 0 {
		// perf lost track of the task (it exited): count it alone.
		t.release(s, 1)
		return
	}
	if s.PID > 0 {
		t.learn(s.PID, s.TID)
	}
	th := t.thread(s.PID, s.TID)
	th.sampled = true
	t.onCPU(th, s.CPU, s.Time)
	// The sample is a sign of life: it closes the gap before it, counts
	// its own thread, and opens a gap covering what follows.
	t.closeGap(th, s.Time)
	g := th.g
	g.q = append(g.q, pending{s: s, diff: g.tail})
	g.tail = 0
	g.seq++
	t.start(th, s.Time)
	t.drain(g)
}

// Switch is a per-task PERF_RECORD_SWITCH of the line's own thread.
func (t *Tracker) Switch(now int64, pid, tid, cpu int, out bool) {
	t.stats.Switches++
	t.advance(now)
	if tid == 0 {
		return
	}
	if tid < 0 {
		// An exited task perf no longer names (":-1 -1"): whatever ran on
		// the CPU has left it.
		if out && cpu >= 0 {
			if cur := t.cpuCur[cpu]; cur != nil && cur.running && cur.cpu == cpu {
				t.stop(cur, now)
				t.drain(cur.g)
			}
		}
		return
	}
	if pid > 0 {
		t.learn(pid, tid)
	}
	th := t.thread(pid, tid)
	if out {
		t.stop(th, now)
	} else {
		t.onCPU(th, cpu, now)
		t.closeGap(th, now)
		t.start(th, now)
	}
	t.drain(th.g)
}

// SwitchCPUWide is a PERF_RECORD_SWITCH_CPU_WIDE on cpu: the line's thread
// goes out (other = the next task) or in (other = the previous task).
func (t *Tracker) SwitchCPUWide(now int64, pid, tid, cpu int, out bool, otherPID, otherTID int) {
	t.stats.CPUWide++
	t.learn(otherPID, otherTID)
	if tid != 0 {
		t.Switch(now, pid, tid, cpu, out)
		return
	}
	t.stats.Switches++
	t.advance(now)
	// The idle task leaving or entering a CPU: the CPU's previous task (if
	// the idle task comes in) is off it.
	if !out && cpu >= 0 {
		if cur := t.cpuCur[cpu]; cur != nil && cur.running && cur.cpu == cpu {
			t.stop(cur, now)
			t.drain(cur.g)
		}
	}
}

// Fork notes a new thread (pid:tid); it runs once it is switched in or
// sampled.
func (t *Tracker) Fork(now int64, pid, tid int) {
	t.stats.TaskEvents++
	t.advance(now)
	if old := t.threads[tid]; old != nil {
		// A reused tid: the old thread is gone.
		t.stop(old, now)
		t.drain(old.g)
		delete(t.threads, tid)
		if old.g != t.one {
			old.g.threads--
		}
	}
	t.learn(pid, tid)
}

// Exit ends a thread: the kernel writes no SWITCH OUT for it.
func (t *Tracker) Exit(now int64, pid, tid int) {
	t.stats.TaskEvents++
	t.stats.Exits++
	t.advance(now)
	t.learn(pid, tid)
	if th := t.threads[tid]; th != nil {
		t.stop(th, now)
		t.drain(th.g)
		t.dead = append(t.dead, deadThread{tid, th, now})
	}
}

// Comm notes a PERF_RECORD_COMM (a task event: it tells that task events
// were recorded).
func (t *Tracker) Comm(now int64, pid, tid int) {
	t.stats.TaskEvents++
	t.advance(now)
	t.learn(pid, tid)
}

// Lost notes a PERF_RECORD_LOST of n records.
func (t *Tracker) Lost(now int64, n uint64) {
	if t.stats.LostEvents == 0 {
		t.stats.FirstLostAt = now
	}
	t.stats.LostEvents++
	t.stats.Lost += n
	t.advance(now)
}

// Tick advances the clock for a record that carries nothing else.
func (t *Tracker) Tick(now int64) { t.advance(now) }

// Flush ends the trace: open gaps end at their last sign (nothing more is
// known), and every waiting sample is released.
func (t *Tracker) Flush() {
	for _, o := range t.exp[t.ehead:] {
		if o.th.segOpen && o.th.segGen == o.gen {
			o.th.segOpen = false
		}
	}
	t.exp = t.exp[:0]
	t.ehead = 0
	for _, g := range t.allGroups() {
		t.drain(g)
	}
}

// Hint tells the tracker early that tid belongs to pid, before the
// records that involve tid are given (the caller may look ahead).
func (t *Tracker) Hint(pid, tid int) { t.learn(pid, tid) }

// PIDOf returns the process of tid when it is known (from a pid/tid
// column, FORK, EXIT or COMM records, or CPU-wide switch records).
func (t *Tracker) PIDOf(tid int) (int, bool) {
	pid, ok := t.pidOf[tid]
	return pid, ok
}
