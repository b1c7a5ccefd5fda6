package state

import (
	"math/rand"
	"runtime"
	"testing"
)

// TestTIDTableAgainstMap: random sets and deletes (tids clustered in a
// few pages, with few values or many, and tids out of the dense range)
// read back as a map of the same operations says.
func TestTIDTableAgainstMap(t *testing.T) {
	rnd := rand.New(rand.NewSource(27))
	for round := 0; round < 40; round++ {
		var tab TIDTable
		want := map[int]uint32{}
		values := 1 + rnd.Intn(40)   // few: packed pages; many: raw ones
		span := 1 + rnd.Intn(3*4096) // three pages
		for op := 0; op < 40000; op++ {
			tid := rnd.Intn(span)
			switch rnd.Intn(20) {
			case 0:
				tid = tidDense + rnd.Intn(100)
			case 1:
				tid = -1 - rnd.Intn(100)
			}
			v := uint32(rnd.Intn(values))
			if rnd.Intn(4) == 0 {
				v = 0
			}
			tab.Set(tid, v)
			if v == 0 {
				delete(want, tid)
			} else {
				want[tid] = v
			}
			if got := tab.Get(tid); got != v {
				t.Fatalf("round %d op %d: Get(%d) = %d just after Set to %d", round, op, tid, got, v)
			}
		}
		if tab.Len() != len(want) {
			t.Errorf("round %d: Len %d, want %d", round, tab.Len(), len(want))
		}
		seen := 0
		last := -1
		tab.Each(func(tid int, v uint32) {
			seen++
			if want[tid] != v {
				t.Errorf("round %d: Each gave %d -> %d, want %d", round, tid, v, want[tid])
			}
			if tid >= 0 && tid < tidDense {
				if tid <= last {
					t.Errorf("round %d: Each gave %d after %d", round, tid, last)
				}
				last = tid
			}
		})
		if seen != len(want) {
			t.Errorf("round %d: Each gave %d entries, want %d", round, seen, len(want))
		}
		for tid, v := range want {
			if got := tab.Get(tid); got != v {
				t.Fatalf("round %d: Get(%d) = %d, want %d", round, tid, got, v)
			}
		}
	}
}

// TestTIDTableMemory: two million tids of one process with one name take
// a few bytes a page, not 4 a tid (8 MB before); with the values of 16
// processes interleaved, half a byte a tid (and the pages' slack); tids whose entries are all
// deleted give their pages back.
func TestTIDTableMemory(t *testing.T) {
	const n = 2_000_000
	for _, c := range []struct {
		name     string
		values   uint32
		maxBytes float64 // a tid
	}{{"one value", 1, 0.05}, {"16 values", 16, 1}} {
		base := heapInUse()
		var tab TIDTable
		for tid := 1000; tid < 1000+n; tid++ {
			tab.Set(tid, 7+uint32(tid)%c.values)
		}
		perTID := float64(heapInUse()-base) / n
		t.Logf("%s: %.3f bytes a tid", c.name, perTID)
		if perTID > c.maxBytes {
			t.Errorf("%s: %.3f bytes a tid, want at most %.2f", c.name, perTID, c.maxBytes)
		}
		for tid := 1000; tid < 1000+n; tid++ {
			tab.Set(tid, 0)
		}
		if left := float64(heapInUse()-base) / n; left > 0.05 {
			t.Errorf("%s: %.3f bytes a tid left after all were deleted", c.name, left)
		}
		runtime.KeepAlive(&tab)
	}
}

// TestPIDTableSelf: threads each a process of their own (pid == tid)
// take the one value in the table, and read back.
func TestPIDTableSelf(t *testing.T) {
	var p pidTable
	base := heapInUse()
	for tid := 1; tid < 1<<20; tid++ {
		p.set(tid, tid)
	}
	p.set(5, 1<<40)
	p.set(6, 0)
	if grew := heapInUse() - base; grew > 64<<10 {
		t.Errorf("a million single-threaded processes: %d bytes, want at most 64 KiB", grew)
	}
	for tid, want := range map[int]int{1: 1, 4: 4, 5: 1 << 40, 6: 0, 1<<20 - 1: 1<<20 - 1} {
		if got, ok := p.get(tid); !ok || got != want {
			t.Errorf("pid of %d: %d %v, want %d", tid, got, ok, want)
		}
	}
	if _, ok := p.get(1 << 20); ok {
		t.Errorf("pid of a tid never set: found")
	}
	runtime.KeepAlive(&p)
}
