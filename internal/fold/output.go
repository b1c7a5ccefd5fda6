package fold

import (
	"io"
	"time"

	"github.com/wallfold/wallfold/emit"
	"github.com/wallfold/wallfold/internal/fileio"
	"github.com/wallfold/wallfold/state"
)

// Write writes the output once Read has read the trace.
func (r *Run) Write(w io.Writer) error {
	end := r.end(r.warnings)
	end.Summary.Unicode = fileio.IsTerminal(w)
	if err := r.out.WriteTo(w, end); err != nil {
		return err
	}
	return r.verdict()
}

// verdict is the run's error once its output is written: nil, or the
// input's truncation (an error with an exit status: -o FILE then leaves
// FILE as it was, stdout has the profile of what was read).
func (r *Run) verdict() error {
	if r.truncated != nil {
		return r.truncated
	}
	return nil
}

// WriteEach writes one pprof profile per --split window that has samples,
// in order, each through open (which gets the window's number).
func (r *Run) WriteEach(open func(win int, write func(io.Writer) error) error) error {
	sw, ok := r.out.(emit.SplitWriter)
	if !ok {
		return &ExitError{2, "--split needs -f pprof"}
	}
	if err := sw.WriteEach(r.end(r.warnings), open); err != nil {
		return err
	}
	return r.verdict()
}

// Stream reads the trace while it writes a streamed format (the
// timeline) to w.
func (r *Run) Stream(w io.Writer) error {
	tl, ok := r.out.(emit.Streamer)
	if !ok {
		if err := r.Read(); err != nil {
			return err
		}
		return r.Write(w)
	}
	tl.Start(w)
	if err := r.Read(); err != nil {
		return err
	}
	if err := tl.WriteTo(w, r.end(r.warnings)); err != nil {
		return err
	}
	return r.verdict()
}

// Scope is the scope the model decided (after Read).
func (r *Run) Scope() state.Scope { return r.model.Scope() }

// end is what the writers learn of the whole trace.
func (r *Run) end(warnings []string) *emit.End {
	res := r.model.Result()
	e := &emit.End{Trace: res, Event: string(r.sel.event), TimeBased: r.sel.unitNs(), Period: r.sel.period,
		Warnings: warnings}
	e.Summary = emit.SummaryOptions{TimeBased: r.sel.timeBased, Unit: string(r.sel.event), TopGroups: r.cfg.Output.Top,
		OffCPU: r.cfg.OffCPU && r.sel.seen && r.sel.timeBased && !r.cpuWeighted(), SplitWhole: r.splitWhole,
		Merge: r.cfg.Output.Merge, Wakers: r.wake.names}
	comments := []string{"wallfold " + r.cfg.Version, "scope: " + res.Scope.String()}
	for _, w := range warnings {
		comments = append(comments, "warning: "+w)
	}
	e.Meta = func(win int32) emit.Meta { return r.meta(&res, win, comments) }
	return e
}

// meta is what the profile of --split window win (-1: all) says of its
// trace: its time and duration in Unix time are those of the window, of
// --time's window, or of the trace.
func (r *Run) meta(res *state.Result, win int32, comments []string) emit.Meta {
	lo, hi := res.First, res.Last
	if r.cfg.Filter.Time.set {
		wlo, whi := r.cfg.Filter.Time.bounds(res.First, r.cfg.Filter.End)
		lo, hi = max(lo, wlo), min(hi, whi)
	}
	if split := int64(r.cfg.Split); win >= 0 && split > 0 {
		wlo := res.First + int64(win)*split
		lo, hi = max(lo, wlo), min(hi, wlo+split)
	}
	if hi < lo {
		hi = lo
	}
	return emit.Meta{
		Event:         string(r.sel.event),
		TimeBased:     r.sel.unitNs(),
		Period:        r.sel.period,
		TimeNanos:     r.unixOffset(res.First, res.Last) + lo,
		DurationNanos: hi - lo,
		Comments:      comments,
	}
}

// unixOffset returns what turns perf's clock (seconds since boot) into
// Unix time: --start (the first record's time), else perf's header (its
// "captured on" is when the recording ended: the last sample), else the
// run's own time minus the span (the trace just ended, as in a pipe
// behind perf script).
func (r *Run) unixOffset(first, last int64) int64 {
	switch h := r.header; {
	case !r.cfg.Start.IsZero():
		return r.cfg.Start.UnixNano() - first
	case !h.CapturedOn.IsZero():
		end := last
		if h.LastSample > 0 {
			end = h.LastSample
		}
		return h.CapturedOn.UnixNano() - end
	default:
		return time.Now().UnixNano() - last
	}
}
