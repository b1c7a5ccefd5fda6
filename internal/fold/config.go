package fold

import (
	"io"
	"strconv"
	"time"

	"github.com/wallfold/wallfold/emit"
	"github.com/wallfold/wallfold/parse"
	"github.com/wallfold/wallfold/state"
)

// Config is what one run does, as the flags say it.
type Config struct {
	Output emit.Options // the format, and how it names and weighs
	// Summary also gathers the summary, told on Stderr after the warnings.
	Summary bool
	Event   string // the profiled event ("": the first sample's)
	Filter  Filter
	// OffCPU adds each group's time off CPU, under [blocked] and
	// [runnable] leaves.
	OffCPU bool
	// Spin says which samples are spin-waits (zero: the built-in list).
	Spin SpinRule
	// Scope: which threads count together (state.Thread: each alone).
	Scope state.Scope
	Tree  string // a pid or a command: the root of tree scope
	// Start is the Unix time of the trace's first record (zero: from
	// perf's header, else now minus the span).
	Start time.Time
	Split time.Duration // pprof: one profile per window of this length
	// Strict makes a syntax error, a LOST record or a record out of time
	// order (state.Model.StepsBack) the run's end (exit 1).
	Strict  bool
	Quiet   bool      // no warnings on Stderr
	Stderr  io.Writer // warnings, --summary
	Version string    // the profile's first comment
}

// Input is the trace to read.
type Input struct {
	R    io.Reader
	Name string // for messages
	// Stdin: parse on the caller's goroutine, since the other CPU
	// belongs to perf script (measured: the background reader is 28 %
	// faster on a file, 7-13 % slower behind perf script).
	Stdin bool
	// For a regular file, which can be read again: Tasks reads it once
	// for its threads' processes and parents; LastTime tells its last
	// timestamp from its tail (0: unknown). Both nil on a pipe.
	Tasks    func(fn func(parse.TaskID)) error
	LastTime func() int64
	// File: a regular file read as it is (not gzip), of Size bytes: R's
	// text, which can then be parsed in chunks on several CPUs. Nil
	// otherwise.
	File io.ReaderAt
	Size int64
}

// pipeLookahead is how far ahead (trace time) the model looks on a pipe
// for a record that names a thread's process: perf names some threads of
// a system-wide trace without task events only in a CPU-wide switch
// record up to some 0.7 s after their first records; the window holds at
// most 2^18 events (some tens of MB) whatever its length.
const pipeLookahead = 1e9

// modelOptions are the model's options for the run.
func (c *Config) modelOptions(in *Input) state.Options {
	mo := state.Options{Scope: c.Scope, OffCPU: c.OffCPU, Splits: c.Summary || c.Output.Format == emit.Summary,
		SplitWindow: c.Filter.splitWindow(), Timeline: c.Output.Format.Streams(), CPUOnly: c.cpuProfile()}
	if pid, err := strconv.Atoi(c.Tree); err == nil && pid > 0 {
		mo.TreePID = pid
	} else {
		mo.TreeComm = c.Tree
	}
	if in.Tasks == nil {
		mo.Lookahead = pipeLookahead // a pipe (or a FIFO, <(...)) is read once
	}
	return mo
}

// cpuProfile reports a run whose output weighs each sample by its period
// alone: folded with --weight=cpu (svg and top show wall time too, pprof
// keeps both). Its samples need no thread model (state.Options.CPUOnly),
// unless something reads what only the model knows: a sample's
// parallelism (--parallelism, --parallelism-frame), its process when the
// record has no pid column (--pids, --pid and --tid roots), its group
// (--tree) or the time off CPU and the groups' splits (--off-cpu,
// --summary).
func (c *Config) cpuProfile() bool {
	o := &c.Output
	f := &c.Filter
	return o.Format == emit.Folded && o.Weight == emit.CPU && !o.ParallelismFrame && !o.PID && !o.TID &&
		f.Parallelism.ranges == nil && f.PIDs.ranges == nil && c.Tree == "" && !c.OffCPU && !c.Summary
}

// checkMerge refuses --merge=comm beside what splits the groups it joins
// again: roots comm-PID or comm-PID/TID, pprof labels pid or tid; and
// --tree beside a scope it would silently override.
func (c *Config) checkMerge() error {
	o := &c.Output
	if c.Tree != "" && (c.Scope == state.Thread || c.Scope == state.Process) {
		return &ExitError{2, "--tree makes one group of a process tree, and --scope=" + c.Scope.String() + " a group of each " + c.Scope.String() + ": give one of them"}
	}
	if o.Merge != emit.MergeComm {
		return nil
	}
	switch {
	case o.PID || o.TID:
		return &ExitError{2, "--merge=comm joins groups by command, and --pid/--tid root each process or thread apart: give one of them"}
	case o.Format == emit.Pprof && (o.Labels.PID || o.Labels.TID):
		return &ExitError{2, "--merge=comm joins groups by command, and --labels with pid or tid labels each process or thread apart: give one of them"}
	}
	return nil
}
