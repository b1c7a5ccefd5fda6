package diff

import (
	"sort"
	"strings"
)

// Row is one stack or function on both sides.
type Row struct {
	Name          string
	Before, After Weights // Before scaled by Diff.Scale
	// ParBefore, ParAfter: the average parallelism (CPU/wall) of each
	// side as recorded (before any scaling); 0 without wall time.
	ParBefore, ParAfter float64
}

// Delta is After minus Before.
func (r Row) Delta() Weights { return r.After.sub(r.Before) }

// Diff is two sides joined stack by stack.
type Diff struct {
	Before, After *Side
	// Scale multiplies Before's wall and CPU (1, 1 unless normalised to
	// After's totals).
	Scale Weights
	Total Row
	// Stacks in bytewise order of their names (as inferno sorts folded
	// lines), each on one side at least.
	Stacks []Row
}

// Compare joins before and after. normalize scales before's wall and CPU
// each to after's total (difffolded.pl -n): the rows then compare shares
// of the whole, for runs of different lengths.
func Compare(before, after *Side, normalize bool) (*Diff, error) {
	if err := compatible(before, after); err != nil {
		return nil, err
	}
	d := &Diff{Before: before, After: after, Scale: Weights{1, 1}}
	tb, ta := before.Total(), after.Total()
	if normalize {
		if tb.Wall != 0 {
			d.Scale.Wall = ta.Wall / tb.Wall
		}
		if tb.CPU != 0 {
			d.Scale.CPU = ta.CPU / tb.CPU
		}
	}
	d.Total = d.row("", tb, ta)
	names := make([]string, 0, len(after.Stacks)+len(before.Stacks)/4)
	for name := range after.Stacks {
		names = append(names, name)
	}
	for name := range before.Stacks {
		if _, ok := after.Stacks[name]; !ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	d.Stacks = make([]Row, len(names))
	for i, name := range names {
		d.Stacks[i] = d.row(name, before.Stacks[name], after.Stacks[name])
	}
	return d, nil
}

// row is the row of raw weights b (before) and a (after).
func (d *Diff) row(name string, b, a Weights) Row {
	return Row{Name: name, Before: Weights{b.Wall * d.Scale.Wall, b.CPU * d.Scale.CPU}, After: a,
		ParBefore: b.Parallelism(), ParAfter: a.Parallelism()}
}

// Functions sums the stacks by function: each function's inclusive
// weights, a stack counted once however often the function is in it
// (recursion), the command (the root) a function too.
func (d *Diff) Functions() []Row {
	type sums struct{ before, after Weights }
	byName := map[string]*sums{}
	seen := map[string]bool{}
	add := func(stack string, side *Side, before bool) {
		w, ok := side.Stacks[stack]
		if !ok {
			return
		}
		clear(seen)
		for _, f := range strings.Split(stack, ";") {
			if seen[f] {
				continue
			}
			seen[f] = true
			s := byName[f]
			if s == nil {
				s = &sums{}
				byName[f] = s
			}
			if before {
				s.before = s.before.add(w)
			} else {
				s.after = s.after.add(w)
			}
		}
	}
	for _, r := range d.Stacks {
		add(r.Name, d.Before, true)
		add(r.Name, d.After, false)
	}
	rows := make([]Row, 0, len(byName))
	for name, s := range byName {
		rows = append(rows, d.row(name, s.before, s.after))
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Name < rows[j].Name })
	return rows
}
