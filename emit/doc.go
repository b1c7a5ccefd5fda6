// Package emit owns the outputs: it names frames as the flame graph tools
// do, interns stacks, filters the samples the model releases (Filter:
// parallelism, pids, tids, comms, a time window, with the typed values the
// flags decode), gathers the summary, and writes folded stacks
// (flamegraph.pl, inferno, speedscope), pprof profiles and the summary.
// Collector is its entry point for a run.
//
// It knows records (parse) and weighted samples (state), but must not
// decide parallelism, nor read files or flags: main hands it what they say.
package emit
