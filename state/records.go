package state

// This file holds the tracker's inputs: add, and one method per kind.

// addSample gives the tracker a sample; it is released (with its
// parallelism) once every thread's state around it is decided.
func (t *tracker) addSample(s sample) {
	t.stats.Samples++
	// The clock moves first: gaps overdue at this moment are decided
	// before this sign of life counts.
	t.advance(s.Time)
	if s.TID == 0 {
		// Idle (swapper): no thread of any workload; wall weight 0. The
		// CPU it idles on runs nothing else.
		if s.CPU >= 0 {
			if cur := t.cpuCur[s.CPU]; cur != nil && cur.running && cur.cpu == s.CPU && !t.rateMode() {
				t.stop(cur, s.Time, offBlocked)
				t.drain(cur.g)
			}
		}
		t.cfg.Release(s, 0, nil)
		return
	}
	if s.TID < 0 {
		// perf lost track of the task (it exited): count it alone.
		t.cfg.Release(s, 1, nil)
		return
	}
	if s.PID > 0 {
		t.learn(s.PID, s.TID)
	}
	th := t.thread(s.PID, s.TID)
	th.sampled = true
	th.g.off.touch(s.Time)
	t.signCPU = th.cpu // where it was: where its records may have been lost
	cpu := s.CPU
	if t.staleSampleCPU(th, s.Time, cpu) {
		t.stale(s.Time - th.inAt)
		cpu = -1 // a sign of life, but not of where
	}
	t.onCPU(th, cpu, s.Time)
	// The sample is a sign of life: it closes the gap before it, counts
	// its own thread, and opens a gap covering what follows.
	t.ownSign = true
	if !th.committed {
		// A clock's sample stands for the period before it: it says
		// whether the thread spun since its last sign.
		th.segSpin = s.Spin
	}
	t.closeGap(th, s.Time) // time lost before it goes to the stack before it
	t.ownSign = false
	t.noteSpacing(th, s.Time)
	if s.Ref != OtherEvent {
		th.lastRef = s.Ref
	}
	g := th.g
	g.enqueue(s)
	th.spinning = s.Spin
	t.start(th, s.Time)
	th.segBySample = true
	if s.Ref != OtherEvent {
		t.sampledAt(th, s.Time, s.Period)
	}
	t.drain(g)
}

// switchTask is a per-task PERF_RECORD_SWITCH of the line's own thread.
func (t *tracker) switchTask(now int64, pid, tid, cpu int, out, preempt bool, ref int) {
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
				t.stop(cur, now, offGone)
				t.drain(cur.g)
			}
		}
		return
	}
	if pid > 0 {
		t.learn(pid, tid)
	}
	th := t.thread(pid, tid)
	th.g.off.touch(now)
	if ref != OtherEvent {
		th.switchRef = ref
	}
	if out {
		if at := th.inAt; t.staleOut(th, now, cpu) {
			t.stale(now - at)
			return
		}
		how := offBlocked
		if preempt {
			how = offRunnable
		}
		t.ownStop(th, now, how, cpu)
	} else {
		th.doubleIn = 0
		if th.running && th.swIn {
			th.doubleIn = now
		}
		th.inAt = now
		th.spinning = false // until a sample says it spins again
		t.onCPU(th, cpu, now)
		t.closeGap(th, now)
		t.start(th, now)
	}
	th.swIn = !out
	t.drain(th.g)
}

// switchCPUWide is a PERF_RECORD_SWITCH_CPU_WIDE on cpu: the line's thread
// goes out (other = the next task) or in (other = the previous task).
func (t *tracker) switchCPUWide(now int64, pid, tid, cpu int, out, preempt bool, otherPID, otherTID, ref int) {
	t.stats.CPUWide++
	t.learn(otherPID, otherTID)
	if tid != 0 {
		t.switchTask(now, pid, tid, cpu, out, preempt, ref)
		return
	}
	t.stats.Switches++
	t.advance(now)
	// The idle task leaving or entering a CPU: the CPU's previous task (if
	// the idle task comes in) is off it.
	if !out && cpu >= 0 {
		if cur := t.cpuCur[cpu]; cur != nil && cur.running && cur.cpu == cpu {
			t.stop(cur, now, offBlocked)
			t.drain(cur.g)
		}
	}
}

// fork notes a new thread (pid:tid): it waits for a CPU (forked) until
// it is switched in or sampled. ref: a handle for that wait's stack.
func (t *tracker) fork(now int64, pid, tid, ppid, ref int) {
	t.stats.TaskEvents++
	t.advance(now)
	t.noteParent(pid, ppid)
	old := t.lookup(tid)
	if old != nil && t.staleFork(old, now) {
		t.stale(now - old.firstAt)
		t.learn(pid, tid)
		return // the child runs already
	} else if old != nil {
		// A reused tid: the old thread is gone.
		old.exited = true
		t.stop(old, now, offGone)
		t.unsampledEnd(old, now)
		t.drain(old.g)
		delete(t.threads, tid)
		if old.g != t.one {
			old.g.threads--
		}
	}
	t.learn(pid, tid)
	t.forked(now, pid, tid, ref)
}

// exit ends a thread: the kernel writes no SWITCH OUT for it (but in
// CPU-wide traces, after it: exitTail). ref: a handle for its name then.
func (t *tracker) exit(now int64, pid, tid, cpu, ref int) {
	t.stats.TaskEvents++
	t.stats.Exits++
	t.advance(now)
	t.learn(pid, tid)
	if th := t.lookup(tid); th != nil {
		th.g.off.touch(now)
		th.exited, th.exitAt = true, now
		t.ownStop(th, now, offGone, cpu)
		th.exitOff = false // it runs its exit until its last switch-out
		if ref != OtherEvent {
			th.switchRef = ref // its name at its end
		}
		t.unsampledEnd(th, now)
		t.drain(th.g)
		t.dead = append(t.dead, deadThread{tid, th, now})
	}
}

// comm notes a PERF_RECORD_COMM (a task event: it tells that task events
// were recorded).
func (t *tracker) comm(now int64, pid, tid int) {
	t.stats.TaskEvents++
	t.advance(now)
	t.learn(pid, tid)
}

// lost notes a PERF_RECORD_LOST of n records, written by cpu (-1: not
// printed) when its ring had room again.
func (t *tracker) lost(now int64, n uint64, cpu int) {
	if t.stats.LostEvents == 0 {
		t.stats.FirstLostAt = now
	}
	if t.lostAt == nil {
		t.lostAt = make(map[int]lossWindow)
	}
	t.lostAt[cpu] = lossWindow{after: t.lastOn(cpu), at: now, n: n}
	t.stats.LostEvents++
	t.stats.Lost += n
	t.advance(now)
}

// blockStackAt is a sample taken where a thread leaves its CPU
// (sched:sched_switch): where its off-CPU time is charged.
func (t *tracker) blockStackAt(now int64, pid, tid, ref int) {
	t.advance(now)
	if tid <= 0 {
		return
	}
	if pid > 0 {
		t.learn(pid, tid)
	}
	th := t.thread(pid, tid)
	th.g.off.touch(now)
	t.blockStack(th, ref)
}

// tick advances the clock for a record that carries nothing else.
func (t *tracker) tick(now int64) { t.advance(now) }

// flush ends the trace: open gaps end at their last sign (nothing more is
// known), and every waiting sample is released.
func (t *tracker) flush() { t.endGaps(false) }

// waiting returns the number of samples waiting in the groups' queues.
func (t *tracker) waiting() int {
	n := 0
	for _, g := range t.allGroups() {
		n += g.q.len()
	}
	return n
}

// finish ends the trace (flush) and then the groups' accounting, if
// anyone wants it: the threads still waiting get their last shares. It
// returns the splits with KeepSplits.
func (t *tracker) finish() []Split {
	t.flush()
	if !t.cfg.KeepSplits && t.cfg.ReleaseOff == nil {
		return nil
	}
	t.reviveAll(coldRunCPU | coldInSet) // what the end tells of them
	t.unsampledAll()
	splits := t.closeSplits()
	if !t.cfg.KeepSplits {
		return nil
	}
	return splits
}

// add dispatches an event to its input.
func (t *tracker) add(e *Event) {
	if e.Kind != KindLost {
		t.noteRecord(e.Time, e.CPU)
	}
	if e.CPU >= 0 && e.Kind != KindLost {
		t.seenOn(e.CPU, e.Time)
	}
	switch e.Kind {
	case KindSample:
		t.addSample(sample{Time: e.Time, PID: e.PID, TID: e.TID, CPU: e.CPU, Period: e.Period, Ref: e.Ref, Spin: e.Spin})
	case KindSwitch:
		t.switchTask(e.Time, e.PID, e.TID, e.CPU, e.Out, e.Preempt, e.Ref)
	case KindSwitchCPUWide:
		t.switchCPUWide(e.Time, e.PID, e.TID, e.CPU, e.Out, e.Preempt, e.PeerPID, e.PeerTID, e.Ref)
	case KindFork:
		t.fork(e.Time, e.PID, e.TID, e.ParentPID, e.Ref)
	case KindBlockStack:
		t.blockStackAt(e.Time, e.PID, e.TID, e.Ref)
	case KindExit:
		t.exit(e.Time, e.PID, e.TID, e.CPU, e.Ref)
	case KindComm:
		t.comm(e.Time, e.PID, e.TID)
	case KindLost:
		t.lost(e.Time, e.Lost, e.CPU)
	case KindWakeup:
		t.wakeup(e.Time, e.PeerTID, e.Ref)
	default:
		t.tick(e.Time)
	}
}
