package state

import (
	"math/rand"
	"testing"
)

// TestFIFO: random pushes and pops read back as a slice says, and the
// ring's size follows what it holds (at most four times, past fifoMin,
// once pushed to).
func TestFIFO(t *testing.T) {
	rnd := rand.New(rand.NewSource(27))
	var f fifo[int]
	var want []int
	next := 0
	for op := 0; op < 200_000; op++ {
		// Phases: mostly pushes, then mostly pops.
		if (op/20_000%2 == 0) == (rnd.Intn(10) < 7) || len(want) == 0 {
			f.push(next)
			want = append(want, next)
			next++
		} else {
			f.pop()
			want = want[1:]
		}
		if f.len() != len(want) {
			t.Fatalf("op %d: len %d, want %d", op, f.len(), len(want))
		}
		if len(want) > 0 && (*f.at(0) != want[0] || *f.at(len(want) - 1) != want[len(want)-1]) {
			t.Fatalf("op %d: ends %d %d, want %d %d", op, *f.at(0), *f.at(len(want) - 1), want[0], want[len(want)-1])
		}
	}
	for i := range want {
		if *f.at(i) != want[i] {
			t.Fatalf("entry %d: %d, want %d", i, *f.at(i), want[i])
		}
	}
	// Emptied to 1000 entries, it shrinks as entries come again (not as
	// they go: the trace's end empties every queue at once).
	for f.len() > 1000 {
		f.pop()
		want = want[1:]
	}
	for i := 0; i < 100; i++ {
		f.push(next)
		f.pop()
		want = append(want[1:], next)
		next++
	}
	if len(f.buf) > 4*f.len()+fifoMin {
		t.Errorf("a ring of %d for %d entries", len(f.buf), f.len())
	}
	if *f.at(0) != want[0] || *f.at(f.len() - 1) != want[len(want)-1] {
		t.Errorf("ends %d %d after shrinking, want %d %d", *f.at(0), *f.at(f.len() - 1), want[0], want[len(want)-1])
	}
}
