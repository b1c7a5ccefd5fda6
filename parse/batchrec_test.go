package parse

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestBatchRecordRoundTrip adds records of every kind, with fields at and
// past a packedRec's bounds, to a batch as the producer does, and reads
// them back as the consumer does: each must come back as it went in,
// with its Lines() and refs, packed when it fits and whole when not.
func TestBatchRecordRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 200; round++ {
		b := newBatch()
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
			gotLines, gotRefs := b.record(i, &got)
			// An empty field comes back nil.
			w := want[i]
			for _, f := range []*[]byte{&w.Comm, &w.Event, &w.Payload, &w.NewComm, &got.Comm, &got.Event, &got.Payload, &got.NewComm} {
				if len(*f) == 0 {
					*f = nil
				}
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
