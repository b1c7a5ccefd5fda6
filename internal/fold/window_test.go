package fold

import (
	"math"
	"testing"

	"github.com/wallfold/wallfold/state"
)

// spread takes the part of an even stretch that falls in a window; a
// point is all in or all out.
func TestSpread(t *testing.T) {
	for _, tt := range []struct {
		start, end int64
		ns         float64
		lo, hi     int64
		want       float64
	}{
		{0, 100, 50, 0, 100, 50},
		{0, 100, 50, 25, 75, 25},
		{0, 100, 50, 90, 200, 5},
		{0, 100, 50, 100, 200, 0},
		{50, 50, 7, 0, 50, 7},
		{50, 50, 7, 51, 60, 0},
	} {
		if got := spread(tt.start, tt.end, tt.ns, tt.lo, tt.hi); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("spread(%d..%d, %v, [%d,%d]) = %v, want %v", tt.start, tt.end, tt.ns, tt.lo, tt.hi, got, tt.want)
		}
	}
}

// A stretch over several --split windows is shared among them in
// proportion to its time in each: the parts add up to the whole.
func TestWindowEachConserves(t *testing.T) {
	w := window{filter: &Filter{}, split: 1000}
	w.start(10_000)
	parts := map[int32]float64{}
	w.each(10_500, 13_250, 5500, func(win int32, part float64) { parts[win] += part })
	want := map[int32]float64{0: 1000, 1: 2000, 2: 2000, 3: 500}
	var sum float64
	for win, p := range parts {
		sum += p
		if math.Abs(p-want[win]) > 1e-9 {
			t.Errorf("window %d: %v, want %v", win, p, want[win])
		}
	}
	if len(parts) != len(want) || math.Abs(sum-5500) > 1e-9 {
		t.Errorf("parts %v add up to %v, want 5500 over 4 windows", parts, sum)
	}
	if got := w.of(9_000); got != 0 {
		t.Errorf("a time before the trace's start is window %d, want 0", got)
	}
}

// --time cuts samples by their time and off-CPU shares by their overlap.
func TestWindowCut(t *testing.T) {
	var f Filter
	if err := f.Time.UnmarshalText([]byte("1,2")); err != nil {
		t.Fatal(err)
	}
	w := window{filter: &f}
	w.start(0)
	in := state.Weighted{Time: 1.5e9}
	if w.cut(&in) == nil {
		t.Error("a sample at 1.5 s fell out of 1,2")
	}
	out := state.Weighted{Time: 2.5e9}
	if w.cut(&out) != nil {
		t.Error("a sample at 2.5 s kept in 1,2")
	}
	off := state.Weighted{State: state.Blocked, Time: 0.5e9, OffEnd: 1.5e9, OffCPU: 1e9}
	c := w.cut(&off)
	if c == nil || c.OffCPU != 0.5e9 || c.Time != 1e9 || c.OffEnd != 1.5e9 || off.OffCPU != 1e9 {
		t.Errorf("half a blocked second in the window: %+v (the original now %+v)", c, off)
	}
}
