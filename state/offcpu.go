package state

import "sort"

// This file accounts for every instant of a group's span: on CPU (at least
// one of its threads runs), runnable or blocked (none runs; see Split).
//
// It follows the tracker's decisions as transitions of each thread
// between on and off CPU (runOn, runOff), at the time they took effect: a
// silence decided late is dated at the thread's last sign, a little in the
// past, and is clamped to the group's latest transition so that time only
// moves forward.
//
// While no thread of a group runs, its time is charged to the threads
// that are alive and off CPU (the off set), as the split names it: while
// some of them are runnable (preempted, forked and not yet run, woken and
// waiting for a CPU) the group waits for a CPU, and the stretch is divided
// equally among the runnable ones; while all are blocked it is divided
// equally among all. So a profile's [runnable] and [blocked] say what the
// split says: a thread asleep beside a preempted one waits for nothing
// while the group waits for a CPU. Rather than charging every member at
// every change, the group keeps two running integrals, cumRunnable =
// ∫ dt/runnable over its runnable stretches and cumBlocked = ∫ dt/|off
// set| over its blocked ones, and a member's share is the growth of its
// state's integral while it was in the set: O(1) per transition, whatever
// the number of sleeping threads. Idle time with an empty set (threads
// silent, not switched out; a thread not yet run) is charged as blocked to
// the next thread that runs.

// offHow says how a thread left its CPU.
type offHow uint8

const (
	offSilent   offHow = iota // no record said: silence, or state unknown
	offBlocked                // SWITCH OUT (or a CPU taken by another task)
	offRunnable               // SWITCH OUT preempt
	offGone                   // exited, or moved to another group
)

// splitTrack is the window the splits count (setSplitWindow) and the
// splits of groups already forgotten (KeepSplits).
type splitTrack struct {
	splitLo, splitHi int64
	splits           []Split
}

// offThread is a thread's part of its group's accounting. Each use of a
// field promoted from it costs the inliner a node: joinSet and charge,
// called at every switch, are kept just within its budget (exitTail,
// called only after an EXIT, is not inlined).
// Its on, inSet and offState are the thread's (their one word).
type offThread struct {
	joinCum           float64 // its state's integral when it joined the set
	onSince, offSince int64
	// Stacks for off-CPU time: the last sample's, the block stack of the
	// coming or last switch-out, the switch record's, the one in use.
	lastRef, blockRef, switchRef, offRef int
}

// offAcct is a group's accounting.
type offAcct struct {
	started     bool
	first, last int64 // the group's first and last records (time > 0)
	at          int64 // latest transition (the clamp)
	running     int   // threads on CPU
	onSince     int64 // when running last became > 0
	idleSince   int64 // the integrals are up to date to here (running == 0)
	cumRunnable float64
	cumBlocked  float64
	set         int // threads in the off set
	nRunnable   int // of which runnable
	orphan      int64
	orphanIn    int64   // of which in the window
	onCum       float64 // ∫ dt/running while on CPU, to onAt (unsampled.go)
	onAt        int64
	setAt       int64 // the off set's latest change
	split       Split
	// The split counts only [lo, hi] (Options.SplitWindow).
	lo, hi int64
}

// in returns the part of [from, to] in the split's window.
func (a *offAcct) in(from, to int64) int64 {
	from, to = max(from, a.lo), min(to, a.hi)
	if to < from {
		return 0
	}
	return to - from
}

// touch notes a record of the group at now.
func (a *offAcct) touch(now int64) {
	if now <= 0 {
		return // perf's synthesized records
	}
	if !a.started {
		a.started = true
		a.first, a.last, a.at, a.idleSince = now, now, now, now
		return
	}
	if now > a.last {
		a.last = now
	}
}

// clamp dates a transition no earlier than the group's latest one.
func (a *offAcct) clamp(at int64) int64 {
	if !a.started {
		return at
	}
	if at < a.at {
		return a.at
	}
	a.at = at
	return at
}

// update brings the idle integral up to at.
func (a *offAcct) update(at int64) {
	if a.running > 0 || !a.started || at <= a.idleSince {
		return
	}
	dt, din := at-a.idleSince, a.in(a.idleSince, at)
	a.idleSince = at
	switch {
	case a.set == 0:
		a.orphan += dt
		a.orphanIn += din
	case a.nRunnable > 0:
		a.cumRunnable += float64(dt) / float64(a.nRunnable)
		a.split.Runnable += din
	default:
		a.cumBlocked += float64(dt) / float64(a.set)
		a.split.Blocked += din
	}
}

// cum is the integral a thread in state s shares.
func (a *offAcct) cum(s State) float64 {
	if s == Runnable {
		return a.cumRunnable
	}
	return a.cumBlocked
}

// runOn notes that th is on a CPU from at on.
func (t *tracker) runOn(th *thread, at int64) {
	a := &th.g.off
	a.touch(at)
	if th.exited {
		t.exitTail(th, at, true, offGone) // an exited task on its CPU
		return
	}
	if th.on {
		return
	}
	at = a.clamp(at)
	a.update(at)
	if th.inSet {
		t.leaveSet(th)
	}
	t.unsampledOn(th, at)
	if a.running == 0 {
		if a.orphan > 0 {
			// Idle with nobody known to wait: the thread that ends it.
			t.charge(th, Blocked, a.orphan, a.idleSince-a.orphan, a.idleSince, th.stackRef())
			a.split.Blocked += a.orphanIn
			a.orphan, a.orphanIn = 0, 0
		}
		a.onSince = at
	}
	a.running++
	th.on = true
	th.onSince = at
	th.blockRef = OtherEvent // a block stack is for the next switch-out
	t.transition(th, at, true, OnCPU)
}

// transition tells the timeline (Options.Timeline) that th went on or
// off its CPU at at; off: Blocked or Runnable when a record said which,
// else OnCPU (gone, or silent).
func (t *tracker) transition(th *thread, at int64, on bool, s State) {
	if t.cfg.OnTransition != nil && !t.outsideTree(th.g) {
		t.cfg.OnTransition(Transition{Time: at, Group: th.g.key, PID: th.pid, TID: th.tid, On: on, State: s, Ref: th.lastRef})
	}
}

// offState is the timeline's state of a thread that left its CPU how.
func offState(how offHow) State {
	switch how {
	case offBlocked:
		return Blocked
	case offRunnable:
		return Runnable
	}
	return OnCPU
}

// runOff notes that th left its CPU at at, how.
func (t *tracker) runOff(th *thread, at int64, how offHow) {
	a := &th.g.off
	said := how
	if th.exited && how != offGone {
		how = offGone // after its EXIT a task waits in no set but as exitTail says
	}
	if !th.on {
		// Already off: a record now says how (after a silence), or that
		// it is gone.
		switch {
		case how == offGone && th.inSet:
			a.update(a.clamp(at))
			t.leaveSet(th)
		case (how == offBlocked || how == offRunnable) && !th.inSet:
			at = a.clamp(at)
			a.update(at)
			t.joinSet(th, at, how)
			t.transition(th, at, false, offState(how))
		}
		if th.exited {
			t.exitTail(th, at, false, said)
		}
		return
	}
	at = a.clamp(at)
	t.unsampledOff(th, at)
	th.on = false
	a.split.CPU += a.in(th.onSince, at)
	a.running--
	if a.running == 0 {
		a.split.OnCPU += a.in(a.onSince, at)
		a.idleSince = at
	}
	if how == offBlocked || how == offRunnable {
		t.joinSet(th, at, how)
	}
	t.transition(th, at, false, offState(how))
}

// exitRun is what a thread does after its EXIT (exitTail): exitAt, and
// thread.exitOff, switched out since its EXIT (or its last IN).
type exitRun struct {
	exitAt int64 // EXIT, then each record after it
}

// exitTail notes a record at at of a thread after its EXIT (on: an IN or
// a sample; else a switch-out, how). In CPU-wide traces the task keeps
// its CPU a while (tearing down its memory), is sampled, may be
// preempted (OUT preempt) and switched in again, and is switched out at
// last. It is on CPU for the split from its EXIT, or an IN, to its next
// switch-out (taken back from the idle accounting: ranThrough); while
// preempted it waits for a CPU (runnable, in the off set); its last OUT
// ends it.
func (t *tracker) exitTail(th *thread, at int64, on bool, how offHow) {
	if !th.exitOff {
		t.ranThrough(th, th.exitAt, at)
	}
	th.exitAt = max(th.exitAt, at)
	if on == !th.exitOff {
		return
	}
	th.exitOff = !on
	a := &th.g.off
	switch {
	case on && th.inSet:
		a.update(a.clamp(at))
		t.leaveSet(th)
	case !on && how == offRunnable:
		at = a.clamp(at)
		a.update(at)
		t.joinSet(th, at, how)
	}
}

// ranThrough notes that th, off CPU for the split since prev (and in no
// off set), in fact ran until at: an exit's tail, or a loss of its records
// (lost.go). Its CPU time counts, and the group's idle stretch since prev
// becomes on CPU: it is taken back from the idle accounting as far back
// as the off set has not changed (the integral holds no more). Time that
// others' shares took before that stays theirs.
func (t *tracker) ranThrough(th *thread, prev, at int64) {
	a := &th.g.off
	if at <= prev {
		return
	}
	a.split.CPU += a.in(prev, at)
	if a.running > 0 {
		return // the group was on CPU anyway
	}
	lo := max(prev, a.idleSince, a.setAt)
	a.update(at)
	if lo >= at {
		return
	}
	d, din := at-lo, a.in(lo, at)
	switch {
	case a.set == 0:
		d, din = min(a.orphan, d), min(a.orphanIn, din)
		a.orphan -= d
		a.orphanIn -= din
	case a.nRunnable > 0:
		a.cumRunnable -= float64(d) / float64(a.nRunnable)
		a.split.Runnable -= din
	default:
		a.cumBlocked -= float64(d) / float64(a.set)
		a.split.Blocked -= din
	}
	a.split.OnCPU += din
}

func (t *tracker) joinSet(th *thread, at int64, how offHow) {
	a, o := &th.g.off, &th.offThread // o: fewer nodes for the inliner
	th.inSet = true
	th.offState, o.joinCum = Blocked, a.cumBlocked
	if how == offRunnable {
		th.offState, o.joinCum = Runnable, a.cumRunnable
		a.nRunnable++
	}
	o.offSince, a.setAt = at, at
	o.offRef = o.stackRef()
	a.set++
}

// leaveSet charges th its share of the idle time while it was in the set
// (update first).
func (t *tracker) leaveSet(th *thread) {
	a := &th.g.off
	th.inSet = false
	a.set--
	a.setAt = a.at
	if th.offState == Runnable {
		a.nRunnable--
	}
	if ns := int64(a.cum(th.offState) - th.joinCum + 0.5); ns > 0 {
		end := a.idleSince // the last idle moment it shared
		if a.running > 0 {
			end = a.onSince
		}
		t.charge(th, th.offState, ns, th.offSince, max(end, th.offSince), th.offRef)
	}
}

// stackRef is the stack a thread's off-CPU time is charged to: its block
// stack at the switch-out, else its last sample's, else its switch's.
func (o *offThread) stackRef() int {
	switch {
	case o.blockRef != OtherEvent:
		return o.blockRef
	case o.lastRef != OtherEvent:
		return o.lastRef
	}
	return o.switchRef
}

// blockStack notes the stack where th leaves (or just left) its CPU.
func (t *tracker) blockStack(th *thread, ref int) {
	th.blockRef = ref
	if th.inSet {
		th.offRef = ref
	}
}

// charge gives th a share of ns of off-CPU time, taken between since and
// end.
func (t *tracker) charge(th *thread, s State, ns, since, end int64, ref int) {
	if t.cfg.ReleaseOff != nil {
		t.cfg.ReleaseOff(th, s, ns, since, end, ref)
	}
}

// closeSplit ends a group's accounting at its last record: its members
// (threads still on CPU or waiting) ran, or waited, to it.
func (t *tracker) closeSplit(g *group, members []*thread) Split {
	a := &g.off
	end := a.last
	if end < a.at {
		end = a.at
	}
	if a.running > 0 {
		a.split.OnCPU += a.in(a.onSince, end)
		a.onSince = end
	} else {
		a.update(end)
	}
	sort.Slice(members, func(i, j int) bool { return members[i].tid < members[j].tid })
	for _, th := range members {
		if th.on {
			a.split.CPU += a.in(th.onSince, end)
			th.onSince = end
		}
		if th.inSet {
			t.leaveSet(th)
		}
	}
	a.orphan, a.orphanIn = 0, 0
	s := a.split
	s.Group, s.First, s.Last = g.key, max(a.first, a.lo), min(a.last, a.hi)
	if s.Last < s.First {
		s.Last = s.First
	}
	return s
}

// closeSplits ends every group's accounting (after flush), the tree's
// only in tree scope, in group order.
func (t *tracker) closeSplits() []Split {
	members := map[*group][]*thread{}
	for _, th := range t.threads {
		if th.inSet || th.on {
			members[th.g] = append(members[th.g], th)
		}
	}
	out := t.splits
	gs := t.allGroups()
	sort.Slice(gs, func(i, j int) bool { return gs[i].key < gs[j].key }) // shares in a fixed order
	for _, g := range gs {
		if g != t.outside {
			out = append(out, t.closeSplit(g, members[g]))
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Group < out[j].Group })
	return out
}

// setSplitWindow makes the splits count only [lo, hi] of the trace.
func (t *tracker) setSplitWindow(lo, hi int64) {
	t.splitLo, t.splitHi = lo, hi
	for _, g := range t.allGroups() {
		g.off.lo, g.off.hi = lo, hi
	}
}
