package state

import (
	"strings"
	"testing"
)

// orderThreads: two threads run from 10 to 110 ms and sleep (OUT); thread
// 1 runs again from 130 ms, thread 2 from 160 ms, both to 210 ms. By
// design thread 1's samples have parallelism 1 from 130 to 160 ms, all
// others 2; 20 ms are blocked.
func orderThreads() map[int][]seg {
	return map[int][]seg{
		1: {{10 * ms, 110 * ms, offBlocked}, {130 * ms, 210 * ms, offBlocked}},
		2: {{10 * ms, 110 * ms, offBlocked}, {160 * ms, 210 * ms, offBlocked}},
	}
}

// wantOrderPar is the design's parallelism of a sample.
func wantOrderPar(e Event) int {
	if e.TID == 1 && e.Time > 130*ms && e.Time < 160*ms {
		return 1
	}
	return 2
}

// roundOrder prints evs (in time order) as perf record writes them: pass
// after pass of pass ns, in each the records of thread 1 (its CPU's ring),
// then thread 2's, then a round record (rounds) or none.
func roundOrder(evs []Event, pass int64, rounds bool) []Event {
	var out []Event
	for lo := int64(0); lo <= 300*ms; lo += pass {
		for _, tid := range []int{1, 2} {
			for _, e := range evs {
				if e.TID == tid && e.Time >= lo && e.Time < lo+pass {
					out = append(out, e)
				}
			}
		}
		if rounds {
			out = append(out, Event{Kind: KindRound})
		}
	}
	return out
}

// checkOrderRun checks a run of orderThreads against the design: each
// sample's parallelism, and the split of refSplit, which counts the
// stretches on its own.
func checkOrderRun(t *testing.T, m *Model, pars map[int]int, evs []Event, segments int64) {
	t.Helper()
	for _, e := range evs {
		if e.Kind == KindSample && pars[e.Ref] != wantOrderPar(e) {
			t.Errorf("sample %d (tid %d at %d ms): parallelism %d, want %d", e.Ref, e.TID, e.Time/ms, pars[e.Ref], wantOrderPar(e))
		}
	}
	ref, _ := refSplit(orderThreads())
	sp := m.Result().Splits
	if len(sp) != 1 {
		t.Fatalf("splits %+v, want one", sp)
	}
	got := sp[0]
	if got.Span() != segments*ref.Span() || got.OnCPU != segments*ref.OnCPU || got.Blocked != segments*ref.Blocked ||
		got.CPU != segments*ref.CPU || got.Runnable != 0 {
		t.Errorf("split %+v (span %d), want %d times %+v (span %d)", got, got.Span(), segments, ref, ref.Span())
	}
}

// Was a bug (fixed): records printed in perf record's order (perf script
// --show-round-events: one CPU's records of a pass, then another's) went
// to the tracker as they came: a thread's records stepped back 40 ms at
// each pass, and parallelism, gaps and the split were wrong. Now they are
// put in time order by perf's rule on the round records, or, with no
// round record, by a window longer than the disorder: the same answers as
// in time order, by design.
func TestOrderRoundRecords(t *testing.T) {
	evs := timeline(orderThreads())
	for _, c := range []struct {
		name   string
		in     []Event
		window int64
	}{
		{"time order", evs, 0},
		{"round order, round records", roundOrder(evs, 40*ms, true), 0},
		{"round order, a window", roundOrder(evs, 40*ms, false), 60 * ms},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, _, pars := feedOff(t, Options{OrderWindow: c.window}, c.in)
			checkOrderRun(t, m, pars, evs, 1)
			if n, _, _ := m.StepsBack(); n != 0 {
				t.Errorf("%d steps back, want none", n)
			}
			for _, w := range m.Warnings() {
				if strings.Contains(w, "time order") {
					t.Errorf("warning %q", w)
				}
			}
		})
	}
}

// Was a bug (fixed): two traces concatenated (cat a.txt a.txt): the second
// copy's records stepped back to the first one's start, and the tracker
// took them as going on from the first copy's end: the span was one
// copy's, the wall two copies'. Now the step starts a new segment: each
// copy is counted as it would be alone, the span is the sum of the two,
// with off-CPU time total = span, and a warning says so. (The window is
// shorter than this 0.2 s trace here: a trace shorter than the window is
// merged with its copy in time order.)
func TestOrderConcatenated(t *testing.T) {
	one := timeline(orderThreads())
	evs := append([]Event(nil), one...)
	for _, e := range one {
		if e.Kind == KindSample {
			e.Ref += 100000 // the second copy's samples, told apart
		}
		evs = append(evs, e)
	}
	m, off, pars := feedOff(t, Options{OrderWindow: 50 * ms}, evs)
	for _, e := range evs {
		if e.Kind == KindSample && pars[e.Ref] != wantOrderPar(e) {
			t.Errorf("sample %d (tid %d at %d ms): parallelism %d, want %d", e.Ref, e.TID, e.Time/ms, pars[e.Ref], wantOrderPar(e))
		}
	}
	checkOrderRun(t, m, pars, one, 2)
	var offNs int64
	for _, w := range off {
		offNs += w.OffCPU
	}
	ref, _ := refSplit(orderThreads())
	if offNs != 2*ref.Blocked || ref.Blocked != 20*ms {
		t.Errorf("off-CPU shares %d ns, want twice the blocked time %d", offNs, 2*ref.Blocked)
	}
	n, from, to := m.StepsBack()
	if n != 1 || from != 210*ms || to != 10*ms {
		t.Errorf("StepsBack %d, from %d to %d; want 1, from 210 ms to 10 ms", n, from, to)
	}
	if ws := strings.Join(m.Warnings(), "\n"); !strings.Contains(ws, "stepped back 1 time(s)") || !strings.Contains(ws, "0.200 s") {
		t.Errorf("warnings %q lack the step back and its size", ws)
	}
}

// The order stage's memory is bounded: before any round record it holds
// at most windowMax records, after one orderMax, whatever the input; a
// record earlier than one passed on early starts a segment, and every
// sample is still released once.
func TestOrderStageBounded(t *testing.T) {
	// Two runs 1000 s apart, their records interleaved one by one; the
	// second's come every 10 µs, so that more than windowMax of them fall
	// in the window.
	var a, b []Event
	for i := int64(0); i < 3*windowMax; i++ {
		a = append(a, clockSample(ms+i*ms, 1, 1, 0, int(2*i+1)))
		b = append(b, clockSample(1000e9+i*10*us, 2, 2, 1, int(2*i+2)))
	}
	for _, rounds := range []bool{false, true} {
		var evs []Event
		for i := range a {
			evs = append(evs, a[i], b[i])
			if rounds && i%1000 == 0 {
				evs = append(evs, Event{Kind: KindRound})
			}
		}
		m := NewModel(Options{Scope: Workload})
		released, most := 0, 0
		for _, e := range evs {
			m.Add(&e)
			released += len(m.Ready())
			most = max(most, m.seg.ord.run.size+len(m.seg.ord.late))
		}
		released += len(m.Close())
		limit := windowMax
		if rounds {
			limit = orderMax
		}
		t.Logf("rounds %v: held at most %d", rounds, most)
		if most > limit || released != len(a)+len(b) {
			t.Errorf("rounds %v: held at most %d records (limit %d), released %d samples of %d", rounds, most, limit, released, len(a)+len(b))
		}
		if n, _, _ := m.StepsBack(); n == 0 {
			t.Errorf("rounds %v: no step back told", rounds)
		}
		if ws := strings.Join(m.Warnings(), "\n"); !rounds && !strings.Contains(ws, "full ordering stage") {
			t.Errorf("warnings %q do not say the stage was full", ws)
		}
	}
}

// perf script prints its synthesized records (at 0.000000) only at the
// start of its output: one after timed records is another trace's start.
// Two copies of a 0.2 s trace (shorter than the window: the step back
// alone would have them merged), each with such a record first: two
// segments, each counted as alone, the span theirs summed, one warning.
func TestOrderNewTraceAtTimeZero(t *testing.T) {
	one := timeline(orderThreads())
	start := Event{Kind: KindComm, PID: 1, TID: 1}
	evs := append([]Event{start}, one...)
	evs = append(evs, start)
	for _, e := range one {
		if e.Kind == KindSample {
			e.Ref += 100000
		}
		evs = append(evs, e)
	}
	m, _, pars := feedOff(t, Options{}, evs)
	for _, e := range evs {
		if e.Kind == KindSample && pars[e.Ref] != wantOrderPar(e) {
			t.Errorf("sample %d (tid %d at %d ms): parallelism %d, want %d", e.Ref, e.TID, e.Time/ms, pars[e.Ref], wantOrderPar(e))
		}
	}
	checkOrderRun(t, m, pars, one, 2)
	if n, from, to := m.StepsBack(); n != 1 || from != 210*ms || to != 0 {
		t.Errorf("StepsBack %d, from %d to %d; want 1, from 210 ms to 0", n, from, to)
	}
	if ws := strings.Join(m.Warnings(), "\n"); !strings.Contains(ws, "another trace began 1 time(s)") {
		t.Errorf("warnings %q lack the new trace", ws)
	}
}

// Text in time order for sortedAfter and sortedRecords is perf's sorted
// output: the stage stops holding records (workload scope), and a record
// out of order after that starts a new segment; until then records out
// of order within the window are put in order.
func TestOrderStageSortedText(t *testing.T) {
	const n = sortedRecords + 1000
	step := int64(2*sortedAfter) / n // 8 s of records
	run := func(lateAt int) (heldLate, steps, released int) {
		m := NewModel(Options{Scope: Workload})
		ref := 0
		add := func(at int64) {
			ref++
			m.Add(new(clockSample(at, 1, 1+ref%2, ref%2, ref)))
			released += len(m.Ready())
		}
		for i := 0; i < n; i++ {
			add(ms + int64(i)*step)
			if i == lateAt {
				heldLate = m.seg.ord.run.size + len(m.seg.ord.late)
				add(ms + int64(i)*step - 100*ms) // 100 ms late: within the window
			}
		}
		released += len(m.Close())
		steps, _, _ = m.StepsBack()
		return heldLate, steps, released
	}
	// Late in the first second: put in order, nothing told.
	if _, steps, rel := run(1000); steps != 0 || rel != n+1 {
		t.Errorf("late record at 1000: %d told, released %d of %d", steps, rel, n+1)
	}
	// Late after 8 s of sorted text: nothing was held, so it is a step
	// back (a new segment).
	held, steps, rel := run(n - 10)
	if steps != 1 || rel != n+1 || held > 1 {
		t.Errorf("late record at the end: %d told, %d held before it, released %d of %d", steps, held, rel, n+1)
	}
}
