package emit_test

import (
	"bytes"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/wallfold/wallfold/emit"
)

// topRow is what a row of the top table says: total and self wall, total
// and self CPU, in seconds and in % of all.
type topRow struct {
	name                                   string
	totalWall, selfWall, totalCPU, selfCPU float64 // s
	pct                                    [4]float64
}

var topRowRE = regexp.MustCompile(`^\s*([0-9.]+) s\s+([0-9.]+)%\s+([0-9.]+) s\s+([0-9.]+)%\s+([0-9.]+) s\s+([0-9.]+)%\s+([0-9.]+) s\s+([0-9.]+)%  (.+)$`)

// topStacks are five stacks, 12 s of wall and 20 s of CPU in all, one
// of them recursive (work;work).
func topStacks() (*emit.Stacks, *emit.Totals) {
	s := emit.NewStacks(emit.NameOptions{})
	var tot emit.Totals
	add := func(wall, cpu float64, names ...string) { tot.Add(chain(s, names...), uint64(cpu*1e9), wall*1e9) }
	add(4, 8, "app", "main", "work", "work", "leaf")
	add(1, 1, "app", "main", "work")
	add(3, 3, "app", "main", "io")
	add(2, 6, "other", "main")
	add(2, 2, "bee")
	chain(s, "app", "never") // no sample: no row
	return s, &tot
}

// topWant is topStacks' table worked out by hand: a function's total is
// every stack it is in, once per stack (work: 4 + 1, not 4 + 4 + 1); its
// self the stacks it is the leaf of. Sorted by total wall, ties (bee,
// other) by name.
var topWant = []topRow{
	{"main", 10, 2, 18, 6, [4]float64{83.33, 16.67, 90, 30}},
	{"app", 8, 0, 12, 0, [4]float64{66.67, 0, 60, 0}},
	{"work", 5, 1, 9, 1, [4]float64{41.67, 8.33, 45, 5}},
	{"leaf", 4, 4, 8, 8, [4]float64{33.33, 33.33, 40, 40}},
	{"io", 3, 3, 3, 3, [4]float64{25, 25, 15, 15}},
	{"bee", 2, 2, 2, 2, [4]float64{16.67, 16.67, 10, 10}},
	{"other", 2, 0, 6, 0, [4]float64{16.67, 0, 30, 0}},
}

func parseTop(t *testing.T, out string) (header string, rows []topRow, rest []string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) < 2 {
		t.Fatalf("no table:\n%s", out)
	}
	for _, l := range lines[2:] {
		m := topRowRE.FindStringSubmatch(l)
		if m == nil {
			rest = append(rest, l)
			continue
		}
		f := func(i int) float64 { v, _ := strconv.ParseFloat(m[i], 64); return v }
		rows = append(rows, topRow{m[9], f(1), f(3), f(5), f(7), [4]float64{f(2), f(4), f(6), f(8)}})
	}
	return lines[0], rows, rest
}

func TestTopKnownTable(t *testing.T) {
	s, tot := topStacks()
	var b bytes.Buffer
	if err := emit.WriteTop(&b, s, tot, 0, true, ""); err != nil {
		t.Fatal(err)
	}
	header, rows, rest := parseTop(t, b.String())
	if want := "# wall total 12.000 s, CPU total 20.000 s, 7 functions (total: inclusive, self: as leaf)"; header != want {
		t.Errorf("header %q, want %q", header, want)
	}
	if len(rest) != 0 || len(rows) != len(topWant) {
		t.Fatalf("%d rows (want %d), other lines %q:\n%s", len(rows), len(topWant), rest, b.String())
	}
	var selfWall, selfCPU float64
	for i, got := range rows {
		want := topWant[i]
		selfWall += got.selfWall
		selfCPU += got.selfCPU
		if got.name != want.name {
			t.Errorf("row %d: %s, want %s", i, got.name, want.name)
			continue
		}
		g := []float64{got.totalWall, got.selfWall, got.totalCPU, got.selfCPU}
		w := []float64{want.totalWall, want.selfWall, want.totalCPU, want.selfCPU}
		for k := range g {
			if math.Abs(g[k]-w[k]) > 5e-4 || math.Abs(got.pct[k]-want.pct[k]) > 5e-3 {
				t.Errorf("%s column %d: %.3f s %.2f%%, want %.3f s %.2f%%", got.name, k, g[k], got.pct[k], w[k], want.pct[k])
			}
		}
	}
	// Conservation: each stack has one leaf, so the selves are the totals.
	if math.Abs(selfWall-12) > 1e-9 || math.Abs(selfCPU-20) > 1e-9 {
		t.Errorf("self wall sums to %.3f s (want 12), self CPU to %.3f s (want 20)", selfWall, selfCPU)
	}
}

// TestTopRowsCut: n rows, then how many more there are.
func TestTopRowsCut(t *testing.T) {
	s, tot := topStacks()
	var b bytes.Buffer
	if err := emit.WriteTop(&b, s, tot, 3, true, ""); err != nil {
		t.Fatal(err)
	}
	_, rows, rest := parseTop(t, b.String())
	if len(rows) != 3 || rows[0].name != "main" || rows[2].name != "work" {
		t.Errorf("rows %v, want main, app, work", rows)
	}
	if len(rest) != 1 || rest[0] != "... 4 more functions: --top=N shows N" {
		t.Errorf("after the rows: %q", rest)
	}
}

// TestTopTableSums: TopTable's own numbers, unrounded (ns), for the
// same known table; then a count event prints counts, not seconds.
func TestTopTableSums(t *testing.T) {
	s, tot := topStacks()
	rows, wall, cpu := emit.TopTable(s, tot)
	if wall != 12e9 || cpu != 20e9 || len(rows) != len(topWant) {
		t.Fatalf("wall %g, cpu %d, %d rows; want 12e9, 20e9, %d", wall, cpu, len(rows), len(topWant))
	}
	for i, r := range rows {
		w := topWant[i]
		if r.Name != w.name || r.TotalWall != w.totalWall*1e9 || r.SelfWall != w.selfWall*1e9 ||
			r.TotalCPU != uint64(w.totalCPU*1e9) || r.SelfCPU != uint64(w.selfCPU*1e9) {
			t.Errorf("row %d: %+v, want %+v (s)", i, r, w)
		}
	}
	var b bytes.Buffer
	if err := emit.WriteTop(&b, s, tot, 1, false, "cycles"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if want := "# cycles/parallelism total 12000000000, CPU total 20000000000, 7 functions"; !strings.HasPrefix(lines[0], want) {
		t.Errorf("header %q, want %q...", lines[0], want)
	}
	if f := strings.Fields(lines[2]); len(f) != 9 || f[0] != "10000000000" || f[1] != "83.33%" || f[8] != "main" {
		t.Errorf("first row %q, want 10000000000 83.33%% ... main", lines[2])
	}
}
