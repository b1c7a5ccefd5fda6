// Package state owns threads and time: it keeps, per scope group (the
// whole workload, each process, one process tree, or each thread), the
// set of threads that are on a CPU, and gives each sample the number of
// threads running at its moment: its parallelism. Model is its entry
// point (Add an Event per record, take the Weighted samples from Ready and
// Close); it also decides the scope, looks ahead for each thread's
// process, sets the silence limit, measures the span and says what the
// trace lacks.
//
// It must not know text or output formats: it imports nothing of the
// module, and its callers turn records into Events.
//
// # Model
//
// Every record of a thread is a sign of life: a sample or a SWITCH IN says
// it is running from then on; a SWITCH OUT or EXIT says it is not. Between
// a "running" sign at time L and the thread's next sign N, the thread is
// taken as running throughout [L, N] unless the gap N-L is longer than the
// silence limit (config.Gap): a thread on a CPU is sampled every period by
// a time-based event, so a long silence means it stopped at L (it exited
// without a record, or a record was lost). Whether a thread's gap is short
// is known only when its next sign arrives or the limit passes, so samples
// wait in a queue until every gap that could cover them is decided; the
// wait is bounded by the limit (a few sampling periods).
//
// The queue holds samples in input order with a sequence number. A decided
// running gap adds +1 to the samples between its two signs (a difference
// array over the queue); a sample leaves the queue when no open gap starts
// at or before it, and its parallelism is the prefix sum plus one for its
// own thread.
//
// # Files
//
// model.go is the entry point and its policies; order.go puts records in
// time order first, and segment.go starts a new segment of the trace
// where they step back past that. The tracker (tracker.go:
// threads, groups) takes one record at a time (records.go), decides gaps
// and releases samples (gap.go); it keeps each group's off-CPU split
// (offcpu.go; a new task's wait for its first run, fork.go; time on CPU
// no sample covers, unsampled.go), bridges lost records (lost.go), keeps
// silences with nothing printed from ending threads (stall.go), tells
// records written out of order (skew.go) and keeps the process tree
// (tree.go). Threads that went quiet are forgotten, in a few bytes each,
// and brought back as they were if they come back (cold.go), some
// 240 000 of them at most (coldstore.go).
package state
