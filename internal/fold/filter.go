package fold

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/wallfold/wallfold/state"
)

// Filter says which samples the outputs keep. Parallelism is computed
// from every record; only what is written is filtered. The zero Filter
// keeps everything; each field's zero value keeps everything too.
type Filter struct {
	Parallelism IntList
	PIDs        IntList
	TIDs        IntList
	Comms       NameList
	Time        TimeWindow
	// End is the trace's last timestamp when it is known before reading
	// (a file's tail), so that a window in percent applies while
	// streaming; else the samples wait until the trace's end.
	End int64
}

// keepComm decides on a sample's thread name before the sample waits for
// its parallelism (its stack is then not kept at all).
func (f *Filter) keepComm(comm []byte) bool { return f.Comms.m == nil || f.Comms.m[string(comm)] }

// keep decides on a released sample, but for its time (see window).
func (f *Filter) keep(w *state.Weighted) bool {
	if !f.Parallelism.Has(w.Parallelism) || !f.TIDs.Has(w.TID) {
		return false
	}
	return f.PIDs.ranges == nil || (w.PID >= 0 && f.PIDs.Has(w.PID))
}

// IntList is perf's list syntax: "1", "1,3", "2-4", "8-" (open end). The
// zero IntList has every number.
type IntList struct {
	ranges [][2]int // inclusive; hi < 0: open
}

// UnmarshalText parses a list (for flags); an empty one is no filter.
func (l *IntList) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*l = IntList{}
		return nil
	}
	var out IntList
	for _, part := range strings.Split(string(b), ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return fmt.Errorf("%q: want N, N-M or N- (e.g. 1,3,8-)", part)
		}
		z := a
		if isRange {
			if hi == "" {
				z = -1
			} else if z, err = strconv.Atoi(hi); err != nil || z < a {
				return fmt.Errorf("%q: want N, N-M or N- (e.g. 1,3,8-)", part)
			}
		}
		out.ranges = append(out.ranges, [2]int{a, z})
	}
	if len(out.ranges) == 0 {
		return fmt.Errorf("empty list")
	}
	*l = out
	return nil
}

// Has reports n in the list (always, for the zero IntList).
func (l IntList) Has(n int) bool {
	if l.ranges == nil {
		return true
	}
	for _, r := range l.ranges {
		if n >= r[0] && (r[1] < 0 || n <= r[1]) {
			return true
		}
	}
	return false
}

// NameList is a comma-separated set of names. The zero NameList has every
// name.
type NameList struct {
	m map[string]bool
}

// UnmarshalText parses "a,b,c" (for flags); an empty one is no filter.
func (l *NameList) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*l = NameList{}
		return nil
	}
	m := map[string]bool{}
	for _, x := range strings.Split(string(b), ",") {
		if x = strings.TrimSpace(x); x != "" {
			m[x] = true
		}
	}
	l.m = m
	return nil
}

// TimeWindow is --time=START,END: absolute trace seconds or percentages
// of the trace's span, as perf report --time takes them. Either end may
// be left empty. The zero TimeWindow is no window.
type TimeWindow struct {
	start, end       float64 // seconds or percent
	hasStart, hasEnd bool
	percent          bool
	set              bool
}

// UnmarshalText parses START,END (for flags); an empty one is no window.
func (w *TimeWindow) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*w = TimeWindow{}
		return nil
	}
	s := string(b)
	var out TimeWindow
	a, z, ok := strings.Cut(s, ",")
	if !ok {
		return fmt.Errorf("%q: want START,END (e.g. 123.4,125 or 10%%,20%%)", s)
	}
	pa, pz := strings.HasSuffix(a, "%"), strings.HasSuffix(z, "%")
	if (a != "" && z != "" && pa != pz) || (a == "" && z == "") {
		return fmt.Errorf("%q: both ends in seconds or both in percent", s)
	}
	out.percent = pa || pz
	var err error
	if a != "" {
		if out.start, err = strconv.ParseFloat(strings.TrimSuffix(a, "%"), 64); err != nil {
			return fmt.Errorf("%q: bad start %q", s, a)
		}
		out.hasStart = true
	}
	if z != "" {
		if out.end, err = strconv.ParseFloat(strings.TrimSuffix(z, "%"), 64); err != nil {
			return fmt.Errorf("%q: bad end %q", s, z)
		}
		out.hasEnd = true
	}
	if out.hasStart && out.hasEnd && out.end < out.start {
		return fmt.Errorf("%q: end before start", s)
	}
	out.set = true
	*w = out
	return nil
}

// splitWindow returns, for the model, the part of the trace a --time
// window keeps once the trace's first record is known; nil for the whole
// trace (no window, or one in percent whose end a pipe tells only at its
// end).
func (f Filter) splitWindow() func(first int64) (lo, hi int64) {
	if !f.Time.set || (f.Time.percent && f.End == 0) {
		return nil
	}
	w, end := f.Time, f.End
	return func(first int64) (int64, int64) { return w.bounds(first, end) }
}

// Percent reports a window in percent of the span: it needs the trace's
// end (see Filter.End).
func (w TimeWindow) Percent() bool { return w.set && w.percent }

// bounds returns the window in ns for a trace spanning first..last.
func (w TimeWindow) bounds(first, last int64) (lo, hi int64) {
	lo, hi = -1<<62, 1<<62
	conv := func(x float64) int64 {
		if w.percent {
			return first + int64(x/100*float64(last-first))
		}
		return int64(x * 1e9)
	}
	if w.hasStart {
		lo = conv(w.start)
	}
	if w.hasEnd {
		hi = conv(w.end)
	}
	return lo, hi
}
