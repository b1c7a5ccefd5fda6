package emit

import (
	"fmt"
	"io"

	"github.com/wallfold/wallfold/parse"
	"github.com/wallfold/wallfold/state"
)

// Writer is one output format. It interns the stack of each sample
// before the sample waits for its parallelism (a record's frames die at
// the reader's next Scan), takes the samples once weighted, and writes
// itself when the trace has been read.
type Writer interface {
	Namer
	// Intern returns the handle of a thread's stack: its name and frames
	// (none, or st nil: the thread alone, for off-CPU time no stack says
	// more of).
	Intern(rec *parse.Record, st *parse.Stack) uint32
	// Add takes one weighted sample; s is the caller's, to keep nothing of.
	Add(s *Sample)
	// WriteTo writes the output; end says what the whole trace told.
	WriteTo(w io.Writer, end *End) error
}

// Namer names what a handle from Intern stands for.
type Namer interface {
	// Comm is the thread's name.
	Comm(ref uint32) string
	// Frames are the function names, root first, without the thread.
	Frames(ref uint32) []string
}

// Rooted is a Namer whose stacks are rooted at their thread's process as
// the model learnt it after the stack was interned (--pid or --tid without
// a pid column): Rooted is the stack a sample of ref, pid and tid is shown
// under.
type Rooted interface {
	Rooted(ref uint32, pid, tid int) uint32
}

// Sample is a weight for the outputs: CPU time at a stack (State OnCPU),
// off-CPU time of a waiting thread (Blocked, Runnable: Period 0), or CPU
// time whose samples were lost (Lost: Period 0).
type Sample struct {
	Ref                          uint32 // from Intern
	Time                         int64
	Group, PID, TID, Parallelism int
	State                        state.State
	Period                       uint64  // CPU, in the event's unit
	Wall                         float64 // in the event's unit
	Window                       int32   // --split: the profile it goes to
	// Spin: a spin-wait (state.Weighted.Spin); Parallelism then counts
	// the spinners too, so Period/Parallelism is its wall without the
	// spin rule.
	Spin bool
	// Waker: Blocked time a wakeup ended, the waker's handle
	// (Options.Wakers); 0 otherwise.
	Waker int
}

// End is what the writers learn once the trace has been read.
type End struct {
	Trace state.Result
	// The profiled event, whether it counts nanoseconds (or no sample
	// came: the usual names), its first sample's period.
	Event     string
	TimeBased bool
	Period    int64
	// Meta is the pprof profile of --split window win (-1: all of it).
	Meta func(win int32) Meta
	// Summary: how it prints (its groups and idle counts are gathered).
	Summary  SummaryOptions
	Warnings []string
}

// Options set up a Writer.
type Options struct {
	Format Format
	Weight Weight // folded, top, svg: widths by wall or CPU
	Names  NameOptions
	// PID and TID name folded roots comm-PID and comm-PID/TID.
	PID, TID bool
	// ParallelismFrame roots folded stacks at "[parallelism N]".
	ParallelismFrame bool
	Labels           Labels      // pprof
	Top              int         // top: rows (0: a screenful)
	OffCPU           bool        // trace: blocked and runnable stretches
	Merge            Merge       // summary: groups joined by command
	Wakers           *WakerNames // pprof: names the waker label's values
	SVG              SVGFlags    // svg: title, sizes, callee view
}

// New returns the Writer of o.Format.
func New(o Options) Writer {
	switch o.Format {
	case Pprof:
		return newProfileWriter(o)
	case Summary:
		return &summaryWriter{stackWriter: newStackWriter(o), sum: NewSummarizer()}
	case ChromeTrace:
		return newTraceWriter(o)
	}
	return newStackWriter(o)
}

// FormatWeight writes a weight for people: seconds for a time-based
// event (ns), else a count of the event's unit.
func FormatWeight(x float64, timeBased bool, unit string) string {
	if timeBased {
		return fmt.Sprintf("%.3f s", x/1e9)
	}
	return fmt.Sprintf("%.0f %s", x, unit)
}
