package state

import "sort"

// This file ends a segment of the trace (order.go): the tracker's threads
// and groups are forgotten, what it knows of processes is kept, and each
// group's split is carried over to be summed with the next segments'.

// segments is the Model's part in segments: the order stage, and the
// splits of the segments before the current one, by group.
type segments struct {
	ord   orderStage
	prior map[int]Split
}

// arrive takes a record into the order stage, after the segment it ends
// if it steps back past records already passed on, and passes on those
// whose turn has come.
func (m *Model) arrive(e *Event, named bool) {
	if m.seg.ord.stepsBack(e) {
		m.seg.ord.step(e)
		m.endSegment()
	}
	if m.ahead && !m.cpuOnly { // (a CPU profile learns no process)
		// Look ahead: what a record says of processes is known before
		// the records before it count.
		m.hint(e)
		if m.treeComm != nil && named {
			m.findRoot(e)
		}
	}
	if m.seg.ord.through(e) && !m.scopePending {
		m.enter(e) // sorted text: nothing held, nothing to wait for
		return
	}
	m.seg.ord.put(e)
	m.pass(false)
}

// pass hands the records whose turn has come (all: every one held) on,
// once the scope is decided.
func (m *Model) pass(all bool) {
	o := &m.seg.ord
	for all || o.due() {
		if m.scopePending {
			if !all && m.undecided() {
				return
			}
			m.guessScope()
		}
		e := o.next(all)
		if e == nil {
			return
		}
		m.enter(e)
	}
}

// endSegment passes on every record held, ends the tracker's state as at
// the trace's end (its samples and shares released), keeps its splits and
// starts a fresh tracker that knows the same processes.
func (m *Model) endSegment() {
	m.pass(true)
	if m.scopePending {
		m.guessScope()
	}
	splits := m.t.finish()
	m.t.endTimeline()
	m.seg.carry(splits)
	m.t = m.t.nextSegment()
	m.seg.ord.reset()
}

// carry adds a segment's splits to the ones before: a group's span in
// the segment is from its first record to its last (a reused pid's
// splits cover the time between them, as the summary merges them).
func (s *segments) carry(splits []Split) {
	if len(splits) == 0 {
		return
	}
	if s.prior == nil {
		s.prior = map[int]Split{}
	}
	seg := map[int]Split{}
	for _, sp := range splits {
		if old, ok := seg[sp.Group]; ok {
			sp.First = min(sp.First, old.First)
			sp.Last = max(sp.Last, old.Last)
			sp.OnCPU += old.OnCPU
			sp.Runnable += old.Runnable
			sp.Blocked += old.Blocked
			sp.CPU += old.CPU
			sp.Unsampled = sp.Unsampled.Add(old.Unsampled)
		}
		seg[sp.Group] = sp
	}
	for key, sp := range seg {
		p := s.prior[key]
		p.Group = key
		p.Before += sp.Span()
		p.First, p.Last = sp.Last, sp.Last
		p.OnCPU += sp.OnCPU
		p.Runnable += sp.Runnable
		p.Blocked += sp.Blocked
		p.CPU += sp.CPU
		p.Unsampled = p.Unsampled.Add(sp.Unsampled)
		s.prior[key] = p
	}
}

// merge adds the earlier segments' splits to the last segment's, to each
// group's first split (a group of no record in the last segment gets one
// of its own), in group order.
func (s *segments) merge(splits []Split) []Split {
	if len(s.prior) == 0 {
		return splits
	}
	done := map[int]bool{}
	for i := range splits {
		sp := &splits[i]
		p, ok := s.prior[sp.Group]
		if !ok || done[sp.Group] {
			continue
		}
		done[sp.Group] = true
		sp.Before += p.Before
		sp.OnCPU += p.OnCPU
		sp.Runnable += p.Runnable
		sp.Blocked += p.Blocked
		sp.CPU += p.CPU
		sp.Unsampled = sp.Unsampled.Add(p.Unsampled)
	}
	for key, p := range s.prior {
		if !done[key] {
			splits = append(splits, p)
		}
	}
	sort.SliceStable(splits, func(i, j int) bool { return splits[i].Group < splits[j].Group })
	return splits
}

// nextSegment returns a tracker for the next segment: no threads, groups
// or gaps; the same setup, counts, wakers, processes, parents and tree.
func (t *tracker) nextSegment() *tracker {
	n := newTracker(t.cfg)
	n.forgetSoon = t.forgetSoon
	n.stats = t.stats
	n.wake = t.wake // the wakers are the whole trace's, as the splits
	n.pidOf = t.pidOf
	n.treeTrack = treeTrack{treeRoot: t.treeRoot, treeLate: t.treeLate, parent: t.parent, inTree: t.inTree}
	n.splitLo, n.splitHi = t.splitLo, t.splitHi
	return n
}

// endTimeline tells the timeline that the threads still on a CPU at the
// segment's end left it there (Options.Timeline).
func (t *tracker) endTimeline() {
	if t.cfg.OnTransition == nil {
		return
	}
	tids := make([]int, 0, len(t.threads))
	for tid, th := range t.threads {
		if th.on {
			tids = append(tids, tid)
		}
	}
	sort.Ints(tids)
	for _, tid := range tids {
		th := t.threads[tid]
		t.transition(th, max(th.g.off.last, th.g.off.at), false, OnCPU)
	}
}

// StepsBack returns how many records came later than time order allows
// (beyond the order stage's window, or past records already counted, or
// at time 0 after timed ones: a new segment each of the last two), and
// the latest of them: from the newest time seen back to its (0: a record
// at time 0). --strict makes one an error.
func (m *Model) StepsBack() (n int, from, to int64) {
	a := &m.seg.ord.acct
	return a.late + a.steps + a.restarts, a.from, a.to
}
