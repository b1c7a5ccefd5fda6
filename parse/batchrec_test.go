package parse

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"unsafe"
)

// TestPackedRecSize: the size the comments and docs give.
func TestPackedRecSize(t *testing.T) {
	if n := unsafe.Sizeof(packedRec{}); n != 72 {
		t.Errorf("packedRec is %d bytes; its comment and docs/performance.md say 72", n)
	}
}

// TestBatchRecordEveryField sets each field of a Record, one at a time,
// and adds it to a batch: it must come back as it went in, so that a
// field added to Record later is not dropped on the packed path.
func TestBatchRecordEveryField(t *testing.T) {
	for _, path := range recordFieldPaths() {
		b := newBatch()
		src := &lineParser{keep: true, arena: b.arena, refs: b.refs}
		rec := Record{Line: 1}
		setRecordField(t, &rec, path, src.own([]byte("x")), 3)
		src.rec, src.lineNo = rec, 2
		b.add(src, false)
		b.arena = src.arena
		var got Record
		if lines, _, _ := b.record(0, &got); lines != 2 || !reflect.DeepEqual(got, rec) {
			t.Errorf("field %s set: got back %+v (lines %d), want %+v", recordFieldName(path), got, lines, rec)
		}
	}
}

// TestBatchRecordOldArena: a record whose bytes are in an arena that has
// grown since (the copy before) is kept whole, its bytes intact; so is a
// record that would begin after the lines counted (Line past Lines()),
// which a packedRec's distance back cannot hold.
func TestBatchRecordOldArena(t *testing.T) {
	b := firstBatch()
	src := &lineParser{keep: true, arena: b.arena, refs: b.refs}
	src.rec = Record{Kind: KindSample, Line: 7, Comm: src.own([]byte("comm")), PID: -1, TID: 5, HasTID: true, CPU: -1}
	src.rec.Event = src.own([]byte("ev"))
	src.own(make([]byte, 8<<10)) // the arena grows: Comm and Event are in its old copy
	src.lineNo = 9
	b.add(src, false)
	src.rec = Record{Kind: KindSwitch, Line: 12, Comm: src.own([]byte("c2")), PID: 1, TID: 1, HasTID: true}
	src.lineNo = 10
	b.add(src, false)
	b.arena = src.arena
	var got Record
	if lines, _, _ := b.record(0, &got); b.recs[0].wide == 0 || lines != 9 || string(got.Comm) != "comm" || string(got.Event) != "ev" || got.Line != 7 {
		t.Errorf("record in the old arena: kept whole %v, lines %d, %+v", b.recs[0].wide != 0, lines, got)
	}
	if lines, _, _ := b.record(1, &got); b.recs[1].wide == 0 || lines != 10 || got.Line != 12 || string(got.Comm) != "c2" {
		t.Errorf("record with Line past Lines(): kept whole %v, lines %d, %+v", b.recs[1].wide != 0, lines, got)
	}
}

// TestBatchRecordRoundTrip adds records of every kind, with fields at and
// past a packedRec's bounds, to a batch as the producer does, and reads
// them back as the consumer does: each must come back as it went in,
// with its Lines() and refs, packed when it fits and whole when not.
func TestBatchRecordRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	b := newBatch()
	for round := 0; round < 200; round++ {
		// One batch for all rounds, as a producer uses its batches again:
		// a record packed where one of an earlier round lay must not keep
		// any of its fields (add does not zero the slot).
		b.reset()
		src := &lineParser{keep: true, arena: b.arena, refs: b.refs}
		var want []Record
		var wantLines []int
		var wantRefs [][2]int32
		var wantWide []bool
		first := 0 // the first record's Lines()
		lines := rng.IntN(1 << 20)
		if rng.IntN(10) == 0 {
			lines = math.MaxInt32 + rng.IntN(1<<40)
		}
		for i := 0; i < 1+rng.IntN(batchRecords); i++ {
			rec, wide := randomRecord(rng, src)
			lines += rng.IntN(40)
			if rng.IntN(50) == 0 {
				lines += 1 << 33 // past a packed line count
			}
			if i == 0 {
				first = lines
			}
			wide = wide || lines-first > math.MaxUint32
			if rng.IntN(50) == 0 {
				rec.Line = lines - 1<<33 // a record whose lines a packedRec cannot span
				wide = true
			} else {
				rec.Line = lines - rng.IntN(30)
			}
			src.refStart = len(src.refs)
			for k := rng.IntN(20); k > 0; k-- {
				src.refs = append(src.refs, rng.Uint32())
			}
			src.rec, src.lineNo = rec, lines
			b.add(src, false)
			want = append(want, rec)
			wantLines = append(wantLines, lines)
			wantRefs = append(wantRefs, [2]int32{int32(src.refStart), int32(len(src.refs))})
			wantWide = append(wantWide, wide)
		}
		b.arena, b.refs = src.arena, src.refs
		for i := range want {
			var got Record
			gotLines, from, to := b.record(i, &got)
			gotRefs := [2]int32{int32(from), int32(to)}
			// An empty field comes back nil.
			w := want[i]
			for _, f := range []*[]byte{&w.Comm, &w.Event, &w.Payload, &w.NewComm, &got.Comm, &got.Event, &got.Payload, &got.NewComm} {
				if len(*f) == 0 {
					*f = nil
				}
			}
			if b.recs[i].wide == 0 && (cap(got.Comm) != len(got.Comm) || cap(got.Event) != len(got.Event)) {
				t.Fatalf("round %d, record %d: Comm or Event not capped at its end: an append would write over the next record's bytes", round, i)
			}
			if !reflect.DeepEqual(got, w) || gotLines != wantLines[i] || gotRefs != wantRefs[i] {
				t.Fatalf("round %d, record %d:\n got %+v lines %d refs %v\nwant %+v lines %d refs %v", round, i, got, gotLines, gotRefs, w, wantLines[i], wantRefs[i])
			}
			if isWide := b.recs[i].wide != 0; isWide != wantWide[i] {
				t.Fatalf("round %d, record %d (%v): kept whole %v, want %v", round, i, w.Kind, isWide, wantWide[i])
			}
		}
	}
}

// randomRecord returns a record whose byte fields are in src's arena, as
// the producer's are, and whether a packedRec has no room for it.
func randomRecord(rng *rand.Rand, src *lineParser) (Record, bool) {
	word := func() []byte {
		b := make([]byte, rng.IntN(20))
		for i := range b {
			b[i] = byte('a' + rng.IntN(26))
		}
		return src.own(b)
	}
	num := func() int { return rng.IntN(1<<22) - 1 }
	rec := Record{Kind: Kind(rng.IntN(int(KindRound) + 1)), Comm: word(), PID: num(), TID: num(), HasTID: rng.IntN(2) == 0,
		CPU: rng.IntN(512) - 1, Time: rng.Int64(), HasTime: rng.IntN(2) == 0}
	wide := false
	switch rec.Kind {
	case KindSample:
		rec.Period, rec.HasPeriod, rec.Event = rng.Uint64N(1<<40), rng.IntN(2) == 0, word()
		if rng.IntN(10) == 0 {
			rec.Payload, wide = word(), true
		}
	case KindSwitch, KindSwitchCPUWide:
		rec.Out, rec.Preempt, rec.PeerPID, rec.PeerTID = rng.IntN(2) == 0, rng.IntN(2) == 0, num(), num()
	case KindFork, KindExit, KindComm:
		rec.SubjectPID, rec.SubjectTID, rec.ParentPID, rec.ParentTID = num()+1, num()+1, num(), num()
		rec.NewComm, wide = word(), true
	case KindLost:
		rec.Lost, wide = 1+rng.Uint64N(1000), true
	case KindError:
		rec.Err, wide = &SyntaxError{Msg: "x"}, true
	}
	switch rng.IntN(20) {
	case 0:
		rec.PID, wide = math.MaxInt32+1+rng.IntN(10), true // past int32
	case 1:
		rec.Comm, wide = []byte("not in the arena"), true
	case 2:
		rec.Period, wide = math.MaxUint64-rng.Uint64N(10), true
	}
	return rec, wide
}

// BenchmarkBatchPackRecord packs a batch of switches and reads them back,
// on one CPU: the code's own cost, without the other CPU's cache misses.
func BenchmarkBatchPackRecord(b *testing.B) {
	bt := newBatch()
	src := &lineParser{keep: true, arena: bt.arena, refs: bt.refs}
	comm := src.own([]byte("swapper"))
	rec := Record{Kind: KindSwitch, Line: 1, Comm: comm, PID: 1234, TID: 1235, HasTID: true, CPU: 3, Time: 123456789012, HasTime: true,
		SwitchFields: SwitchFields{Out: true, PeerPID: 55, PeerTID: 56}}
	src.rec, bt.arena = rec, src.arena
	var out Record
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bt.recs, bt.firstLine = bt.recs[:0], 1
		for j := 0; j < batchRecords; j++ {
			src.lineNo = j + 1
			bt.add(src, false)
		}
		for j := range bt.recs {
			bt.record(j, &out)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batchRecords), "ns/record")
}
