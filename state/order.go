package state

import (
	"fmt"
	"strings"
)

// This file puts records in time order before the tracker sees them, and
// starts a new segment of the trace where that cannot be done.
//
// perf script prints records sorted by time, but with --show-round-events
// it prints them in the order perf record wrote them: pass after pass over
// the CPUs' ring buffers, one CPU's records after another's, so that a
// CPU's records come up to a whole pass (1.0-1.8 s measured system-wide,
// 10 s per-task) after later records of other CPUs. perf sorts them by a
// rule on the ends of passes, which that option prints too
// (PERF_RECORD_FINISHED_ROUND): when a pass ends, every record up to the
// latest time seen when the pass before it ended has come. The order stage
// follows that rule once the text has shown a round record; before, it
// holds each record until a record orderWindow later has come. In process
// and tree scope it is also the Model's look-ahead: records wait there
// (at least Options.Lookahead) after the Model learnt what they say of
// processes.
//
// A record earlier than one already passed on cannot be put in order
// (traces concatenated; two traces' records interleaved, once the stage
// is full): it starts a new segment, as does a record at time 0 after
// timed ones (perf script prints its synthesized records at 0.000000
// only at its start: another trace begins). The tracker ends every thread's
// state there (its open gaps, its off-CPU shares), and what each group
// said of its span is summed over the segments (Split.Before), so that
// wall <= span and, with off-CPU time, total = span hold in each segment
// and over all.

// orderWindow is how long (trace time) a record waits for earlier ones
// when the text has shown no round record: longer than the disorder
// measured before a system-wide trace's first round record (33-88 ms),
// shorter than any real trace, so that a concatenation is told.
const orderWindow = 250e6

// sortedAfter is how long (trace time) text in time order, with no round
// record, goes before the stage takes it as perf's sorted output and
// stops holding records (in workload scope; process scope still looks
// ahead): round-order text is out of order within its first pass (1.0 to
// 1.8 s of records system-wide), and holding every record of a sorted
// trace cost 14 % of a run's CPU time (measured). A record out of order
// later starts a new segment, which holds records again. It takes
// sortedRecords records too: one far-off time is no evidence.
const (
	sortedAfter   = 4e9
	sortedRecords = 1 << 16
)

// orderMax bounds the records the order stage holds by perf's rule: past
// it the earliest goes on before its time (round-order traces held at
// most 15,182 records; a busier machine writes shorter rounds).
const orderMax = 1 << 17

// windowMax bounds them before any round record: text in perf's own
// order needs no wait, and a busy machine's window of records must stay
// small (0.3 MB) to cost little.
const windowMax = 1 << 11

// held is a record waiting in the order stage (its Name and Comm not
// kept: they are valid only during Add), and its place in input order.
type held struct {
	e   heldEvent
	seq uint64
}

// orderStage holds records until every earlier one has come.
type orderStage struct {
	run    heldRing  // records that came in time order, oldest first
	late   []lateKey // the others: a min-heap by (time, seq)
	slots  []held    // their records, by lateKey.slot
	free   []int32
	seq    uint64
	window int64
	// delay: in process and tree scope records wait this long at least
	// (Model's look-ahead), and up to lookaheadMax of them.
	delay int64
	// bound: records up to it may go (by the window and delay, or
	// perf's rule); limit: past this many held, the earliest goes anyway.
	bound, limit int64
	newest       int64 // the latest time come in (this segment)
	passed       int64 // the time of the latest record passed on
	anyOut       bool  // a record has been passed on this segment
	forced       bool  // one was passed on early, the stage full (this segment)
	rounds       bool  // round records seen: perf's rule
	sortedText
	// roundPrev is the newest time when the latest round record came;
	// roundFlush the one before: records up to it may go.
	roundPrev, roundFlush int64
	acct                  orderAcct
	out                   Event // the record next returned
}

// sortedText is what the stage knows of text in perf's sorted order:
// sorted once sortedAfter and sortedRecords of records came in time
// order from start (the segment's first timed record; startSeq its
// record) with no round record; the window in force (wait) is then 0.
type sortedText struct {
	sorted   bool
	start    int64
	startSeq uint64
	wait     int64 // the window in force: window, or 0 once sorted
}

// lateKey is a record of orderStage.late.
type lateKey struct {
	time int64
	seq  uint64
	slot int32
}

// orderAcct counts what the order stage had to do, for the warning.
type orderAcct struct {
	late   int   // records that came beyond the window but were put in order
	lateBy int64 // how far behind the newest, at most
	steps  int   // steps back past records already passed on: new segments
	stepBy int64
	// restarts: records at time 0 after timed ones (another trace's
	// start): new segments too
	restarts int
	// from and to: the latest step, newest time to the record's
	from, to int64
	full     int // steps after the full stage passed records on early
	// early: late records and steps before the text's first round record
	early int
}

// stepsBack reports whether e starts a new segment: it comes before a
// record already passed on (it cannot be put in order), or it is a record
// at time 0 after timed ones (perf script prints its synthesized records
// at 0.000000 only at the start of its output: another trace begins).
func (o *orderStage) stepsBack(e *Event) bool {
	if e.Time <= 0 {
		return o.newest > 0
	}
	return o.anyOut && e.Time < o.passed
}

// lookAhead sets the Model's look-ahead: with ahead, records wait delay
// at least.
func (o *orderStage) lookAhead(ahead bool, delay int64) {
	o.delay = 0
	if ahead {
		o.delay = delay
	}
	o.setBound()
}

// setBound sets bound and limit from the newest time and the rules.
func (o *orderStage) setBound() {
	o.limit = windowMax
	if o.rounds {
		o.limit = orderMax
	}
	if o.delay > 0 {
		o.limit = max(o.limit, lookaheadMax)
	}
	o.wait = o.window
	if o.sorted && !o.rounds {
		o.wait, o.limit = 0, 0
		if o.delay > 0 {
			o.limit = lookaheadMax
		}
	}
	if o.rounds {
		o.bound = min(o.roundFlush, o.newest-o.delay)
		return
	}
	o.bound = o.newest - max(o.wait, o.delay)
}

// checkSorted closes the window once the text has come in time order
// for sortedAfter.
func (o *orderStage) checkSorted() {
	if o.start == 0 {
		o.start, o.startSeq = o.newest, o.seq
	}
	if !o.rounds && o.acct.late == 0 && o.newest-o.start >= sortedAfter && o.seq-o.startSeq >= sortedRecords {
		o.sorted = true
		o.setBound()
	}
}

// full reports whether the stage holds its most.
func (o *orderStage) full() bool { return int64(o.run.size+len(o.late)) >= o.limit }

// put takes a record in: the common case (no earlier one waiting) at the
// end of run.
func (o *orderStage) put(e *Event) {
	k := e.Time // a record at time 0 comes only before timed ones (stepsBack)
	if o.beyond(k) {
		o.noteEarly()
		o.acct.late++
		o.acct.lateBy = max(o.acct.lateBy, o.newest-k)
		o.acct.from, o.acct.to = o.newest, k
	}
	o.seq++
	if o.run.size == 0 || k >= o.run.lastTime {
		h := o.run.add(o.limit)
		h.e.from(e)
		h.seq = o.seq
		o.run.lastTime = k
	} else {
		o.pushLate(e, o.seq)
	}
	if k > o.newest {
		o.newest = k
		if o.rounds {
			o.bound = min(o.roundFlush, k-o.delay)
		} else {
			o.bound = k - max(o.wait, o.delay)
		}
		if !o.sorted {
			o.checkSorted()
		}
	}
}

// through takes e past the stage when the text is sorted and nothing is
// held (a copy in and out of the ring saved per record): it reports
// whether it did.
func (o *orderStage) through(e *Event) bool {
	if !o.sorted || o.rounds || o.delay > 0 || o.run.size > 0 || len(o.late) > 0 || e.Time < o.newest {
		return false
	}
	o.seq++
	o.newest, o.bound = e.Time, e.Time
	o.passed, o.anyOut = e.Time, true
	return true
}

// due reports whether the earliest record held may go, or next must
// decide (the common case, records in time order, inlined).
func (o *orderStage) due() bool {
	if len(o.late) > 0 {
		return true
	}
	if o.run.size == 0 {
		return false
	}
	t := o.run.buf[o.run.head].e.Time
	return t <= o.bound || t <= 0 || int64(o.run.size) > o.limit
}

// beyond reports whether a record at k came later than the stage waits:
// behind the newest by more than the window, or behind perf's rule.
func (o *orderStage) beyond(k int64) bool {
	if o.rounds {
		return k < o.roundFlush
	}
	return k < o.newest-o.window
}

// round notes a round record: records up to the newest time at the round
// record before may go.
func (o *orderStage) round() {
	o.rounds = true
	o.roundFlush, o.roundPrev = o.roundPrev, o.newest
	o.setBound()
}

// next returns the earliest record if it may go (all: every one may), or
// nil. The record is valid until the next put.
func (o *orderStage) next(all bool) *Event {
	n := o.run.size + len(o.late)
	if n == 0 {
		return nil
	}
	fromRun := len(o.late) == 0 ||
		o.run.size > 0 && before(o.run.first().e.Time, o.run.first().seq, o.late[0].time, o.late[0].seq)
	var t int64
	if fromRun {
		t = o.run.first().e.Time
	} else {
		t = o.late[0].time
	}
	switch {
	case all || t <= o.bound || t <= 0: // untimed, before any time
	case int64(n) > o.limit:
		o.forced = true
	default:
		return nil
	}
	o.passed, o.anyOut = t, true
	if fromRun {
		o.run.pop().e.into(&o.out)
	} else {
		o.popLate().e.into(&o.out)
	}
	return &o.out
}

func before(et int64, seq uint64, t int64, tseq uint64) bool {
	return et < t || et == t && seq < tseq
}

// reset begins a new segment: the stage is empty (next(true) gave all).
func (o *orderStage) reset() {
	o.newest, o.passed, o.anyOut, o.forced = 0, 0, false, false
	o.roundPrev, o.roundFlush = 0, 0
	o.sorted, o.start = false, 0
	o.setBound()
	if cap(o.slots) > 1024 {
		o.slots, o.free = nil, nil // a full stage's memory goes
	}
}

// step counts a step back to e, which begins a new segment.
func (o *orderStage) step(e *Event) {
	o.noteEarly()
	if o.forced {
		o.acct.full++
	}
	o.acct.from, o.acct.to = o.newest, max(e.Time, 0)
	if e.Time <= 0 {
		o.acct.restarts++
		return
	}
	o.acct.steps++
	o.acct.stepBy = max(o.acct.stepBy, o.newest-e.Time)
}

// noteEarly counts a record out of order before any round record.
func (o *orderStage) noteEarly() {
	if !o.rounds {
		o.acct.early++
	}
}

// warning says what the stage did, if it did more than wait.
func (o *orderStage) warning() string {
	a := &o.acct
	if a.steps == 0 && a.late == 0 && a.restarts == 0 {
		return ""
	}
	rule := fmt.Sprintf("a %.0f ms window", float64(o.window)/1e6)
	if o.rounds {
		rule = "perf's rule on its PERF_RECORD_FINISHED_ROUND records"
	}
	var parts []string
	if a.late > 0 {
		parts = append(parts, fmt.Sprintf("%d came later than %s allows, up to %.3f s behind the latest, and were put in order", a.late, rule, float64(a.lateBy)/1e9))
	}
	if a.steps > 0 {
		p := fmt.Sprintf("time stepped back %d time(s) past records already counted, by up to %.3f s", a.steps, float64(a.stepBy)/1e9)
		if a.full > 0 {
			p += fmt.Sprintf(" (%d of them after the full ordering stage had passed records on early)", a.full)
		}
		parts = append(parts, p)
	}
	if a.restarts > 0 {
		parts = append(parts, fmt.Sprintf("another trace began %d time(s) (records at 0.000000, perf's synthesized ones, after timed ones)", a.restarts))
	}
	if a.steps+a.restarts > 0 {
		parts = append(parts, "each starts a new segment, in which every thread's state begins afresh (spans are summed over the segments)")
	}
	s := "records are not one trace in time order: " + strings.Join(parts, "; ")
	if o.rounds && a.early > 0 {
		// perf record wrote its first round record late (per-task: after
		// 10 s of records, measured).
		return s + fmt.Sprintf(": %d of them came before the first PERF_RECORD_FINISHED_ROUND, when perf's rule could not be known yet; perf script without --show-round-events prints the records in order", a.early)
	}
	return s + ": were traces concatenated or interleaved? give wallfold one perf script output, in its own order (with --show-round-events, keep its PERF_RECORD_FINISHED_ROUND lines)"
}

// pushLate adds a record to the heap.
func (o *orderStage) pushLate(e *Event, seq uint64) {
	var slot int32
	if n := len(o.free); n > 0 {
		slot = o.free[n-1]
		o.free = o.free[:n-1]
	} else {
		slot = int32(len(o.slots))
		o.slots = append(o.slots, held{})
	}
	h := &o.slots[slot]
	h.e.from(e)
	h.seq = seq
	o.late = append(o.late, lateKey{time: e.Time, seq: seq, slot: slot})
	for i := len(o.late) - 1; i > 0; {
		p := (i - 1) / 2
		if !o.less(i, p) {
			break
		}
		o.late[i], o.late[p] = o.late[p], o.late[i]
		i = p
	}
}

// popLate removes the heap's earliest record and returns it.
func (o *orderStage) popLate() *held {
	top := o.late[0]
	n := len(o.late) - 1
	o.late[0] = o.late[n]
	o.late = o.late[:n]
	for i := 0; ; {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && o.less(c+1, c) {
			c++
		}
		if !o.less(c, i) {
			break
		}
		o.late[i], o.late[c] = o.late[c], o.late[i]
		i = c
	}
	o.free = append(o.free, top.slot)
	return &o.slots[top.slot]
}

func (o *orderStage) less(i, j int) bool {
	a, b := o.late[i], o.late[j]
	return a.time < b.time || a.time == b.time && a.seq < b.seq
}

// heldRing is a FIFO of held records.
type heldRing struct {
	buf        []held
	head, size int
	lastTime   int64 // the time of the record added last (while size > 0)
}

// add returns the ring's new last slot, to be filled.
//
// A ring under an eighth full is halved here: a pipe's look-ahead of a
// second holds 100 000 records of 2 M threads seen once before the scope
// is known, 12 MB that stayed for the rest of the trace. Not in pop: the
// trace's end empties the ring, and halving it all the way down there
// made copies at the peak. Not at a quarter: scripts/many-threads.sh
// busy holds 30 000 records in a ring of 131 072 that grew while its
// scope was not known, and the copy at its halving (old and new ring
// both live) raised its peak by 10 MB.
func (r *heldRing) add(limit int64) *held {
	if r.size == len(r.buf) {
		r.grow(limit)
	} else if r.size < len(r.buf)/8 && len(r.buf) > heldRingMin {
		r.resize(len(r.buf) / 2)
	}
	i := r.head + r.size
	if i >= len(r.buf) {
		i -= len(r.buf)
	}
	r.size++
	return &r.buf[i]
}

// grow doubles the ring, but to no more than the stage holds (limit,
// and one more that makes it pass one on): a pipe's look-ahead of 2^18
// records took a ring of 2^19.
func (r *heldRing) grow(limit int64) {
	size := max(64, 2*len(r.buf))
	if int64(len(r.buf)) < limit+1 {
		size = int(min(int64(size), limit+1))
	}
	r.resize(size)
}

// resize moves the records to a ring of size.
func (r *heldRing) resize(size int) {
	nb := make([]held, size)
	n := copy(nb, r.buf[r.head:min(r.head+r.size, len(r.buf))])
	copy(nb[n:], r.buf[:r.size-n])
	r.buf, r.head = nb, 0
}

func (r *heldRing) first() *held { return &r.buf[r.head] }

func (r *heldRing) pop() *held {
	h := &r.buf[r.head]
	if r.head++; r.head == len(r.buf) {
		r.head = 0
	}
	r.size--
	return h
}

// heldRingMin is the ring's size below which it is not halved.
const heldRingMin = 1 << 12
