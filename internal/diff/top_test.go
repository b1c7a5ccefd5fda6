package diff

import (
	"bytes"
	"strings"
	"testing"
)

// The table's rows come by |wall delta|, with each side's values, the
// relative change, and the parallelism of each side.
func TestWriteTopRowsByWallDelta(t *testing.T) {
	before := side("b.txt", map[string]Weights{"p;f": {1e9, 1e9}, "p;g": {0.5e9, 1e9}, "p;old": {0.1e9, 0.1e9}})
	after := side("a.txt", map[string]Weights{"p;f": {0.25e9, 1e9}, "p;g": {0.6e9, 1.2e9}, "p;new": {0.2e9, 0}})
	d, err := Compare(before, after, false)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteTop(&out, d, ByFunction, 0); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if !strings.HasPrefix(lines[0], "# wall: 1.600 s -> 1.050 s (-0.550 s), CPU 2.100 s -> 2.200 s (+0.100 s), parallelism 1.31 -> 2.10") {
		t.Errorf("header %q", lines[0])
	}
	want := [][]string{
		{"p", "1.600", "1.050", "-0.550", "-34.4%", "2.100", "2.200", "+0.100", "1.31", "->", "2.10"},
		{"f", "1.000", "0.250", "-0.750", "-75.0%", "1.000", "1.000", "+0.000", "1.00", "->", "4.00"},
		{"new", "0.000", "0.200", "+0.200", "new", "0.000", "0.000", "+0.000", "-", "->", "0.00"},
		{"g", "0.500", "0.600", "+0.100", "+20.0%", "1.000", "1.200", "+0.200", "2.00", "->", "2.00"},
		{"old", "0.100", "0.000", "-0.100", "gone", "0.100", "0.000", "-0.100", "1.00", "->", "-"},
	}
	rows := lines[3:]
	// g and old tie on |wall delta|: the larger CPU change first.
	order := []string{"f", "p", "new", "g", "old"}
	if len(rows) != len(order) {
		t.Fatalf("%d rows:\n%s", len(rows), out.String())
	}
	byName := map[string][]string{}
	for i, r := range rows {
		f := strings.Fields(strings.ReplaceAll(r, " s ", " "))
		name := f[len(f)-1]
		if name != order[i] {
			t.Errorf("row %d is %s, want %s:\n%s", i, name, order[i], out.String())
		}
		byName[name] = f[:len(f)-1]
	}
	for _, w := range want {
		if got := strings.Join(byName[w[0]], " "); got != strings.Join(w[1:], " ") {
			t.Errorf("%s: %s\nwant %s", w[0], got, strings.Join(w[1:], " "))
		}
	}
	out.Reset()
	if err := WriteTop(&out, d, ByStack, 1); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "  p;f\n... 3 more: --top=N shows N\n") || !strings.Contains(s, "# 4 stacks by |wall delta|") {
		t.Errorf("by stack, one row:\n%s", s)
	}
}

// An event that counts no time: counts, not seconds.
func TestWriteTopCounts(t *testing.T) {
	before := NewSide("b", "cycles", false)
	before.Add("p;f", Weights{500, 1000})
	after := NewSide("a", "cycles", false)
	after.Add("p;f", Weights{1000, 1000})
	d, err := Compare(before, after, false)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteTop(&out, d, ByFunction, 0); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if !strings.HasPrefix(s, "# wall (count/parallelism): 500 -> 1000 (+500), CPU 1000 -> 1000 (+0), parallelism 2.00 -> 1.00\n") ||
		!strings.Contains(s, "500          1000          +500 +100.0%          1000          1000            +0  2.00 -> 1.00  f\n") || strings.Contains(s, " s ") {
		t.Errorf("counts:\n%s", s)
	}
}
