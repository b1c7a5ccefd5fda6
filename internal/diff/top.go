package diff

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
)

// By is what the top table's rows are.
type By uint8

const (
	// ByFunction: one row per function, inclusive of its callees.
	ByFunction By = iota
	// ByStack: one row per whole stack.
	ByStack
)

// UnmarshalText decodes function or stack (for flags).
func (b *By) UnmarshalText(t []byte) error {
	switch string(t) {
	case "function":
		*b = ByFunction
	case "stack":
		*b = ByStack
	default:
		return fmt.Errorf("--by=%s: want function or stack", t)
	}
	return nil
}

// TopRows is how many rows the table shows by default: a screenful.
const TopRows = 25

// ByDelta sorts rows by how much their wall time changed, largest change
// (grown or shrunk) first; ties by CPU change, then name.
func ByDelta(rows []Row) {
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i].Delta(), rows[j].Delta()
		if x, y := math.Abs(a.Wall), math.Abs(b.Wall); x != y {
			return x > y
		}
		if x, y := math.Abs(a.CPU), math.Abs(b.CPU); x != y {
			return x > y
		}
		return rows[i].Name < rows[j].Name
	})
}

// WriteTop writes the rows (functions or stacks) sorted by |Δ wall|, the
// first n: wall before, after and their difference, CPU the same, and
// the parallelism of each side.
func WriteTop(w io.Writer, d *Diff, by By, n int) error {
	rows := d.Stacks
	what := "stacks"
	if by == ByFunction {
		rows, what = d.Functions(), "functions (inclusive)"
	} else {
		rows = append([]Row(nil), rows...)
	}
	ByDelta(rows)
	if n <= 0 {
		n = TopRows
	}
	bw := bufio.NewWriter(w)
	f := newFormat(d.After.TimeBased)
	t := d.Total
	fmt.Fprintf(bw, "# %s: %s -> %s (%s), CPU %s -> %s (%s), parallelism %s\n",
		f.what, f.num(t.Before.Wall, false, false), f.num(t.After.Wall, false, false), f.num(t.Delta().Wall, true, false),
		f.num(t.Before.CPU, false, false), f.num(t.After.CPU, false, false), f.num(t.Delta().CPU, true, false), parallelism(t))
	if d.Scale != (Weights{1, 1}) {
		fmt.Fprintf(bw, "# -n: before's wall scaled by %.4f, its CPU by %.4f, to after's totals (parallelism as recorded)\n", d.Scale.Wall, d.Scale.CPU)
	}
	fmt.Fprintf(bw, "# %d %s by |wall delta|; before: %s, after: %s\n", len(rows), what, d.Before.Name, d.After.Name)
	fmt.Fprintf(bw, "%*s %*s %*s %7s %*s %*s %*s %13s  %s\n", f.w, "wall before", f.w, "wall after", f.w, "wall delta", "",
		f.w, "CPU before", f.w, "CPU after", f.w, "CPU delta", "parallelism", by)
	for i, r := range rows {
		if i == n {
			fmt.Fprintf(bw, "... %d more: --top=N shows N\n", len(rows)-n)
			break
		}
		dl := r.Delta()
		fmt.Fprintf(bw, "%s %s %s %7s %s %s %s %13s  %s\n", f.num(r.Before.Wall, false, true), f.num(r.After.Wall, false, true), f.num(dl.Wall, true, true),
			change(r.Before.Wall, r.After.Wall), f.num(r.Before.CPU, false, true), f.num(r.After.CPU, false, true), f.num(dl.CPU, true, true), parallelism(r), r.Name)
	}
	return bw.Flush()
}

func (b By) String() string {
	if b == ByStack {
		return "stack"
	}
	return "function"
}

// format writes weights as seconds (time) or counts (other events).
type format struct {
	timeBased bool
	w         int // a value's width
	what      string
}

func newFormat(timeBased bool) format {
	if timeBased {
		return format{timeBased, 11, "wall"}
	}
	return format{timeBased, 13, "wall (count/parallelism)"}
}

// num writes x as seconds or a count; signed puts + on a positive one,
// padded gives it its column's width.
func (f format) num(x float64, signed, padded bool) string {
	verb := "%"
	if signed {
		verb += "+"
	}
	if f.timeBased {
		if padded {
			verb += "9"
		}
		return fmt.Sprintf(verb+".3f s", x/1e9)
	}
	if padded {
		verb += "13"
	}
	return fmt.Sprintf(verb+".0f", x)
}

// change is the relative change of a wall time: +12.5%, new, gone.
func change(before, after float64) string {
	switch {
	case before == after:
		return ""
	case before == 0:
		return "new"
	case after == 0:
		return "gone"
	}
	return fmt.Sprintf("%+.1f%%", 100*(after-before)/before)
}

// parallelism is "1.00 -> 1.93"; "-" for a side without wall time.
func parallelism(r Row) string {
	p := func(x float64, wall float64) string {
		if wall == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f", x)
	}
	return p(r.ParBefore, r.Before.Wall) + " -> " + p(r.ParAfter, r.After.Wall)
}
