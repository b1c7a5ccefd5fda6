package emit

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"
)

// TopRows is how many rows the top table shows by default: a screenful.
const TopRows = 25

// FuncTotals is one function's row in the top table: wall and CPU, of the
// samples where it is the leaf (self) and of those where it is anywhere
// in the stack (total, counted once per stack).
type FuncTotals struct {
	Name                string
	SelfWall, TotalWall float64
	SelfCPU, TotalCPU   uint64
}

// TopTable sums the folded stacks by function, largest total wall first
// (ties by name).
func TopTable(s *Stacks, t *Totals) (rows []FuncTotals, wall float64, cpu uint64) {
	byName := map[string]*FuncTotals{}
	row := func(name string) *FuncTotals {
		r := byName[name]
		if r == nil {
			r = &FuncTotals{Name: name}
			byName[name] = r
		}
		return r
	}
	seen := map[string]bool{}
	for id := range t.Wall {
		w, c := t.Wall[id], t.CPU[id]
		if t.N[id] == 0 && w == 0 {
			continue
		}
		frames := s.Frames(uint32(id))
		if len(frames) == 0 {
			continue
		}
		wall += w
		cpu += c
		clear(seen)
		for _, f := range frames {
			name := s.Name(f)
			if !seen[name] {
				seen[name] = true
				r := row(name)
				r.TotalWall += w
				r.TotalCPU += c
			}
		}
		leaf := row(s.Name(frames[len(frames)-1]))
		leaf.SelfWall += w
		leaf.SelfCPU += c
	}
	for _, r := range byName {
		rows = append(rows, *r)
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].TotalWall != rows[j].TotalWall {
			return rows[i].TotalWall > rows[j].TotalWall
		}
		return rows[i].Name < rows[j].Name
	})
	return rows, wall, cpu
}

// WriteTop writes the table perf report --latency users know: one row per
// function, wall and CPU, total and self, in seconds (events for other
// events) and % of all, the first n rows.
func WriteTop(w io.Writer, s *Stacks, t *Totals, n int, timeBased bool, unit string) error {
	rows, wall, cpu := TopTable(s, t)
	if n <= 0 {
		n = TopRows
	}
	bw := bufio.NewWriter(w)
	val := func(x float64) string {
		if timeBased {
			return fmt.Sprintf("%9.3f s", x/1e9)
		}
		return fmt.Sprintf("%11.0f", x)
	}
	pct := func(x, of float64) float64 {
		if of == 0 {
			return 0
		}
		return 100 * x / of
	}
	what := "wall"
	if !timeBased {
		what = unit + "/parallelism"
	}
	fmt.Fprintf(bw, "# %s total %s, CPU total %s, %d functions (total: inclusive, self: as leaf)\n",
		what, strings.TrimSpace(val(wall)), strings.TrimSpace(val(float64(cpu))), len(rows))
	fmt.Fprintf(bw, "%19s %19s %19s %19s  %s\n", "total wall", "self wall", "total CPU", "self CPU", "function")
	for i, r := range rows {
		if i == n {
			fmt.Fprintf(bw, "... %d more functions: --top=N shows N\n", len(rows)-n)
			break
		}
		fmt.Fprintf(bw, "%s %6.2f%% %s %6.2f%% %s %6.2f%% %s %6.2f%%  %s\n",
			val(r.TotalWall), pct(r.TotalWall, wall), val(r.SelfWall), pct(r.SelfWall, wall),
			val(float64(r.TotalCPU)), pct(float64(r.TotalCPU), float64(cpu)),
			val(float64(r.SelfCPU)), pct(float64(r.SelfCPU), float64(cpu)), r.Name)
	}
	return bw.Flush()
}
