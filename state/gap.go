package state

import "math"

// This file decides running gaps (a thread taken as running from a sign of
// life to its next one, or stopped after silence; see the package doc)
// and releases the samples the decided gaps cover.

// runGap is a thread's running state: per its last record, and the
// running gap since its last sign while it is undecided.
type runGap struct {
	cpu         int    // CPU it runs on, when known
	segSeq      uint64 // first sample seq the gap covers
	segTime     int64  // the sign that opened the gap
	segGen      uint32
	running     bool // per the last record: on a CPU
	segOpen     bool // an undecided running gap starts at segTime
	committed   bool // records-only mode: +1 already added at segSeq
	splitOff    bool // the split has taken the open gap as silent
	segBySample bool // the open gap's sign is a sample (not an IN)
	// spinning: its last sample was a spin-wait (Event.Spin), and no
	// switch or exit came since. segSpin: the open gap is spinning, as
	// the thread was when it began, or as the sample that ends it says.
	// A spinning gap counts apart (pending.spinDiff): it does not add to
	// the others' parallelism.
	spinning, segSpin bool
}

// openSeg is an entry of an open-gap list (group.open, tracker.exp): th's
// gap number gen. Deciding a gap leaves its entries in place; they are
// skipped when they reach a list's head.
type openSeg struct {
	th  *thread
	gen uint32
}

// live reports whether the gap is still open (not decided since).
func (o openSeg) live() bool { return o.th.segOpen && o.th.segGen == o.gen }

// pending is a queued sample and its entry of the difference array.
type pending struct {
	s        sample
	diff     int64 // in units of 1/parOne of a thread
	spinDiff int64 // the same, of spinning threads
}

// setGap sets the silence limit once it is known (from the first sample's
// event and period). With 0, open gaps are committed as running.
func (t *tracker) setGap(gap int64) {
	t.cfg.Gap = gap
	if gap != 0 {
		return
	}
	for _, g := range t.allGroups() {
		for ; g.open.len() > 0; g.open.pop() {
			if o := *g.open.at(0); o.live() {
				t.commit(o.th)
			}
		}
		t.drain(g)
	}
}

// advance moves the clock to now and decides the gaps overdue then.
func (t *tracker) advance(now int64) {
	// The clock follows the records, not their maximum: one wild
	// timestamp must not make every later gap overdue. A step back longer
	// than the silence limit ends every open gap: nothing is known across
	// it. (The Model hands records over in time order, and starts a new
	// segment, with a new tracker, where they step back: order.go.)
	back := t.now - now
	t.now = now
	if t.cfg.Gap > 0 && back > t.cfg.Gap {
		t.discontinuity()
	}
	t.reap()
	t.forgetQuiet()
	if t.cfg.Gap <= 0 {
		return
	}
	// Gaps open in time order, so the oldest is overdue first. The split
	// hears of a silence at the silence limit (its transitions must come
	// in time order); the parallelism is decided later, when no LOST
	// record can explain the silence any more (or at the rate limit).
	for t.esplit < t.exp.len() {
		o := *t.exp.at(t.esplit)
		if o.live() {
			if t.now-o.th.segTime <= t.cfg.Gap {
				break
			}
			t.splitSilent(o.th)
		}
		t.esplit++
	}
	for t.exp.len() > 0 {
		o := *t.exp.at(0)
		if !o.live() {
			t.popExp()
			continue
		}
		limit := t.cfg.Gap + lossHold // a LOST record may yet say why it was silent
		if t.rateMode() {
			limit = t.rateLimit()
		}
		if t.now-o.th.segTime <= limit || t.quietThrough(o.th, t.now) {
			break // a quiet silence waits for the thread's next sign (stall.go)
		}
		// Silent too long: it stopped at its last sign.
		o.th.segOpen = false
		o.th.running = false
		t.splitSilent(o.th)
		t.cooling(o.th, o.th.segTime)
		t.stats.SilentStops++
		t.popExp()
		t.drain(o.th.g)
	}
}

// popExp drops exp's oldest entry (no pointer stays to a thread that may
// be forgotten).
func (t *tracker) popExp() {
	t.exp.pop()
	t.esplit = max(t.esplit-1, 0)
}

// discontinuity decides every open gap as "stopped at its last sign".
func (t *tracker) discontinuity() {
	t.stats.Discontinuities++
	t.endGaps(true)
}

// endGaps ends every open gap at its last sign (nothing is known past
// it; stop: the thread is not running either) and releases the samples
// that waited for them.
func (t *tracker) endGaps(stop bool) {
	for ; t.exp.len() > 0; t.exp.pop() {
		if o := *t.exp.at(0); o.live() {
			o.th.segOpen = false
			if stop {
				o.th.running = false
				t.cooling(o.th, t.now)
			}
			t.splitSilent(o.th)
		}
	}
	t.esplit = 0
	for _, g := range t.allGroups() {
		t.drain(g)
	}
}

// parOne is one thread in the difference array: fixed point, so that a
// gap's +w and -w cancel exactly (in float64 a rate estimate's fractions
// left 1e-16 behind, and integer counts with switch records were no
// longer exact).
const parOne = 1 << 32

// addAt adds d to the diff (spin: the spinning threads' diff) of sample
// seq s in g.
func (g *group) addAt(s uint64, d int64, spin bool) {
	if s >= g.seq {
		if spin {
			g.spinTail += d
		} else {
			g.tail += d
		}
		return
	}
	if p := g.q.at(int(s - g.base)); spin {
		p.spinDiff += d
	} else {
		p.diff += d
	}
}

// enqueue appends s to the queue with the diffs waiting for it.
func (g *group) enqueue(s sample) {
	g.q.push(pending{s: s, diff: g.tail, spinDiff: g.spinTail})
	g.tail, g.spinTail = 0, 0
	g.seq++
}

// commit adds the running thread's +1 from its gap start on, for good.
func (t *tracker) commit(th *thread) {
	th.g.addAt(th.segSeq, parOne, th.segSpin)
	th.segOpen = false
	th.committed = true
}

// stop ends a thread's running state at a sign that says how.
func (t *tracker) stop(th *thread, now int64, how offHow) {
	t.closeGap(th, now)
	t.runOff(th, now, how)
	th.running, th.spinning = false, false
	if th.cpu >= 0 && t.cpuCur[th.cpu] == th {
		delete(t.cpuCur, th.cpu)
	}
	t.cooling(th, now)
}

// closeGap decides the thread's open gap at a new sign at time now.
func (t *tracker) closeGap(th *thread, now int64) {
	g := th.g
	if th.committed {
		g.addAt(g.seq, -parOne, th.segSpin)
		th.committed = false
		return
	}
	if !th.segOpen {
		return
	}
	th.segOpen = false
	if t.cfg.Gap > 0 && now-th.segTime > t.cfg.Gap {
		t.splitSilent(th) // the split takes it as off since its last sign
		if t.ranThroughLoss(th, th.segTime, now) {
			t.stats.Bridged++ // its records were lost, not its CPU
			// It counts for the others as much as it ran (lossRun).
			w := int64(parOne * (float64(t.lossRun(th, th.segTime, now)) / float64(now-th.segTime)))
			g.addAt(th.segSeq, w, th.segSpin)
			g.addAt(g.seq, -w, th.segSpin)
			// The split took it as off since its last sign: it ran.
			t.ranThrough(th, th.segTime, now)
			th.splitOff = false
			t.lostTime(th, th.segTime, now)
			return
		}
		if t.stalledThrough(th, now) {
			return // nothing else was printed: it ran on (stall.go)
		}
	}
	limit, w := t.cfg.Gap, int64(parOne)
	if t.rateMode() {
		// No switch records: a thread sampled every period of its CPU
		// time ran P of the gap between two of its samples, on average:
		// it counts P/gap (at most 1) throughout.
		limit = t.rateLimit()
		w = int64(parOne * min(1, float64(t.cfg.Gap/silencePeriods)/float64(max(now-th.segTime, 1))))
	}
	if t.cfg.Gap > 0 && now-th.segTime > limit {
		t.stats.SilentStops++
		return // silent too long: not running in between
	}
	g.addAt(th.segSeq, w, th.segSpin)
	g.addAt(g.seq, -w, th.segSpin)
}

// rateMode reports the rate estimate: no switch records so far, a
// time-based event.
func (t *tracker) rateMode() bool { return t.cfg.Rate && t.stats.Switches == 0 && t.cfg.Gap > 0 }

// rateLimit is how long a gap between a thread's samples may be in the
// rate estimate: a worker that runs 50 µs every 20 ms is sampled every
// 400 ms, and counts 1/400 of a thread meanwhile. Samples wait up to this
// long (in trace time) for their parallelism.
func (t *tracker) rateLimit() int64 { return rateLimitPeriods * t.cfg.Gap / silencePeriods }

// splitSilent tells the split that th has been off its CPU since its
// last sign (once per gap).
func (t *tracker) splitSilent(th *thread) {
	if !th.splitOff {
		th.splitOff = true
		t.runOff(th, th.segTime, offSilent)
	}
}

// start opens a running gap at time now, covering later samples.
func (t *tracker) start(th *thread, now int64) {
	th.splitOff, th.segBySample = false, false
	t.runOn(th, now)
	th.running = true
	g := th.g
	th.segSeq = g.seq
	th.segTime = now
	th.segSpin = th.spinning
	t.markQuiet(th)
	if t.cfg.Gap == 0 {
		t.commit(th)
		return
	}
	th.segGen++
	th.segOpen = true
	g.open.push(openSeg{th, th.segGen})
	t.exp.push(openSeg{th, th.segGen})
}

// onCPU notes that th runs on cpu; another thread seen there before has
// left it even if its SWITCH OUT was lost.
func (t *tracker) onCPU(th *thread, cpu int, now int64) {
	if cpu < 0 {
		return
	}
	if cur := t.cpuCur[cpu]; cur != nil && cur != th && cur.running && cur.cpu == cpu && !t.rateMode() {
		t.stats.ImplicitOuts++
		t.stop(cur, now, offBlocked)
		t.drain(cur.g)
	}
	t.cpuCur[cpu] = th
	th.cpu = cpu
}

// drain releases the samples no open gap can still cover.
func (t *tracker) drain(g *group) {
	for {
		// Skip decided entries at the head of the open list (also with no
		// sample waiting: a group with switches but no samples must not
		// pile them up).
		for g.open.len() > 0 {
			if o := g.open.at(0); o.live() && o.th.g == g {
				break
			}
			g.open.pop() // no pointer stays to a thread that may be forgotten
		}
		if g.q.len() == 0 {
			break
		}
		if g.open.len() > 0 && g.open.at(0).th.segSeq <= g.base {
			break
		}
		p := g.q.at(0)
		g.acc += p.diff
		g.spinAcc += p.spinDiff
		par := float64(g.acc)/parOne + 1
		s := p.s
		if s.Spin {
			par = spinDivisor(float64(g.acc)/parOne, float64(g.spinAcc)/parOne)
		}
		if t.lostAt != nil { // sums for a loss's parallelism (lost.go)
			if len(g.marks) > 0 {
				g.releasedSums(g.base)
			}
			if s.Lost {
				par = g.lossParallelism(g.base, par)
			} else {
				g.relN++
				g.relInv += 1 / par
			}
		}
		g.q.pop()
		g.base++
		t.cfg.Release(s, par, g)
	}
}

// running is the threads of g running at the moment of the sample just
// released, spinners and its own included (a spinning sample's
// Weighted.Parallelism).
func (g *group) running() float64 {
	return float64(g.acc)/parOne + 1 + float64(g.spinAcc)/parOne
}

// spinDivisor is what a spinning thread's sample is divided by, with
// others (not spinning) and spinners (besides its own) running: while
// another thread works, spinning is waiting and weighs nothing (+Inf);
// while only spinners run, they share the moment. Fractions (the rate
// estimate) weigh what is left of the moment after the others' work.
func spinDivisor(others, spinners float64) float64 {
	if others >= 1 {
		return math.Inf(1)
	}
	return (spinners + 1) / (1 - others)
}
