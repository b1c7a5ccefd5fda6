package state

import (
	"encoding/binary"
	"math"
)

// This file forgets threads that went quiet: memory follows the live
// threads, not every thread a long trace ever had (two million threads
// seen once took 637 MB of thread structs and maps).
//
// A thread is forgotten once nothing of the running model holds it (it is
// not running, has no open gap, is not on a CPU, has not EXITed: see
// dormant; it may wait in its group's off set) and it has been so for a
// while (forgetAfter). What a later record of it could still read is
// kept in some 30 bytes in the cold store (encodeCold); what no record
// reads before setting it anew is not (its running gap's, start sets
// them; its time on CPU's, runOn). A record that names it again brings
// it back (lookup) as the model would have it, field for field; its group
// kept counting it meanwhile, so the group is the same one.
// TestColdRoundTrip checks that every field is kept or named dead,
// TestForgetSame that random traces give the same results with threads
// forgotten at the first moment they may be, and a build with the tag
// forgetsoon (forgetsoon_on.go) lets scripts/same-output.sh check the
// shipped traces so.

// forgetAfter is how long (ns of trace time) a thread stays dormant
// before it is forgotten. What it keeps does not depend on it (times are
// kept, not taken as past); it spares the threads that block briefly
// and often a round trip through the cold store.
func (t *tracker) forgetAfter() int64 {
	if t.forgetSoon {
		return 0 // tests: at the next record
	}
	return t.cfg.Gap + lookaheadNs
}

// coldCandidate is a thread quiet since at: it is forgotten then plus
// forgetAfter, unless it ran since (gen).
type coldCandidate struct {
	th  *thread
	gen uint32
	at  int64
}

// cooling notes that th stopped running, its last sign at since: a
// candidate to forget. A thread stopped by its silence has been quiet
// since its last sign, not since the silence was decided: the rate
// estimate decides it a second later, and meanwhile it was a thread
// struct (100 000 of them in scripts/many-threads.sh once, 10 000 of
// them kept the forgetAfter more).
func (t *tracker) cooling(th *thread, since int64) {
	if t.cfg.Gap > 0 && t.cfg.Scope != Tree {
		t.cold.queue = append(t.cold.queue, coldCandidate{th, th.segGen, since})
	}
}

// forgetQuiet forgets the candidates that stayed dormant long enough.
func (t *tracker) forgetQuiet() {
	c := &t.cold
	for c.qhead < len(c.queue) {
		q := c.queue[c.qhead]
		if t.now-q.at < t.forgetAfter() && t.now >= q.at {
			break
		}
		c.queue[c.qhead] = coldCandidate{}
		c.qhead++
		if th := q.th; t.threads[th.tid] == th && th.segGen == q.gen && t.dormant(th) {
			t.forget(th)
		}
	}
	if c.qhead == len(c.queue) {
		c.queue, c.qhead = c.queue[:0], 0
	} else if c.qhead > 1024 && c.qhead >= len(c.queue)/2 {
		n := copy(c.queue, c.queue[c.qhead:])
		clear(c.queue[n:])
		c.queue, c.qhead = c.queue[:n], 0
	}
	if cap(c.queue) > 1024 && len(c.queue) < cap(c.queue)/4 {
		c.queue = append([]coldCandidate(nil), c.queue...)
	}
}

// dormant reports whether nothing of the model holds th but its map
// entry: what it keeps is its record (coldFields) and fields no record
// reads before setting them (deadWhenDormant).
func (t *tracker) dormant(th *thread) bool {
	return !th.on && !th.running && !th.segOpen && !th.committed && !th.exited &&
		th.exitAt == 0 && !th.exitOff && th.waker == NoWaker && th.g == t.groupOf(th.pid, th.tid)
}

// groupOf returns the group a thread of pid (tid) is made in, nil if none
// yet; not in tree scope.
func (t *tracker) groupOf(pid, tid int) *group {
	switch t.cfg.Scope {
	case Tree:
		return nil
	case Workload:
		return t.one
	case Thread:
		return t.groups[tid]
	}
	return t.groups[pid]
}

// derivedPID is the process a thread tid made now would get (thread).
func (t *tracker) derivedPID(tid int) int {
	if p, ok := t.pidOf.get(tid); ok {
		return p
	}
	return tid
}

// forget moves th to the cold store; it still counts in its group's
// threads (its group stays, as it would for it).
func (t *tracker) forget(th *thread) {
	if !t.storeCold(th, t.encodeCold(th, t.cold.buf[:0])) {
		return
	}
	if th.cpu >= 0 && t.cpuCur[th.cpu] == th {
		delete(t.cpuCur, th.cpu) // not running: the same as no thread there
	}
	if g := th.g; g.q.len() == 0 && g.open.len() == 0 {
		// Nothing waits in its group: a process of one thread keeps its
		// group while forgotten, not the group's queues (2 M such took
		// 98 MB of them).
		g.q, g.open = fifo[pending]{}, fifo[openSeg]{}
	}
	delete(t.threads, th.tid)
	t.reaped++
}

// lookup returns thread tid, brought back if it was forgotten; nil if
// there is none.
func (t *tracker) lookup(tid int) *thread {
	if th := t.threads[tid]; th != nil || t.cold.at.Len() == 0 {
		return th
	}
	return t.revive(tid)
}

// revive brings thread tid back from the cold store (nil: not there; a
// thread whose record was dropped at the bound is new).
func (t *tracker) revive(tid int) *thread {
	c := &t.cold
	rec := c.record(tid)
	if rec == nil {
		if v := c.at.Get(tid); v >= coldDroppedUnknown {
			c.returnedAfterDrop(tid, v)
		}
		return nil
	}
	th := t.decodeCold(tid, rec)
	c.take(tid, rec)
	t.threads[tid] = th
	return th
}

// coldTIDs returns the forgotten threads' tids, in order (those below
// 2^22 first).
func (t *tracker) coldTIDs() []int {
	tids := make([]int, 0, t.cold.at.Len())
	t.cold.at.Each(func(tid int, v uint32) {
		if v < coldDroppedUnknown {
			tids = append(tids, tid)
		}
	})
	return tids
}

// The record's fields, one bit each in its first number: a field whose
// bit is clear has the value a new thread has (thread).
const (
	coldSampled = 1 << iota
	coldPIDGuessed
	coldSwIn
	coldInSet
	coldRunnable
	coldPID
	coldCPU
	coldLastRef
	coldBlockRef
	coldSwitchRef
	coldOffRef
	coldSpacing
	coldRunCPU
	coldRunWall
	coldPeriods
	coldSampleAt
	coldLastSeen
	coldFirstOn
	coldInAt
	coldDoubleIn
	coldOffSince
	coldJoinCum
)

// encodeCold appends th's record to b: the flags, firstAt, the numbers
// set in flag order, the times set each from the one before (from
// firstAt), and joinCum's bits.
func (t *tracker) encodeCold(th *thread, b []byte) []byte {
	var flags uint64
	var nums, times [16]int64
	n, m := 0, 0
	bit := func(f uint64, on bool) {
		if on {
			flags |= f
		}
	}
	num := func(f uint64, v, unset int64) {
		if v != unset {
			flags |= f
			nums[n] = v
			n++
		}
	}
	prev := th.firstAt
	tm := func(f uint64, v, unset int64) {
		if v != unset {
			flags |= f
			times[m] = v - prev
			m++
			prev = v
		}
	}
	bit(coldSampled, th.sampled)
	bit(coldPIDGuessed, th.pidGuessed)
	bit(coldSwIn, th.swIn)
	bit(coldInSet, th.inSet)
	bit(coldRunnable, th.offState == Runnable)
	num(coldPID, int64(th.pid), int64(t.derivedPID(th.tid)))
	num(coldCPU, int64(th.cpu), -1)
	num(coldLastRef, int64(th.lastRef), OtherEvent)
	num(coldBlockRef, int64(th.blockRef), OtherEvent)
	num(coldSwitchRef, int64(th.switchRef), OtherEvent)
	num(coldOffRef, int64(th.offRef), OtherEvent)
	num(coldSpacing, th.spacing, 0)
	num(coldRunCPU, th.runCPU, 0)
	num(coldRunWall, int64(math.Float64bits(th.runWall)), 0)
	num(coldPeriods, th.periods, 0)
	tm(coldSampleAt, th.sampleAt, noTime)
	tm(coldLastSeen, th.lastSeen, 0)
	tm(coldFirstOn, th.firstOn, 0)
	tm(coldInAt, th.inAt, 0)
	tm(coldDoubleIn, th.doubleIn, 0)
	tm(coldOffSince, th.offSince, 0)
	bit(coldJoinCum, th.joinCum != 0)
	b = binary.AppendUvarint(b, flags)
	b = binary.AppendVarint(b, th.firstAt)
	for _, v := range nums[:n] {
		b = binary.AppendVarint(b, v)
	}
	for _, v := range times[:m] {
		b = binary.AppendVarint(b, v)
	}
	if th.joinCum != 0 {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(th.joinCum))
	}
	return b
}

// decodeCold returns thread tid as rec keeps it: as thread makes it, with
// the fields rec holds.
func (t *tracker) decodeCold(tid int, rec []byte) *thread {
	flags, k := binary.Uvarint(rec)
	rec = rec[k:]
	next := func() int64 {
		v, k := binary.Varint(rec)
		rec = rec[k:]
		return v
	}
	has := func(f uint64) bool { return flags&f != 0 }
	th := newThread(tid, t.derivedPID(tid), false, next())
	th.sampled, th.pidGuessed, th.swIn, th.inSet = has(coldSampled), has(coldPIDGuessed), has(coldSwIn), has(coldInSet)
	if has(coldInSet) {
		th.offState = Blocked // joinSet's: Blocked or Runnable
		if has(coldRunnable) {
			th.offState = Runnable
		}
	}
	num := func(f uint64, v *int64) {
		if has(f) {
			*v = next()
		}
	}
	var pid, cpu, lastRef, blockRef, switchRef, offRef, runWall int64 = int64(th.pid), -1, OtherEvent, OtherEvent, OtherEvent, OtherEvent, 0
	num(coldPID, &pid)
	num(coldCPU, &cpu)
	num(coldLastRef, &lastRef)
	num(coldBlockRef, &blockRef)
	num(coldSwitchRef, &switchRef)
	num(coldOffRef, &offRef)
	num(coldSpacing, &th.spacing)
	num(coldRunCPU, &th.runCPU)
	num(coldRunWall, &runWall)
	num(coldPeriods, &th.periods)
	th.pid, th.cpu = int(pid), int(cpu)
	th.lastRef, th.blockRef, th.switchRef, th.offRef = int(lastRef), int(blockRef), int(switchRef), int(offRef)
	th.runWall = math.Float64frombits(uint64(runWall))
	prev := th.firstAt
	tm := func(f uint64, v *int64) {
		if has(f) {
			*v = prev + next()
			prev = *v
		}
	}
	tm(coldSampleAt, &th.sampleAt)
	tm(coldLastSeen, &th.lastSeen)
	tm(coldFirstOn, &th.firstOn)
	tm(coldInAt, &th.inAt)
	tm(coldDoubleIn, &th.doubleIn)
	tm(coldOffSince, &th.offSince)
	if has(coldJoinCum) {
		th.joinCum = math.Float64frombits(binary.LittleEndian.Uint64(rec))
	}
	th.g = t.groupOf(th.pid, tid)
	return th
}

// pidTable maps a tid to its process in a TIDTable: a process's own
// thread (pid == tid) as pidSelf, so that a run of single-threaded
// processes takes the one value, as a run of one process's threads does
// (a packed page: tidtable.go); a map for a pid out of its range.
type pidTable struct {
	t   TIDTable
	odd map[int]int
}

const (
	pidOdd  = ^uint32(0) // the pid is in odd
	pidSelf = 1          // the pid is the tid; else pid+2
)

func (p *pidTable) get(tid int) (int, bool) {
	switch v := p.t.Get(tid); v {
	case 0:
		return 0, false
	case pidOdd:
		return p.odd[tid], true
	case pidSelf:
		return tid, true
	default:
		return int(v - 2), true
	}
}

func (p *pidTable) set(tid, pid int) {
	if p.t.Get(tid) == pidOdd {
		delete(p.odd, tid)
	}
	switch {
	case pid == tid:
		p.t.Set(tid, pidSelf)
		return
	case pid >= 0 && pid < int(pidOdd-2):
		p.t.Set(tid, uint32(pid)+2)
		return
	}
	if p.odd == nil {
		p.odd = make(map[int]int)
	}
	p.odd[tid] = pid
	p.t.Set(tid, pidOdd)
}

func (p *pidTable) del(tid int) {
	if p.t.Get(tid) == pidOdd {
		delete(p.odd, tid)
	}
	p.t.Set(tid, 0)
}

// reviveAll brings back every forgotten thread whose record has one of
// the flags, in tid order (the end of the trace: their time since their
// last sample, their share while in an off set).
func (t *tracker) reviveAll(mask uint64) {
	if t.cold.at.Len() == 0 {
		return
	}
	for _, tid := range t.coldTIDs() {
		if flags, _ := binary.Uvarint(t.cold.record(tid)); flags&mask != 0 {
			t.revive(tid)
		}
	}
}

// coldUnknownPID counts the forgotten threads that were sampled and
// whose process is unknown (stats.UnknownPID).
func (t *tracker) coldUnknownPID() int {
	n := t.cold.droppedUnknown
	t.cold.at.Each(func(tid int, v uint32) {
		if v >= coldDroppedUnknown {
			return
		}
		flags, _ := binary.Uvarint(t.cold.record(tid))
		if _, ok := t.pidOf.get(tid); !ok && flags&coldSampled != 0 && tid > 0 {
			n++
		}
	})
	return n
}
