package fold

import (
	"fmt"

	"github.com/wallfold/wallfold/emit"
	"github.com/wallfold/wallfold/state"
)

// offCPU counts the off-CPU shares the profile could not take.
type offCPU struct {
	wait    []state.Weighted // shares before the first profiled sample
	noEvent int              // shares of a trace without profiled samples
	dropped int              // shares of an event not in ns
	cpuOnly int              // shares left out of a --weight=cpu profile
}

// idleSamples counts the samples of tid 0 that an output keeps: perf
// samples an idle CPU as the idle task (swapper), whose CPU time no
// thread waits for: wall time 0, which a warning says.
type idleSamples struct {
	samples int
	period  uint64
}

func (c idleSamples) warning(timeBased bool) string {
	weight := fmt.Sprintf("CPU time (%.3f s)", float64(c.period)/1e9)
	if !timeBased {
		weight = fmt.Sprintf("CPU (a weight of %d in the event's count)", c.period)
	}
	return fmt.Sprintf("%d sample(s) of tid 0 (the idle task, swapper: CPUs with nothing to run) count in %s with wall time 0: no thread waits on an idle CPU; --tids=1- leaves them out", c.samples, weight)
}

// take hands the samples the model released to the outputs, cut to the
// time window and filtered.
func (r *Run) take(ws []state.Weighted) {
	for i := range ws {
		r.takeOne(&ws[i])
	}
}

func (r *Run) takeOne(w *state.Weighted) {
	if r.cfg.Filter.Time.set {
		if r.win.deferAll {
			r.win.deferred = append(r.win.deferred, *w)
			return
		}
		if w = r.cut(w); w == nil {
			return
		}
	}
	if !r.cfg.Filter.keep(w) {
		return
	}
	switch w.State {
	case state.OnCPU:
		r.takeCPU(w)
	case state.Lost:
		r.takeLost(w)
	default:
		r.takeOff(w)
	}
}

// cut returns the part of w in the --time window (nil: none).
func (r *Run) cut(w *state.Weighted) *state.Weighted {
	if !r.win.set {
		first, _, _ := r.model.Span()
		r.win.start(first)
	}
	return r.win.cut(w)
}

// window returns the --split window of trace time t. The windows count
// from the trace's first timed record, which a sample released before it
// does not know yet: asked again each time.
func (r *Run) window(t int64) int32 {
	if r.cfg.Split <= 0 {
		return 0
	}
	r.win.first, _, _ = r.model.Span()
	return r.win.of(t)
}

func (r *Run) takeCPU(w *state.Weighted) {
	var wall float64
	switch {
	case w.Par > 0:
		wall = float64(w.Period) / w.Par // estimated parallelism is fractional
	case w.Parallelism > 0:
		wall = float64(w.Period) / float64(w.Parallelism)
	}
	if w.TID == 0 {
		r.idle.samples++
		r.idle.period += w.Period
	}
	r.spin.note(w, wall)
	r.short.note(w.Ref, wall, w.Period)
	s := r.sampleOf(w)
	s.Parallelism, s.Period, s.Wall, s.Window = w.Parallelism, w.Period, wall, r.window(w.Time)
	s.Spin = w.Spin
	if r.sum != nil {
		r.sum.Add(s, r.out)
	}
	r.out.Add(s)
}

// sampleOf returns the run's one Sample, set to w's stack, time and
// thread, the rest zero: a writer keeps nothing of it, and a Sample per
// sample, passed through an interface, would be a heap allocation each.
func (r *Run) sampleOf(w *state.Weighted) *emit.Sample {
	s := &r.sample
	*s = emit.Sample{} // then field by field: see event
	s.Ref, s.Time, s.Group, s.PID, s.TID, s.State, s.Waker = uint32(w.Ref), w.Time, w.Group, w.PID, w.TID, w.State, w.Waker
	return s
}

// cpuWeighted: an output whose widths are CPU time takes no wall-only
// time (--weight=cpu; pprof keeps both).
func (r *Run) cpuWeighted() bool {
	return r.cfg.Output.Format != emit.Pprof && r.cfg.Output.Weight == emit.CPU
}

// takeLost adds a thread's CPU time whose samples were lost, at its last
// stack under a leaf [lost]: wall time only (no sample was in the text:
// the CPU totals stay the text's periods).
func (r *Run) takeLost(w *state.Weighted) {
	if !r.sel.timeBased || w.Par <= 0 || r.cpuWeighted() {
		return
	}
	s := r.sampleOf(w)
	s.Parallelism, s.Wall, s.Window = w.Parallelism, float64(w.Period)/w.Par, r.window(w.Time)
	r.out.Add(s)
}

// takeOff adds a share of off-CPU time at its thread's stack, under a
// leaf frame that names the state, spread over the --split windows it
// overlaps. Its unit is ns: only a time-based profile takes it.
func (r *Run) takeOff(w *state.Weighted) {
	switch {
	case !r.sel.seen:
		r.off.wait = append(r.off.wait, *w) // is the profile in ns?
		return
	case !r.sel.timeBased:
		r.off.dropped++
		return
	case r.cpuWeighted():
		r.off.cpuOnly++ // no CPU time: lines of weight 0
		return
	}
	if r.sum != nil {
		r.sum.Name(r.sampleOf(w), r.out) // a group that only waited
	}
	r.cov.charged(w)
	r.wake.charged(w)
	if r.cfg.Split <= 0 || w.OffEnd <= w.Time {
		win := r.window(w.Time)
		s := r.sampleOf(w)
		s.Wall, s.Window = float64(w.OffCPU), win
		r.out.Add(s)
		return
	}
	r.window(w.Time) // the windows' zero
	r.win.each(w.Time, w.OffEnd, float64(w.OffCPU), func(win int32, part float64) {
		s := r.sampleOf(w)
		s.Wall, s.Window = part, win
		r.out.Add(s)
	})
}

// flush adds the samples that waited for the trace's end: off-CPU shares
// before the first profiled sample, and all of them for a window in
// percent of a span not known beforehand.
func (r *Run) flush() {
	if wait := r.off.wait; len(wait) > 0 {
		r.off.wait = nil
		if !r.sel.seen {
			r.off.noEvent += len(wait) // no profiled sample: no unit
		} else {
			for i := range wait {
				r.takeOff(&wait[i])
			}
		}
	}
	if !r.win.deferAll {
		return
	}
	_, r.cfg.Filter.End, _ = r.model.Span()
	r.win.deferAll = false
	d := r.win.deferred
	r.win.deferred = nil
	r.take(d)
}

// outWarnings says what the outputs could not take, and which samples
// were not profiled.
func (r *Run) outWarnings() []string {
	var ws []string
	if r.off.noEvent > 0 {
		ws = append(ws, fmt.Sprintf("--off-cpu: no samples of a profiled event, so off-CPU time (%d shares) has no profile to go to; record with -e cpu-clock", r.off.noEvent))
	}
	if r.off.cpuOnly > 0 {
		ws = append(ws, fmt.Sprintf("--off-cpu adds wall time only: with --weight=cpu the profile has none of it (%d shares left out)", r.off.cpuOnly))
	}
	if r.off.dropped > 0 {
		ws = append(ws, fmt.Sprintf("--off-cpu: the profiled event %s does not count nanoseconds, so off-CPU time (%d shares) cannot be added to it; record with -e cpu-clock", r.sel.event, r.off.dropped))
	}
	if r.idle.samples > 0 && !r.cpuWeighted() {
		ws = append(ws, r.idle.warning(r.sel.timeBased))
	}
	if w := r.spin.warning(r.sel.format); w != "" {
		ws = append(ws, w)
	}
	if w := r.short.warning(r.out, r.sel.format); w != "" {
		ws = append(ws, w)
	}
	if w := r.cov.warning(); w != "" {
		ws = append(ws, w)
	}
	ws = append(ws, r.wake.warnings(r.in.Name)...)
	return append(ws, r.sel.warnings(r.cfg.OffCPU)...)
}
