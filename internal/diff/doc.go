// Package diff compares two wall-clock profiles of one program, before
// and after a change: per stack and per function, wall time before and
// after beside CPU time before and after, and the average parallelism
// (CPU/wall) of each side. Its outputs are a table (top), difffolded.pl's
// three-column folded lines and a pprof profile of the difference.
//
// A Side is one profile as stacks of names (root;...;leaf, the root the
// command), read from a run's stack totals (a trace) or from a wallfold
// pprof profile; Compare joins two Sides into a Diff of plain rows.
package diff
