package main

import (
	"fmt"
	"strconv"
	"strings"
)

// intList is perf's list syntax: "1", "1,3", "2-4", "8-" (open end).
type intList struct {
	ranges [][2]int // inclusive; hi < 0: open
}

func parseIntList(s string) (intList, error) {
	var l intList
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return l, fmt.Errorf("%q: want N, N-M or N- (e.g. 1,3,8-)", part)
		}
		b := a
		if isRange {
			if hi == "" {
				b = -1
			} else if b, err = strconv.Atoi(hi); err != nil || b < a {
				return l, fmt.Errorf("%q: want N, N-M or N- (e.g. 1,3,8-)", part)
			}
		}
		l.ranges = append(l.ranges, [2]int{a, b})
	}
	if len(l.ranges) == 0 {
		return l, fmt.Errorf("empty list")
	}
	return l, nil
}

func (l intList) has(n int) bool {
	for _, r := range l.ranges {
		if n >= r[0] && (r[1] < 0 || n <= r[1]) {
			return true
		}
	}
	return false
}

// timeWindow is --time=START,END: absolute trace seconds or percentages
// of the trace's span, as perf report --time takes them. Either end may
// be left empty.
type timeWindow struct {
	start, end       float64 // seconds or percent
	hasStart, hasEnd bool
	percent          bool
}

func parseTimeWindow(s string) (timeWindow, error) {
	var w timeWindow
	a, b, ok := strings.Cut(s, ",")
	if !ok {
		return w, fmt.Errorf("%q: want START,END (e.g. 123.4,125 or 10%%,20%%)", s)
	}
	pa, pb := strings.HasSuffix(a, "%"), strings.HasSuffix(b, "%")
	if (a != "" && b != "" && pa != pb) || (a == "" && b == "") {
		return w, fmt.Errorf("%q: both ends in seconds or both in percent", s)
	}
	w.percent = pa || pb
	var err error
	if a != "" {
		if w.start, err = strconv.ParseFloat(strings.TrimSuffix(a, "%"), 64); err != nil {
			return w, fmt.Errorf("%q: bad start %q", s, a)
		}
		w.hasStart = true
	}
	if b != "" {
		if w.end, err = strconv.ParseFloat(strings.TrimSuffix(b, "%"), 64); err != nil {
			return w, fmt.Errorf("%q: bad end %q", s, b)
		}
		w.hasEnd = true
	}
	if w.hasStart && w.hasEnd && w.end < w.start {
		return w, fmt.Errorf("%q: end before start", s)
	}
	return w, nil
}

// bounds returns the window in ns for a trace spanning first..last.
func (w timeWindow) bounds(first, last int64) (lo, hi int64) {
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

func splitList(s string) map[string]bool {
	m := map[string]bool{}
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			m[x] = true
		}
	}
	return m
}
