package state

import "testing"

// stallTrace: threads 101 and 102 (process 1) switched in at 1 ms and
// sampled every ms (101 at .3, 102 at .6) up to 10 ms; then the trace
// prints nothing until 40 ms (a stalled VM); then 102 is sampled first
// (40.1, 41.1, ...) and 101 (40.3, ...) to 45 ms, and both are switched
// out at 45.8 ms. With gone, 101 has no record after 9.3 ms (it exited
// without one: no task events). Refs: 1000+k for 101, 2000+k for 102, k
// the sample's ms.
func stallTrace(gone bool) []Event {
	evs := []Event{
		{Kind: KindSwitch, Time: 1 * ms, PID: 1, TID: 101, CPU: -1, Ref: OtherEvent},
		{Kind: KindSwitch, Time: 1 * ms, PID: 1, TID: 102, CPU: -1, Ref: OtherEvent},
	}
	for k := int64(1); k <= 45; k++ {
		if k >= 10 && k < 40 {
			continue // nothing printed
		}
		first, second := []Event{clockSample(k*ms+300*us, 1, 101, -1, 1000+int(k))}, []Event{clockSample(k*ms+600*us, 1, 102, -1, 2000+int(k))}
		if k >= 40 {
			first, second = []Event{clockSample(k*ms+100*us, 1, 102, -1, 2000+int(k))}, first
		}
		if gone && k >= 40 {
			second = nil // 101's
		}
		evs = append(append(evs, first...), second...)
	}
	evs = append(evs, Event{Kind: KindSwitch, Time: 45*ms + 800*us, PID: 1, TID: 102, CPU: -1, Out: true, Ref: OtherEvent})
	if !gone {
		evs = append(evs, Event{Kind: KindSwitch, Time: 45*ms + 800*us, PID: 1, TID: 101, CPU: -1, Out: true, Ref: OtherEvent})
	}
	return evs
}

// feedSplit runs evs through a Model with splits kept: each sample's
// parallelism and the first group's split.
func feedSplit(t *testing.T, o Options, evs []Event) (map[int]int, Split) {
	t.Helper()
	o.Splits = true
	m := NewModel(o)
	pars := map[int]int{}
	take := func(ws []Weighted) {
		for _, w := range ws {
			if w.State == OnCPU {
				pars[w.Ref] = w.Parallelism
			}
		}
	}
	for _, e := range evs {
		m.Add(&e)
		take(m.Ready())
	}
	take(m.Close())
	sp := m.Result().Splits
	if len(sp) == 0 {
		t.Fatal("no split")
	}
	return pars, sp[0]
}

// The whole trace printed nothing for 30 ms: both threads stay on their
// CPUs (the switch records never said otherwise). Was: each was taken as
// stopped at its last sample, the 30 ms as blocked, and 102's first
// sample after it (before 101's) at parallelism 1.
func TestStallWholeTrace(t *testing.T) {
	pars, sp := feedSplit(t, Options{Scope: Workload}, stallTrace(false))
	for _, ref := range []int{2040, 1040, 2041, 1009, 2009} {
		if pars[ref] != 2 {
			t.Errorf("sample %d: parallelism %d, want 2 (all: %v)", ref, pars[ref], pars)
		}
	}
	if sp.OnCPU != sp.Span() || sp.Blocked != 0 || sp.CPU != 2*sp.Span() {
		t.Errorf("split %+v (span %d): want all of it on CPU, both threads throughout", sp, sp.Span())
	}
}

// The control: 101 exits without a record at 9.3 ms, and the trace is
// quiet from 9.6 to 40 ms. Its silence goes on after the quiet, while
// 102 runs: it stopped at its last sample. 102, back first after the
// quiet, ran through it as in TestStallWholeTrace.
func TestStallNotAnExit(t *testing.T) {
	pars, sp := feedSplit(t, Options{Scope: Workload}, stallTrace(true))
	for _, ref := range []int{2040, 2041, 2044} {
		if pars[ref] != 1 {
			t.Errorf("sample %d: parallelism %d, want 1 (101 is gone; all: %v)", ref, pars[ref], pars)
		}
	}
	if want := sp.Span() + 9*ms + 300*us - 1*ms; sp.OnCPU != sp.Span() || sp.CPU != want {
		t.Errorf("split %+v (span %d): want on CPU throughout, CPU %d (101 to 9.3 ms, 102 throughout)", sp, sp.Span(), want)
	}
}

// CPU-wide: CPU 0 printed nothing for 30 ms while CPU 1 went on; 101,
// switched in on CPU 0, is still on it: 102's samples meanwhile see it.
// Was: 101 taken as stopped at 9.3 ms, those samples at parallelism 1.
func TestStallOneCPU(t *testing.T) {
	evs := []Event{
		{Kind: KindSwitchCPUWide, Time: 1 * ms, PID: 1, TID: 101, CPU: 0, Ref: OtherEvent},
		{Kind: KindSwitchCPUWide, Time: 1 * ms, PID: 1, TID: 102, CPU: 1, Ref: OtherEvent},
	}
	for k := int64(1); k <= 45; k++ {
		if k < 10 || k >= 40 {
			evs = append(evs, clockSample(k*ms+300*us, 1, 101, 0, 1000+int(k)))
		}
		evs = append(evs, clockSample(k*ms+600*us, 1, 102, 1, 2000+int(k)))
	}
	pars, sp := feedSplit(t, Options{Scope: Process}, evs)
	for k := 1; k < 45; k++ { // at 45.6 ms the trace has ended for 101
		if pars[2000+k] != 2 {
			t.Errorf("102's sample at %d ms: parallelism %d, want 2", k, pars[2000+k])
		}
	}
	if sp.CPU < 2*sp.Span()-2*ms {
		t.Errorf("split %+v (span %d): CPU %d, want both threads throughout", sp, sp.Span(), sp.CPU)
	}
}
