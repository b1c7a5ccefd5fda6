package fold

import (
	"math"

	"github.com/wallfold/wallfold/state"
)

// window cuts the released samples to --time's window and sorts them into
// --split's windows: the run's time, in trace ns.
type window struct {
	filter *Filter
	split  int64 // --split, ns (0: one profile)
	first  int64 // the trace's first timed record, as far as known
	lo, hi int64 // --time, once fixed (set)
	set    bool
	// deferAll: a window in percent on a pipe; the samples wait in
	// deferred until the trace's end tells the span.
	deferAll bool
	deferred []state.Weighted
}

// start fixes the --time window at the trace's first record (and its
// last, filter.End, when known: else a window in percent waits, deferAll).
func (w *window) start(first int64) {
	w.first, w.set = first, true
	w.lo, w.hi = w.bounds(first)
}

// bounds is --time's window in ns (the whole trace when there is none)
// for a trace that begins at first.
func (w *window) bounds(first int64) (lo, hi int64) {
	if !w.filter.Time.set {
		return -1 << 62, 1 << 62
	}
	return w.filter.Time.bounds(first, w.filter.End)
}

// cut returns the part of ws that falls in the --time window (nil: none).
// A share of off-CPU time keeps the part of it in the window.
func (w *window) cut(ws *state.Weighted) *state.Weighted {
	if ws.State != state.OnCPU && ws.State != state.Lost {
		ns := spread(ws.Time, ws.OffEnd, float64(ws.OffCPU), w.lo, w.hi)
		if ns <= 0 {
			return nil
		}
		c := *ws
		c.OffCPU = int64(math.Round(ns))
		c.Time, c.OffEnd = max(ws.Time, w.lo), min(ws.OffEnd, w.hi)
		return &c
	}
	if ws.Time < w.lo || ws.Time > w.hi {
		return nil
	}
	return ws
}

// of returns the --split window of trace time t.
func (w *window) of(t int64) int32 {
	if w.split <= 0 || t <= w.first {
		return 0
	}
	return int32((t - w.first) / w.split)
}

// each calls add with each --split window that [start, end] overlaps and
// the part of ns, spread evenly over it, that falls in the window.
func (w *window) each(start, end int64, ns float64, add func(win int32, part float64)) {
	if w.split <= 0 || end <= start {
		add(w.of(start), ns)
		return
	}
	for win := w.of(start); ; win++ {
		lo := w.first + int64(win)*w.split
		hi := lo + w.split
		if part := spread(start, end, ns, lo, hi); part > 0 {
			add(win, part)
		}
		if hi >= end {
			break
		}
	}
}

// spread returns the part of ns, taken evenly from start to end, that
// falls in [lo, hi]; all of it or nothing when start = end.
func spread(start, end int64, ns float64, lo, hi int64) float64 {
	if end <= start {
		if start >= lo && start <= hi {
			return ns
		}
		return 0
	}
	a, b := max(start, lo), min(end, hi)
	if b <= a {
		return 0
	}
	return ns * float64(b-a) / float64(end-start)
}
