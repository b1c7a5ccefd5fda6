package state

// Result is what a Model hands over once the trace has been read: what
// the outputs say of the whole trace, as a value.
type Result struct {
	Scope Scope // the scope in force (Workload before any record)
	// First and Last are the trace's first and last timestamps (records
	// at time 0, perf's synthesized ones, aside).
	First, Last int64
	// Splits: how each group's span divided (on CPU, runnable, blocked),
	// in group order (a key may come more than once: a pid reused), with
	// Options.Splits. In tree scope, only the tree's.
	Splits []Split
	// Parents maps a process to the one that forked it, as FORK records
	// said; read it, do not change it.
	Parents map[int]int
	// Wakers: per group, the blocked time that each waker's wakeups
	// ended (wakeup.go), by group, the most first; with Options.Splits
	// or OffCPU and wakeup records.
	Wakers []WakerTime
}

// Result returns the trace's Result; call it after Close.
func (m *Model) Result() Result {
	return Result{Scope: m.Scope(), First: m.first, Last: m.last, Splits: m.splits, Parents: m.t.parent, Wakers: m.t.wakerTimes()}
}
