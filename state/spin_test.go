package state

import (
	"math"
	"testing"
)

// spinTrace is a process of two threads, each sampled every ms on its own
// CPU from 0 to 300 ms: from 0 to 100 ms thread 1 works while thread 2
// spins (a BLAS worker waiting for the next call); from 100 to 200 ms
// both work; from 200 to 300 ms both spin (waiting on something outside
// the process). Refs: 1 thread 1 working, 2 thread 2 working, 3 spinning.
func spinTrace(spinFlag bool) []Event {
	evs := []Event{
		{Kind: KindSwitch, Time: 1, PID: 10, TID: 10, CPU: 0},
		{Kind: KindSwitch, Time: 1, PID: 10, TID: 11, CPU: 1},
	}
	for at := ms; at <= 300*ms; at += ms {
		for tid := 10; tid <= 11; tid++ {
			spin := at > 200*ms || (tid == 11 && at <= 100*ms)
			ref := tid - 9
			if spin {
				ref = 3
			}
			evs = append(evs, Event{Kind: KindSample, Time: at, PID: 10, TID: tid, CPU: tid - 10,
				Period: uint64(ms), Clock: true, HasPeriod: true, HasTime: true, Ref: ref, Spin: spin && spinFlag})
		}
	}
	return evs
}

// wallByRef runs evs through a Model and sums each ref's wall time (ns).
func wallByRef(t *testing.T, evs []Event) map[int]float64 {
	t.Helper()
	m := NewModel(Options{Scope: Workload})
	wall := map[int]float64{}
	take := func(ws []Weighted) {
		for _, w := range ws {
			if w.Par <= 0 {
				t.Fatalf("sample at %d: parallelism %v", w.Time, w.Par)
			}
			wall[w.Ref] += float64(w.Period) / w.Par
		}
	}
	for _, e := range evs {
		m.Add(&e)
		take(m.Ready())
	}
	take(m.Close())
	return wall
}

// TestSpinWaitWeighsNothingWhileOthersWork: the designed answer, 100 ms
// of thread 1 alone, 100 ms of both, 100 ms of spinning only: the
// spinning samples weigh nothing while thread 1 works, share the moment
// when only spinners run, and the total stays the time on CPU.
func TestSpinWaitWeighsNothingWhileOthersWork(t *testing.T) {
	got := wallByRef(t, spinTrace(true))
	want := map[int]float64{1: 150 * float64(ms), 2: 50 * float64(ms), 3: 100 * float64(ms)}
	for ref, w := range want {
		if math.Abs(got[ref]-w) > 1.5*float64(ms) {
			t.Errorf("ref %d: wall %.1f ms, want %.1f", ref, got[ref]/1e6, w/1e6)
		}
	}
	// Without the rule, spinning is work: thread 1 alone is 2-parallel.
	plain := wallByRef(t, spinTrace(false))
	if math.Abs(plain[1]-100*float64(ms)) > 1.5*float64(ms) {
		t.Errorf("without spin marks, thread 1: %.1f ms, want 100", plain[1]/1e6)
	}
	var sum, plainSum float64
	for ref := range got {
		sum += got[ref]
		plainSum += plain[ref]
	}
	if math.Abs(sum-plainSum) > float64(ms) || math.Abs(sum-300*float64(ms)) > 1.5*float64(ms) {
		t.Errorf("total wall %.1f ms (without the rule %.1f), want the 300 ms on CPU", sum/1e6, plainSum/1e6)
	}
}

// TestSpinEndsAtSwitch: a spinner switched out and in again is not
// spinning until a sample says so; the gap before its first sample
// after the switch counts as work for the others.
func TestSpinEndsAtSwitch(t *testing.T) {
	evs := []Event{
		{Kind: KindSwitch, Time: 1, PID: 10, TID: 10, CPU: 0},
		{Kind: KindSwitch, Time: 1, PID: 10, TID: 11, CPU: 1},
	}
	smp := func(at int64, tid int, spin bool, ref int) Event {
		return Event{Kind: KindSample, Time: at, PID: 10, TID: tid, CPU: tid - 10, Period: uint64(ms),
			Clock: true, HasPeriod: true, HasTime: true, Ref: ref, Spin: spin}
	}
	evs = append(evs, smp(ms, 11, true, 3), smp(ms, 10, false, 1),
		Event{Kind: KindSwitch, Time: ms + ms/2, PID: 10, TID: 11, CPU: 1, Out: true},
		Event{Kind: KindSwitch, Time: ms + 3*ms/4, PID: 10, TID: 11, CPU: 1},
		smp(2*ms, 10, false, 4), // thread 11 in since 1.75 ms, not spinning: parallelism 2
		smp(2*ms+ms/4, 11, false, 2),
		smp(3*ms, 10, false, 5))
	m := NewModel(Options{Scope: Workload})
	par := map[int]float64{}
	for _, e := range evs {
		m.Add(&e)
		for _, w := range m.Ready() {
			par[w.Ref] = w.Par
		}
	}
	for _, w := range m.Close() {
		par[w.Ref] = w.Par
	}
	if par[1] != 1 || par[4] != 2 || !math.IsInf(par[3], 1) {
		t.Errorf("parallelism: thread 10 beside a spinner %v (want 1), beside it back from a switch %v (want 2); the spinner's sample %v (want +Inf)", par[1], par[4], par[3])
	}
}
