package state

// This file tells records that CPUs wrote out of order. perf script sorts
// records by their timestamps, but each CPU stamps its own, and in a VM
// (or with perf's "out of order events") their clocks disagree by some
// microseconds. A thread that migrates then shows its SWITCH IN on the new
// CPU before its SWITCH OUT on the old one, and the old CPU's last sample
// after the IN. Taken in print order, the OUT would stop a thread that
// runs, and the sample would move it back to a CPU it left.

// switchSigns is what a thread's switch records tell of skew: the last
// was an IN (thread.swIn), at inAt; an IN while already in, at doubleIn.
type switchSigns struct {
	inAt, doubleIn int64
}

// skewLimit bounds how far apart (in trace time) a stale record may be
// printed from the IN it contradicts. Skew is microseconds; a real OUT
// this close after a double IN (one lost between them) is rare, and the
// silence rule ends a thread that did stop within a few periods anyway.
const skewLimit = 1_000_000 // 1 ms

// staleOut reports whether an OUT at now (on cpu, -1 when unknown) was
// written before th's last IN, by a CPU it has left since: the thread
// runs on.
func (t *tracker) staleOut(th *thread, now int64, cpu int) bool {
	if !th.running || !th.swIn {
		return false
	}
	if cpu >= 0 && th.cpu >= 0 && cpu != th.cpu && now-th.inAt <= skewLimit {
		th.doubleIn = 0
		return true // CPU-wide: the OUT of the CPU it came from
	}
	if th.doubleIn != 0 && now-th.doubleIn <= skewLimit && (cpu < 0 || th.cpu < 0) {
		// Per-task (no CPU column): an IN while already in, then this
		// OUT: the OUT belongs before that IN. With CPUs printed, an OUT
		// on the CPU of the second IN is that run's (the first run's OUT
		// was lost).
		th.doubleIn = 0
		return true
	}
	return false
}

// staleSampleCPU reports whether a sample of th at now on cpu was written
// by the CPU it has just left (its IN on another CPU printed first): it
// says th runs, not that it moved back.
func (t *tracker) staleSampleCPU(th *thread, now int64, cpu int) bool {
	return th.running && th.swIn && cpu >= 0 && th.cpu >= 0 && cpu != th.cpu && now-th.inAt <= skewLimit
}

// staleFork reports whether a FORK at now naming th's tid was written by
// the parent's CPU after th's first records on its own CPU (a clock
// behind): th is that new thread, not an old one whose tid is reused. A
// reused tid's old thread has exited, or was last seen long before.
func (t *tracker) staleFork(th *thread, now int64) bool {
	d := now - th.firstAt
	return !th.exited && d >= 0 && d <= skewLimit
}

// stale counts a record written out of order, by printed time d after
// the record it contradicts.
func (t *tracker) stale(d int64) {
	t.stats.StaleRecords++
	t.stats.StaleBy = max(t.stats.StaleBy, d)
}
