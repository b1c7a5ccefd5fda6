// Package emit owns the outputs: it names frames as the flame graph tools
// do, interns stacks, and writes folded stacks (flamegraph.pl, inferno,
// speedscope), the top table, the SVG flame graph, pprof profiles, the
// summary and the Chrome trace timeline. Each format is a Writer, made by
// New from the registry in format.go (which also gives the flags their
// names and record its extensions); what the whole trace told comes at
// the end, as a value (End).
//
// It knows records (parse) for their frames and the model's states and
// result (state), but must not decide parallelism, select events, filter
// samples, nor read files or the command line (its flag values decode
// their own syntax): the run (internal/fold) hands it weighted samples.
package emit
