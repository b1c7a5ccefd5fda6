package fold

import "github.com/wallfold/wallfold/emit"

// StackTotals is what a run with a folded, top or svg output read: each
// stack's CPU and wall totals, and the unit they count.
type StackTotals struct {
	Stacks *emit.Stacks
	Totals *emit.Totals
	// Event is the profiled event; TimeBased: its weights are nanoseconds.
	Event     string
	TimeBased bool
}

// StackTotals returns the stacks read (after Read); false when the run's
// output keeps none (pprof, summary, trace).
func (r *Run) StackTotals() (StackTotals, bool) {
	s, t, ok := emit.StackTotals(r.out)
	return StackTotals{Stacks: s, Totals: t, Event: string(r.sel.event), TimeBased: r.sel.unitNs()}, ok
}
