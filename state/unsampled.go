package state

import "sort"

// This file counts the time a thread ran that no sample covers. A
// per-task recording (perf record -- CMD) counts each task's cpu-clock
// on its own, from zero at its fork: a sample comes after every period
// of the task's CPU time, so what it ran after its last sample (up to a
// period) has none, and a task that runs less than a period has none at
// all. A fork-heavy build has thousands of such tasks: the switch
// records say they ran, the samples do not (measured: 13.22 s on CPU by
// switch records, 11.58 s by samples). A system-wide recording samples
// each CPU instead, so no task is left out: there the rule is off.
//
// While a thread runs, its share of the group's time on CPU (dt divided
// by the threads running) is the integral the group keeps (onCum); its
// CPU time and that share since its last sample are what no sample
// covers, told when it exits (or at the trace's end).

// UnsampledTime is a group's CPU time that switch records show and no
// sample covers (per-task recordings; Split.Unsampled).
type UnsampledTime struct {
	// CPU is the threads' time on CPU after their last samples, Wall its
	// share of the group's time on CPU (ns).
	CPU, Wall int64
	Threads   int // threads with such time
	NoSample  int // of which had no sample at all
}

// Add returns the sum of u and v (a reused pid's groups).
func (u UnsampledTime) Add(v UnsampledTime) UnsampledTime {
	return UnsampledTime{CPU: u.CPU + v.CPU, Wall: u.Wall + v.Wall, Threads: u.Threads + v.Threads, NoSample: u.NoSample + v.NoSample}
}

// unsampledRun is a thread's time on CPU by its switch records, its
// share of its group's time on CPU, and its samples' periods.
type unsampledRun struct {
	runCPU   int64   // in stretches that ended
	runWall  float64 // their share of the group's time on CPU
	runFrom  int64   // while on CPU: the current stretch counts from here
	runCum   float64 // the group's onCum at runFrom
	periods  int64   // its samples of the profiled event, summed
	lastSeen int64   // its last sample (0: none): where its unsampled time is dated from
	firstOn  int64   // its first run (0: not yet)
}

// onTo brings the group's integral of dt/running up to at.
func (a *offAcct) onTo(at int64) {
	if at <= a.onAt {
		return
	}
	if a.running > 0 {
		a.onCum += float64(at-a.onAt) / float64(a.running)
	}
	a.onAt = at
}

// unsampledOn notes that th goes on CPU at at (the group's integral up
// to at, its running count not yet raised).
func (t *tracker) unsampledOn(th *thread, at int64) {
	a := &th.g.off
	a.onTo(at)
	th.runFrom, th.runCum = max(at, a.onAt), a.onCum
	if th.firstOn == 0 {
		th.firstOn = th.runFrom
	}
}

// unsampledOff notes that th, on CPU, leaves it at at (its running count
// not yet lowered).
func (t *tracker) unsampledOff(th *thread, at int64) {
	a := &th.g.off
	a.onTo(at)
	if at > th.runFrom {
		th.runCPU += at - th.runFrom
	}
	th.runWall += a.onCum - th.runCum
	th.runFrom, th.runCum = max(at, th.runFrom), a.onCum
}

// sampledAt notes a sample of the profiled event of th at now that
// stands for period ns of its CPU time.
func (t *tracker) sampledAt(th *thread, now int64, period uint64) {
	th.periods += int64(period)
	th.lastSeen = now
}

// perTaskSampling reports whether samples are counted per task: switch
// records, none CPU-wide, a time-based event.
func (t *tracker) perTaskSampling() bool {
	return t.stats.Switches > 0 && t.stats.CPUWide == 0 && t.cfg.Gap > 0
}

// unsampledEnd tells th's time on CPU that its samples do not cover, up
// to now (its exit, or the trace's end): its time on CPU by its switch
// records less its samples' periods, when that is more than nothing, at
// its share of its group's time on CPU then. It goes in its group's
// split, and as a share at its last stack (or its name's) dated from its
// last sample (or its first run).
func (t *tracker) unsampledEnd(th *thread, now int64) {
	if th.on && !th.exited {
		t.unsampledOff(th, now)
	}
	cpu := th.runCPU - th.periods
	ran, wall, since := th.runCPU, th.runWall, th.lastSeen
	sampled := th.periods > 0
	th.runCPU, th.runWall, th.periods = 0, 0, 0
	if cpu <= 0 || ran <= 0 || !t.perTaskSampling() {
		return
	}
	wall *= float64(cpu) / float64(ran)
	a := &th.g.off
	if since <= 0 {
		since = th.firstOn
	}
	if since <= 0 || since > now {
		since = now
	}
	f := 1.0
	if now > since && (since < a.lo || now > a.hi) {
		// The splits count a window: the part of it in the window.
		f = float64(a.in(since, now)) / float64(now-since)
	}
	u := &a.split.Unsampled
	u.CPU += int64(float64(cpu) * f)
	u.Wall += int64(wall*f + 0.5)
	u.Threads++
	if !sampled {
		u.NoSample++
	}
	ref := th.lastRef
	if ref == OtherEvent {
		ref = th.switchRef
	}
	if w := int64(wall + 0.5); w > 0 {
		t.charge(th, Unsampled, w, since, now, ref)
	}
}

// unsampledAll tells every thread's time since its last sample at the
// trace's end (before the splits close), in tid order.
func (t *tracker) unsampledAll() {
	if !t.perTaskSampling() {
		return
	}
	ths := make([]*thread, 0, len(t.threads))
	for _, th := range t.threads {
		if th.runCPU > 0 || th.on {
			ths = append(ths, th)
		}
	}
	sort.Slice(ths, func(i, j int) bool { return ths[i].tid < ths[j].tid })
	for _, th := range ths {
		a := &th.g.off
		t.unsampledEnd(th, max(a.last, a.at))
	}
}
