package fold

import (
	"errors"
	"fmt"
	"io"

	"github.com/wallfold/wallfold/emit"
	"github.com/wallfold/wallfold/internal/fileio"
	"github.com/wallfold/wallfold/parse"
	"github.com/wallfold/wallfold/state"
)

// Run is one conversion: the records of one trace through the model into
// one output (and the summary, with Config.Summary).
type Run struct {
	cfg    Config
	in     Input
	sel    *selector
	model  *state.Model
	out    emit.Writer
	sum    *emit.Summarizer // --summary beside another format
	fields *parse.FieldCheck
	win    window
	header parse.PerfHeader // what perf's header says of the calendar
	off    offCPU
	cov    switchCoverage // --off-cpu: switch-outs with a stack
	spin   *spinDetector  // nil: --spin=none
	short  shortStacks    // stacks cut by the unwinder
	// splitWhole: a --time window the model's splits could not cut.
	splitWhole bool
	verdictParts
	timelineBegun bool
	reused
	names threadNames // ":TID" comms named
	wake  wakeups     // wakeup samples, their wakers
	idle  idleSamples // samples of tid 0, said once
}

// reused is what the run fills again and again in place: an Event for
// each record, a Sample for each sample released.
type reused struct {
	sample emit.Sample // what take hands the writers
	ev     state.Event // the record's event (toEvent)
}

// verdictParts is what the run says once the input has ended.
type verdictParts struct {
	warnings []string
	// truncated: the input ended early (a truncated gzip). What was read
	// is a profile of its own: written, then this is the exit status.
	truncated *ExitError
}

// ExitError is the run's verdict when it fails: the exit status and why.
type ExitError struct {
	Code int
	Msg  string
}

func (e *ExitError) Error() string { return e.Msg }

// ExitCode is the exit status the run ends with.
func (e *ExitError) ExitCode() int { return e.Code }

// New sets up a run of cfg on in (a file: read once more here for its
// threads' processes, unless every thread is one group).
func New(cfg Config, in Input) (*Run, error) {
	cfg.Output.OffCPU = cfg.OffCPU
	if err := cfg.checkMerge(); err != nil {
		return nil, err
	}
	wake := newWakeups()
	cfg.Output.Wakers = wake.names
	if cfg.Filter.Time.Percent() && in.LastTime != nil {
		cfg.Filter.End = in.LastTime() // 0 on a pipe: the samples wait
	}
	r := &Run{cfg: cfg, in: in, sel: newSelector(cfg.Event), out: emit.New(cfg.Output),
		fields: parse.NewFieldCheck(in.Name), spin: newSpinDetector(cfg.Spin), names: newThreadNames(),
		cov: newSwitchCoverage(cfg.OffCPU), wake: wake}
	r.win = window{filter: &r.cfg.Filter, split: int64(cfg.Split),
		deferAll: cfg.Filter.Time.Percent() && cfg.Filter.End == 0}
	r.splitWhole = cfg.Filter.Time.set && cfg.Filter.splitWindow() == nil
	if cfg.cpuProfile() {
		// Spin-waits weigh nothing but wall time; cut stacks are
		// weighed by the CPU time they hold.
		r.spin, r.short.cpu = nil, true
	}
	if cfg.Summary && cfg.Output.Format != emit.Summary {
		r.sum = emit.NewSummarizer()
	}
	r.model = state.NewModel(cfg.modelOptions(&in))
	if in.Tasks != nil && cfg.Scope != state.Workload && !cfg.cpuProfile() {
		// A file can be read twice: learn every thread's process first
		// (a CPU profile tracks no thread: it takes each sample's pid).
		if err := in.Tasks(func(id parse.TaskID) { r.model.Seed(id.PID, id.TID, id.ParentPID) }); err != nil {
			return nil, &ExitError{2, err.Error()}
		}
	}
	if cfg.Output.Format.Streams() && r.win.deferAll {
		return nil, &ExitError{2, "-f trace is written while the trace is read, and a --time window in percent needs the trace's end, which a pipe (or a .gz) tells only at the end: give the window in seconds, or the plain file"}
	}
	return r, nil
}

// Read reads the trace to its end, then says the run's verdict: an
// *ExitError when it failed, else its warnings (and the --summary) on
// Config.Stderr.
func (r *Run) Read() error {
	in := &countingReader{r: r.in.R}
	var reader *parse.Reader
	switch {
	case r.in.Stdin:
		reader = parse.NewSequentialReader(in, r.in.Name)
	case r.in.File != nil:
		reader = parse.NewFileReader(r.in.File, r.in.Size, r.in.Name)
	default: // gzip: one stream, which cannot be cut
		reader = parse.NewReader(in, r.in.Name)
	}
	strictErr := r.scan(reader)
	var partial *ExitError
	if err := reader.Err(); errors.Is(err, io.ErrUnexpectedEOF) {
		// Only a gzip stream ends unexpectedly (a file or pipe just ends).
		partial = &ExitError{2, fmt.Sprintf("%s: gzip: unexpected end of file after %d bytes of text: the file is truncated", r.in.Name, in.n)}
	} else if err != nil {
		return &ExitError{Code: 2, Msg: fmt.Sprintf("%s: %v", r.in.Name, err)}
	}
	if strictErr != nil {
		return &ExitError{Code: 1, Msg: strictErr.Error()}
	}
	if err := reader.NotPerfScript(); err != nil {
		return &ExitError{Code: 1, Msg: err.Error()}
	}
	if err := r.fields.Err(r.cfg.Strict); err != nil {
		return &ExitError{Code: 1, Msg: err.Error()}
	}
	if r.cfg.Strict && reader.Empty() {
		return &ExitError{Code: 1, Msg: "empty input (--strict): " + parse.HowToConvert()}
	}
	r.warnings = append(append(append(reader.Warnings(), r.fields.Warnings()...), r.outWarnings()...), r.model.Warnings()...)
	if !r.cfg.Quiet && r.cfg.Output.Format != emit.Summary { // the summary carries them
		for _, w := range r.warnings {
			fmt.Fprintf(r.cfg.Stderr, "wallfold: warning: %s\n", w)
		}
	}
	if r.sum != nil {
		// The warnings are on stderr already, just above.
		end := r.end(nil)
		end.Summary.Unicode = fileio.IsTerminal(r.cfg.Stderr)
		if err := r.sum.WriteTo(r.cfg.Stderr, r.out, end); err != nil {
			return err
		}
	}
	r.truncated = partial
	return nil
}

// countingReader counts the bytes read through it, for messages.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// scan is the loop: each record to the model (a sample's stack interned
// first), what the model releases to the outputs. With Strict, it returns
// the first syntax error or lost record, which ends the loop.
func (r *Run) scan(reader *parse.Reader) (strictErr error) {
	tl, _ := r.out.(emit.Streamer)
	for reader.Scan() {
		rec := reader.Record()
		switch {
		case rec.Kind == parse.KindError:
			if r.cfg.Strict {
				return r.close(tl, rec.Err)
			}
			continue
		case rec.Kind == parse.KindLost && r.cfg.Strict:
			return r.close(tl, fmt.Errorf("%s:%d: PERF_RECORD_LOST: %d records lost (--strict); record with a larger buffer (perf record -m) or fewer events", r.in.Name, rec.Line, rec.Lost))
		case rec.Kind == parse.KindHeader:
			r.header.Add(rec)
			continue
		case rec.Kind == parse.KindOther && !rec.HasTime:
			continue // nothing for the model
		}
		r.names.fix(rec)
		r.toEvent(rec, &r.ev)
		r.model.Add(&r.ev)
		if r.cfg.Strict {
			if err := r.stepBack(rec.Line); err != nil {
				return r.close(tl, err)
			}
		}
		r.take(r.model.Ready())
		if tl != nil {
			r.timeline(tl)
		}
	}
	return r.close(tl, nil)
}

// close ends the model and hands what waited to the outputs.
func (r *Run) close(tl emit.Streamer, err error) error {
	r.take(r.model.Close())
	if tl != nil {
		r.timeline(tl)
	}
	r.flush()
	return err
}

// toEvent sets *ev to the record as the model's event: a sample's verdict
// and stack handle, a switch's handle for off-CPU time.
func (r *Run) toEvent(rec *parse.Record, ev *state.Event) {
	event(rec, ev)
	switch rec.Kind {
	case parse.KindSample:
		switch r.sel.classify(rec) {
		case blockStack:
			ev.Kind, ev.Ref = state.KindBlockStack, state.OtherEvent
			r.cov.blockStack(rec)
			if r.cfg.OffCPU {
				ev.Ref = r.intern(rec, rec.Stack)
			}
			return
		case wakeup:
			r.wake.event(rec, ev)
			return
		case otherEvent:
			ev.Ref = state.OtherEvent
		case profiled:
			ev.Ref = r.intern(rec, rec.Stack)
			r.short.see(ev.Ref, rec.Stack)
			r.fields.Add(rec)
		}
		ev.Clock = r.sel.clock(rec.Event)
		ev.Spin = r.spin != nil && r.spin.spinsAt(ev.Ref, rec.Stack)
	case parse.KindSwitch, parse.KindSwitchCPUWide:
		ev.Ref = state.OtherEvent
		r.cov.switchOut(rec)
		if r.cfg.OffCPU && rec.TID > 0 {
			ev.Ref = r.intern(rec, nil)
		}
	case parse.KindFork, parse.KindExit:
		// A stack for the task's time that no sample has: its name (at a
		// FORK its parent's, printed on the line, until it execs; at its
		// EXIT its last), its own ids.
		ev.Ref = state.OtherEvent
		if r.cfg.OffCPU && rec.SubjectTID > 0 {
			child := *rec
			child.PID, child.TID = rec.SubjectPID, rec.SubjectTID
			ev.Ref = r.intern(&child, nil)
		}
	}
}

// intern returns the handle of the record's stack, or state.Unwanted when
// --comm drops its thread (before the sample waits for its parallelism).
func (r *Run) intern(rec *parse.Record, st *parse.Stack) int {
	if !r.cfg.Filter.keepComm(rec.Comm) {
		return state.Unwanted
	}
	return int(r.out.Intern(rec, st))
}

// timeline hands the model's transitions to a streamed output, its zero
// and window fixed at the first.
func (r *Run) timeline(tl emit.Streamer) {
	trs := r.model.Transitions()
	if len(trs) == 0 {
		return
	}
	if !r.timelineBegun {
		r.timelineBegun = true
		first, _, _ := r.model.Span()
		lo, hi := r.win.bounds(first)
		tl.Begin(first, lo, hi)
	}
	tl.Transitions(trs)
}
