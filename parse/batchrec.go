package parse

import "unsafe"

// What a batch keeps of each record. A Record is 256 bytes, and the
// producer writes each into a batch that the consumer, on the other CPU,
// last read: at two CPUs gb2.txt's 463,000 records moved 118 MB between
// the caches, the likeliest reason why the producer's header parse cost
// three times what it cost on one CPU. A packedRec holds a sample's
// or a switch's fields in 72 bytes, its byte fields as places in the
// batch's arena; a record with a field it has no room for (a payload, a
// task record's, an error) is kept whole in the batch's wide list.
type packedRec struct {
	time, period     int64
	pid, tid, cpu    int32
	peerPID, peerTID int32
	lines            uint32 // Lines() after the record, from the batch's firstLine
	back             uint32 // lines - Line
	comm, event      [2]uint32
	refs             [2]uint32 // the sample's refs in the batch's refs
	kind             Kind
	flags            uint8
	wide             uint16 // 1 + the index in the batch's wide list (batchRecords at most); 0: none
}

// wideRec is a record kept whole, and its place in the batch's lines and
// refs.
type wideRec struct {
	rec   Record
	lines int
	refs  [2]int32
}

const (
	packedHasTID = 1 << iota
	packedHasTime
	packedHasPeriod
	packedOut
	packedPreempt
)

// add appends src's current record to b: packed when it fits, else whole.
// Its bytes and frames are in b's arena and frames already (src.keep).
//
// A sample that the end of a chunk ended (more) would have been ended by
// the next chunk's first line in a sequential read: Lines() then counts
// that line too.
func (b *batch) add(src *lineParser, more bool) {
	lines := src.lineNo
	rec := &src.rec
	if more && src.eof && rec.Kind == KindSample {
		lines++
	}
	if len(b.recs) == 0 {
		b.firstLine = lines
	}
	// Packed in place: a packedRec built on the stack and then appended
	// is copied by 16-byte loads of the narrower stores just made, which
	// the CPU cannot forward (pack and record took 36-37 ns a switch, 15-16
	// in place: BenchmarkBatchPackRecord). The slot is not zeroed first:
	// pack sets every field, or fails and the slot is set whole below.
	n := len(b.recs)
	if n < cap(b.recs) {
		b.recs = b.recs[:n+1]
	} else {
		b.recs = append(b.recs, packedRec{})
	}
	p := &b.recs[n]
	if !b.pack(p, rec, src.arena, lines, src.refStart, len(src.refs)) {
		b.wide = append(b.wide, wideRec{*rec, lines, [2]int32{int32(src.refStart), int32(len(src.refs))}})
		*p = packedRec{wide: uint16(len(b.wide))}
	}
}

// pack fills p with rec, the record whose Lines() is lines, whose bytes
// are in arena (b's, being filled) and whose refs are refs[start:end];
// false when a field has no room in p (p then partly written: add
// overwrites it).
func (b *batch) pack(p *packedRec, rec *Record, arena []byte, lines, start, end int) bool {
	if !rec.plain() || rec.Stack != nil {
		return false
	}
	d, back := lines-b.firstLine, lines-rec.Line
	if uint64(d) > 1<<32-1 || uint64(back) > 1<<32-1 || !(fits32(rec.PID) && fits32(rec.TID) && fits32(rec.CPU) && fits32(rec.PeerPID) && fits32(rec.PeerTID)) ||
		rec.Period > 1<<63-1 || end > 1<<31-1 {
		return false
	}
	if !place(&p.comm, arena, rec.Comm) || !place(&p.event, arena, rec.Event) {
		return false
	}
	// Field by field, not a literal: see add.
	p.time, p.period = rec.Time, int64(rec.Period)
	p.pid, p.tid, p.cpu = int32(rec.PID), int32(rec.TID), int32(rec.CPU)
	p.peerPID, p.peerTID = int32(rec.PeerPID), int32(rec.PeerTID)
	p.lines, p.back = uint32(d), uint32(back)
	p.refs[0], p.refs[1] = uint32(start), uint32(end)
	p.kind = rec.Kind
	p.flags = flag(rec.HasTID, packedHasTID) | flag(rec.HasTime, packedHasTime) | flag(rec.HasPeriod, packedHasPeriod) |
		flag(rec.Out, packedOut) | flag(rec.Preempt, packedPreempt)
	p.wide = 0
	return true
}

// place sets *at to where s is in arena: [0, 0] for an empty s; false
// (*at untouched) when s is not in it (a slice of an arena that has grown
// since).
func place(at *[2]uint32, arena, s []byte) bool {
	if len(s) == 0 {
		at[0], at[1] = 0, 0
		return true
	}
	if len(arena) == 0 || uint64(len(arena)) > 1<<32-1 {
		return false
	}
	off := uintptr(unsafe.Pointer(unsafe.SliceData(s))) - uintptr(unsafe.Pointer(unsafe.SliceData(arena)))
	if off >= uintptr(len(arena)) || uintptr(len(s)) > uintptr(len(arena))-off {
		return false
	}
	at[0], at[1] = uint32(off), uint32(off)+uint32(len(s))
	return true
}

func fits32(v int) bool { return int(int32(v)) == v }

func flag(set bool, f uint8) uint8 {
	if set {
		return f
	}
	return 0
}

// record sets *rec to b's record i (its Stack nil) and returns its
// Lines() and its refs in b.refs, b.refs[from:to]. Not a [2]int32: an
// array is returned in memory, its two stores loaded as one word, which
// the CPU cannot forward (60 % of scanConc's time on two CPUs).
func (b *batch) record(i int, rec *Record) (lines, from, to int) {
	p := &b.recs[i]
	if p.wide != 0 {
		w := &b.wide[p.wide-1]
		*rec = w.rec
		return w.lines, int(w.refs[0]), int(w.refs[1])
	}
	lines = b.firstLine + int(p.lines)
	if !rec.plain() { // else every field left is set below: a whole clear first was 1.8 % slower
		*rec = Record{}
	}
	rec.Kind, rec.Line, rec.Comm = p.kind, lines-int(p.back), b.bytes(p.comm)
	rec.PID, rec.TID, rec.HasTID, rec.CPU = int(p.pid), int(p.tid), p.flags&packedHasTID != 0, int(p.cpu)
	rec.Time, rec.HasTime, rec.Stack = p.time, p.flags&packedHasTime != 0, nil
	rec.Period, rec.HasPeriod, rec.Event = uint64(p.period), p.flags&packedHasPeriod != 0, b.bytes(p.event)
	rec.Out, rec.Preempt, rec.PeerPID, rec.PeerTID = p.flags&packedOut != 0, p.flags&packedPreempt != 0, int(p.peerPID), int(p.peerTID)
	return lines, int(p.refs[0]), int(p.refs[1])
}

// bytes is the arena's bytes at s (nil for none), capped at their end as
// own's are.
func (b *batch) bytes(s [2]uint32) []byte {
	if s[1] == 0 {
		return nil
	}
	return b.arena[s[0]:s[1]:s[1]]
}
