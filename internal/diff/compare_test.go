package diff

import (
	"math"
	"strings"
	"testing"
)

func side(name string, stacks map[string]Weights) *Side {
	s := NewSide(name, "cpu-clock", true)
	for k, w := range stacks {
		s.Add(k, w)
	}
	return s
}

func rowOf(t *testing.T, rows []Row, name string) Row {
	t.Helper()
	for _, r := range rows {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no row %q", name)
	return Row{}
}

// A function is counted once per stack, however often it recurs there;
// its rows are sums over the stacks it is in, each side on its own.
func TestFunctionsCountAStackOnce(t *testing.T) {
	before := side("b", map[string]Weights{"p;f;g;f": {10, 20}, "p;g": {5, 5}})
	after := side("a", map[string]Weights{"p;f": {3, 3}, "q;h": {1, 0}})
	d, err := Compare(before, after, false)
	if err != nil {
		t.Fatal(err)
	}
	rows := d.Functions()
	want := map[string][2]Weights{
		"p": {{15, 25}, {3, 3}},
		"f": {{10, 20}, {3, 3}},
		"g": {{15, 25}, {0, 0}},
		"q": {{0, 0}, {1, 0}},
		"h": {{0, 0}, {1, 0}},
	}
	if len(rows) != len(want) {
		t.Errorf("%d rows, want %d", len(rows), len(want))
	}
	for name, w := range want {
		r := rowOf(t, rows, name)
		if r.Before != w[0] || r.After != w[1] {
			t.Errorf("%s: before %v after %v, want %v %v", name, r.Before, r.After, w[0], w[1])
		}
	}
	if f := rowOf(t, rows, "f"); f.ParBefore != 2 || f.ParAfter != 1 || f.Delta() != (Weights{-7, -17}) {
		t.Errorf("f: parallelism %v -> %v, delta %v; want 2 -> 1, {-7 -17}", f.ParBefore, f.ParAfter, f.Delta())
	}
	if d.Total.Before != (Weights{15, 25}) || d.Total.After != (Weights{4, 3}) {
		t.Errorf("totals %v %v", d.Total.Before, d.Total.After)
	}
	// The stacks: both sides' joined, in bytewise order.
	var names []string
	for _, r := range d.Stacks {
		names = append(names, r.Name)
	}
	if got := strings.Join(names, " "); got != "p;f p;f;g;f p;g q;h" {
		t.Errorf("stacks %s", got)
	}
}

// -n scales before's wall and CPU each to after's total; the parallelism
// stays as recorded.
func TestNormalizeScalesBeforeToAfterTotals(t *testing.T) {
	before := side("b", map[string]Weights{"p;f": {6, 6}, "p;g": {4, 34}})
	after := side("a", map[string]Weights{"p;f": {5, 5}, "p;g": {15, 15}})
	d, err := Compare(before, after, true)
	if err != nil {
		t.Fatal(err)
	}
	var sum Weights
	for _, r := range d.Stacks {
		sum = sum.add(r.Before)
	}
	if math.Abs(sum.Wall-20) > 1e-9 || math.Abs(sum.CPU-20) > 1e-9 {
		t.Errorf("scaled before sums to %v, want after's {20 20}", sum)
	}
	g := rowOf(t, d.Stacks, "p;g")
	if g.Before != (Weights{8, 17}) || g.ParBefore != 8.5 {
		t.Errorf("p;g before %v parallelism %v, want {8 17} and 8.5 (34/4, as recorded)", g.Before, g.ParBefore)
	}
}

func TestCompareRefusesDifferentUnits(t *testing.T) {
	a := NewSide("a.txt", "cpu-clock", true)
	b := NewSide("b.txt", "cycles", false)
	if _, err := Compare(a, b, false); err == nil || !strings.Contains(err.Error(), "same event") {
		t.Errorf("time against cycles: %v", err)
	}
	c := NewSide("c.pb.gz", "instructions", false)
	if _, err := Compare(b, c, false); err == nil {
		t.Error("cycles against instructions: no error")
	}
	// A trace's event name and a profile's sample type name one event.
	d := NewSide("d.pb.gz", "cycles_u", false)
	if _, err := Compare(NewSide("e.txt", "cycles:u", false), d, false); err != nil {
		t.Errorf("cycles:u against cycles_u: %v", err)
	}
}
