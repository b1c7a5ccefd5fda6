package state

import (
	"math/rand"
	"reflect"
	"runtime"
	"testing"
)

// TestHeldEventKeepsAll: a record held in the order stage comes out as
// it went in, but for Name and Comm (valid only during Add); a field
// added to Event must be added to heldEvent.
func TestHeldEventKeepsAll(t *testing.T) {
	et, ht := reflect.TypeFor[Event](), reflect.TypeFor[heldEvent]()
	for i := 0; i < et.NumField(); i++ {
		f := et.Field(i)
		if f.Name == "Name" || f.Name == "Comm" {
			continue
		}
		if hf, ok := ht.FieldByName(f.Name); !ok || hf.Type != f.Type {
			t.Errorf("Event.%s (%v) is not held", f.Name, f.Type)
		}
	}
	rnd := rand.New(rand.NewSource(2))
	for i := 0; i < 1000; i++ {
		var e Event
		v := reflect.ValueOf(&e).Elem()
		for j := 0; j < v.NumField(); j++ {
			switch f := v.Field(j); f.Kind() {
			case reflect.Bool:
				f.SetBool(rnd.Intn(2) == 0)
			case reflect.Int, reflect.Int64:
				f.SetInt(rnd.Int63() - rnd.Int63())
			case reflect.Uint8, reflect.Uint64:
				f.SetUint(rnd.Uint64() & (1<<(8*f.Type().Size()) - 1 | 1<<63 - 1))
			}
		}
		var h heldEvent
		h.from(&e)
		got := Event{Name: []byte("a"), Comm: []byte("b")} // into sets them nil
		if h.into(&got); !reflect.DeepEqual(got, e) {
			t.Fatalf("held %+v, back %+v", e, got)
		}
	}
}

// TestLookaheadMemory: a pipe's look-ahead (process scope, 1 s) over
// records 2 µs apart holds its most, lookaheadMax records: some 24 MB of
// 96-byte records, where a ring of Events doubled past its bound took 72
// MB (2^19 of 144 bytes).
func TestLookaheadMemory(t *testing.T) {
	m := NewModel(Options{Scope: Process, Lookahead: 1e9})
	base := heapInUse()
	for i := 0; i < 3*lookaheadMax; i++ {
		tid := 100 + i%8
		m.Add(new(clockSample(1e9+int64(i)*2000, tid, tid, i%8, i)))
		m.Ready()
	}
	held := m.seg.ord.run.size + len(m.seg.ord.late)
	grew := heapInUse() - base
	runtime.KeepAlive(m)
	if held < lookaheadMax {
		t.Fatalf("%d records held, want the look-ahead full (%d)", held, lookaheadMax)
	}
	if limit := int64(lookaheadMax * 100); grew > limit {
		t.Errorf("the look-ahead of %d records took %d bytes, want at most %d", held, grew, limit)
	}
	t.Logf("%d records held in %d bytes", held, grew)
}
