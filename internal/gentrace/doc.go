// Package gentrace simulates a many-CPU machine, knows its exact truth,
// and prints its run as perf script text, so that a reader of that text
// can be judged against what really happened.
//
// It owns three things: the simulation (Simulate: threads grouped in
// processes, alternating run and block bursts on N CPUs, one FIFO run
// queue, time slices, cpu-clock samples every Period of a thread's CPU
// time), the truth taken from the simulation's run intervals, never from
// the text (Sim.Truth: each sample's parallelism, wall per function,
// process and group, time on CPU per group), and the text (Sim.Text: the
// same run as perf script prints it, in a Style: CPU-wide or per-task
// switch records or none, task events or not, a pid column or not, per-CPU
// clock skew, per-CPU loss windows). Workloads are ready-made Configs.
//
// It must not know how wallfold models a trace: it imports nothing of
// wallfold, so that the truth cannot borrow the model's mistakes.
package gentrace
