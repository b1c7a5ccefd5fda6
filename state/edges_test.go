package state

// The tracker's edge cases (found in review): sequences of records whose
// parallelism is worked out by hand.

import (
	"runtime"
	"testing"
)

func checkPar(t *testing.T, got, want map[int]int) {
	t.Helper()
	for ref, w := range want {
		if got[ref] != w {
			t.Errorf("sample %d: parallelism %d, want %d", ref, got[ref], w)
		}
	}
}

// alternate returns n samples each of threads 101 and 102 (process 100),
// 101 at start+i ms and 102 half a millisecond later: both run all along.
func alternate(start int64, n, ref0 int) []op {
	var ops []op
	for i := 0; i < n; i++ {
		at := start + int64(i)*ms
		ops = append(ops, smp(at, 100, 101, ref0+2*i), smp(at+ms/2, 100, 102, ref0+2*i+1))
	}
	return ops
}

// Was a bug (fixed): one record with a wild timestamp (a corrupt line, or two traces
// concatenated so that time jumps back) poisons the rest of the trace.
// Tracker.advance keeps t.now = max(time seen), and expiry compares that
// maximum with each later gap's start: after the jump every gap is
// "overdue" the moment it opens, so every later sample gets parallelism 1
// although two threads alternate every 0.5 ms (gap 3 ms).
// By hand: samples 200..219 (two threads interleaved, 0.5 ms apart, both
// running) have parallelism 2, except the very last one (its partner's
// last sign is before it: 1).
// Got: 1 for all of them.
// At fault: tracker.go advance(), `if now > t.now { t.now = now }` and the
// expiry test `t.now-o.th.segTime > t.cfg.Gap`. Fix: expire against the
// current record's time (t.now = now, accepting that exp is then only
// roughly ordered), or treat a jump larger than some bound (e.g. 1000 gaps)
// as a discontinuity: reset t.now to the new time.
func TestTrackerTimeJumpPoisonsRest(t *testing.T) {
	ops := alternate(1*ms, 5, 1)
	ops = append(ops, smp(1_000_000*ms, 100, 101, 100)) // one wild timestamp
	ops = append(ops, alternate(7*ms, 10, 200)...)
	got := run(t, config{Gap: 3 * ms}, ops)
	want := map[int]int{}
	for r := 201; r < 219; r++ {
		want[r] = 2
	}
	checkPar(t, got, want)
}

// Time going backwards by less than the gap does no harm.
func TestTrackerSmallBackwardsStep(t *testing.T) {
	ops := []op{
		smp(1*ms, 100, 101, 1), smp(1500_000, 100, 102, 2),
		smp(2*ms, 100, 101, 3), smp(1900_000, 100, 102, 4), // 0.1 ms back
		smp(3*ms, 100, 101, 5), smp(3500_000, 100, 102, 6),
		smp(4*ms, 100, 101, 7),
	}
	got := run(t, config{Gap: 3 * ms}, ops)
	checkPar(t, got, map[int]int{2: 2, 3: 2, 4: 2, 5: 2, 6: 2})
}

// FORK of a tid that is still taken as running (its EXIT was lost): the
// old thread stops at the FORK, the new one runs from its first sign.
func TestTrackerForkOfReusedTid(t *testing.T) {
	ops := []op{
		smp(1*ms, 100, 101, 1),
		smp(2*ms, 100, 102, 2), smp(3*ms, 100, 102, 3),
		fork(3500_000, 300, 101), // tid 101 reused by a new process
		smp(4*ms, 100, 102, 4),
		smp(5*ms, 300, 101, 5),
		smp(6*ms, 100, 102, 6),
	}
	// By hand: old 101 runs 1..3.5 ms (2.5 ms < gap 3 ms): 102's samples
	// at 2 and 3 get 2; at 4 nothing else runs: 1; new 101 at 5 sees 102
	// (4..6 ms): 2; 102 at 6: 101's last sign is 5, nothing after: 1.
	for _, sc := range []Scope{Workload, Process} {
		got := run(t, config{Scope: sc, Gap: 3 * ms}, ops)
		want := map[int]int{1: 1, 2: 2, 3: 2, 4: 1, 5: 2, 6: 1}
		if sc == Process {
			// New 101 is in process 300, alone.
			want[5], want[6] = 1, 1
		}
		checkPar(t, got, want)
	}
}

// A tid that reappears after EXIT (no FORK seen) starts afresh.
func TestTrackerTidAfterExit(t *testing.T) {
	ops := []op{
		smp(1*ms, 100, 101, 1), smp(1500_000, 100, 102, 2),
		exit(1700_000, 100, 101),
		smp(2*ms, 100, 102, 3), smp(3*ms, 100, 102, 4),
		smp(3200_000, 100, 101, 5), // same tid again
		smp(4*ms, 100, 102, 6),
	}
	// 101 runs 1..1.7 ms (covers 102's sample at 1.5: 2), not at 2 or 3
	// ms; it runs again from 3.2 ms (its next sign is the trace's end, so
	// only its own sample counts it).
	got := run(t, config{Gap: 3 * ms}, ops)
	checkPar(t, got, map[int]int{1: 1, 2: 2, 3: 1, 4: 1, 5: 2, 6: 1})
}

// Records-only mode (Gap 0): a thread whose process is learnt late moves
// with its committed +1: it counts in its own group until the move, then
// in its process's group until its OUT.
func TestTrackerMoveCommittedThread(t *testing.T) {
	ops := []op{
		in(1*ms, -1, 101), // process unknown: its own group 101
		smp(2*ms, 100, 102, 1), smp(3*ms, 100, 102, 2),
		wide(4*ms, -1, 0, 5, true, 100, 101), // names 101's process: 100
		smp(5*ms, 100, 102, 3), smp(6*ms, 100, 102, 4),
		out(7*ms, -1, 101),
		smp(8*ms, 100, 102, 5),
	}
	got := run(t, config{Scope: Process, Gap: 0}, ops)
	checkPar(t, got, map[int]int{1: 1, 2: 1, 3: 2, 4: 2, 5: 1})
	got = run(t, config{Scope: Workload, Gap: 0}, ops)
	checkPar(t, got, map[int]int{1: 2, 2: 2, 3: 2, 4: 2, 5: 1})
}

// SetGap(0) after records arrived with the gap unknown commits the open
// gaps: a thread switched in before the first sample counts until its OUT.
func TestTrackerSetGapZeroLate(t *testing.T) {
	ops := []op{
		in(1*ms, 100, 101),
		smp(2*ms, 100, 102, 1),
		{setGap: true, gap: 0},
		smp(100*ms, 100, 102, 2),
		out(200*ms, 100, 101),
		smp(300*ms, 100, 102, 3),
	}
	got := run(t, config{Gap: -1}, ops)
	checkPar(t, got, map[int]int{1: 2, 2: 2, 3: 1})
}

// ":-1/-1 ... SWITCH OUT" on a CPU and the idle task coming in (CPU-wide)
// both take the CPU's thread off it.
func TestTrackerCPULeftByUnnamedOrIdle(t *testing.T) {
	for name, leave := range map[string]op{
		"tid -1 OUT": outCPU(3500_000, -1, -1, 0),
		"idle IN":    wide(3500_000, 0, 0, 0, false, 100, 101),
	} {
		t.Run(name, func(t *testing.T) {
			ops := []op{
				inCPU(1*ms, 100, 101, 0),
				smpCPU(2*ms, 100, 102, 1, 1), smpCPU(3*ms, 100, 102, 1, 2),
				leave,
				smpCPU(4*ms, 100, 102, 1, 3), smpCPU(5*ms, 100, 102, 1, 4),
			}
			got := run(t, config{Gap: 3 * ms}, ops)
			checkPar(t, got, map[int]int{1: 2, 2: 2, 3: 1})
		})
	}
}

// A tid -1 sample counts alone and an idle one gets 0, released at once,
// without holding or disturbing the others.
func TestTrackerTidMinusOneSample(t *testing.T) {
	ops := []op{
		smp(1*ms, 100, 101, 1), smp(1500_000, 100, 102, 2),
		smp(1600_000, -1, -1, 3),
		smpCPU(1700_000, 0, 0, 0, 4),
		smp(2*ms, 100, 101, 5), smp(2500_000, 100, 102, 6),
	}
	got := run(t, config{Gap: 3 * ms}, ops)
	checkPar(t, got, map[int]int{1: 1, 2: 2, 3: 1, 4: 0, 5: 2, 6: 1})
}

// Was a bug (fixed): memory grows with the number of threads and processes a trace has
// ever had, not with those alive. EXIT stops a thread but never forgets
// it: Tracker.threads, Tracker.pidOf and (process scope) Tracker.groups
// keep an entry per tid / pid for the rest of the run (a group also keeps
// its queue and open-gap slices). A long system-wide trace of a build
// (hundreds of thousands of short processes) costs ~300 bytes per process
// that has come and gone: 100 000 processes that fork, run 1 sample and
// exit, one at a time, grow the heap by ~32 MB in process scope (~12 MB in
// workload scope) although at most one thread is alive at any moment.
// At fault: Exit (no cleanup; now exit, in records.go) and
// thread()/group() (now in tracker.go).
// Fix: on EXIT remember (tid, time); once the gap (and the caller's
// look-ahead, for PIDOf at release) has passed and the tid was not
// reused, delete threads[tid] and pidOf[tid], and delete a group whose
// queue is empty and that has no live thread.
func TestTrackerMemoryExitedThreads(t *testing.T) {
	for _, sc := range []Scope{Workload, Process} {
		tr := newTracker(config{Scope: sc, Gap: 3 * ms, Release: func(sample, float64, *group) {}})
		feed := func(from, n int) {
			for i := from; i < from+n; i++ {
				now := int64(i) * ms
				tid := 1000 + i
				tr.fork(now, tid, tid, -1, OtherEvent)
				tr.addSample(sample{Time: now + 1, PID: tid, TID: tid, CPU: -1, Period: 1e6, Ref: i})
				tr.exit(now+2, tid, tid, -1, OtherEvent)
			}
		}
		var m0, m1 runtime.MemStats
		feed(0, 2000)
		runtime.GC()
		runtime.ReadMemStats(&m0)
		feed(2000, 100000)
		runtime.GC()
		runtime.ReadMemStats(&m1)
		runtime.KeepAlive(tr)
		grew := int64(m1.HeapAlloc) - int64(m0.HeapAlloc)
		if grew > 4<<20 {
			t.Errorf("%v scope: heap grew %d KB over 100000 short-lived processes (at most 1 alive at a time)", sc, grew>>10)
		}
	}
}
