package state

import (
	"math/rand/v2"
	"testing"
)

// Two threads of one process run from 1 ms to 100 ms
// (then EXIT); every record of 30-60 ms is lost and a LOST record (no CPU
// printed, as per-task traces write it) comes at 60 ms. Both are sampled
// just before and just after the loss, so both are bridged (lost.go): the
// parallelism counts them running through it, and their time in it comes
// out as [lost] pseudo-samples. The split must agree: the group ran the
// whole time, so Blocked must be 0 and no [blocked] share may be given
// (with --off-cpu the folded total would otherwise exceed the span by the
// loss: on-CPU wall + [lost] + [blocked] > span).
func TestSplitBridgedLossIsNotBlocked(t *testing.T) {
	threads := map[int][]seg{
		10: {{1 * ms, 100 * ms, offGone}},
		11: {{1 * ms, 100 * ms, offGone}},
	}
	var evs []Event
	for _, e := range timeline(threads) {
		if e.Time >= 30*ms && e.Time < 60*ms {
			continue
		}
		if e.Time >= 60*ms && (len(evs) == 0 || evs[len(evs)-1].Kind != KindLost) && e.Time-60*ms < ms {
			evs = append(evs, Event{Kind: KindLost, Time: 60 * ms, CPU: -1, Lost: 100})
		}
		evs = append(evs, e)
	}
	m, off, _ := feedOff(t, Options{Scope: Workload}, evs)
	var lostNs, blockedNs int64
	for _, w := range off {
		switch w.State {
		case Lost:
			lostNs += int64(w.Period)
		case Blocked, Runnable:
			blockedNs += w.OffCPU
		}
	}
	if m.t.stats.Bridged != 2 || lostNs == 0 {
		t.Fatalf("bridged %d, lost %d ns: the scenario should bridge both threads", m.t.stats.Bridged, lostNs)
	}
	sp := m.Result().Splits
	if len(sp) != 1 || sp[0].Blocked != 0 || blockedNs != 0 {
		t.Errorf("bridged loss: split %+v, off-CPU shares %d ns; want Blocked 0 and no share (the threads ran through the loss, counted as [lost] %d ns)", sp, blockedNs, lostNs)
	}
}

// Samples before the first switch record are in the rate estimate
// (fractional weights P/gap); once switch records come, weights are 1
// again, and g.acc must come back to an exact integer: two threads
// switched in and sampled must have Par exactly 2 (the wall weight is
// Period/Par; the README says integer parallelism with switch records is
// exact).
func TestRateThenSwitchesExact(t *testing.T) {
	gap := 3 * ms
	var pars []float64
	tr := newTracker(config{Gap: gap, Rate: true, Release: func(s sample, par float64, _ *group) {
		if s.Ref >= 1000 {
			pars = append(pars, par)
		}
	}})
	add := func(o op) { tr.add(&o.Event) }
	// Rate mode: two threads sampled at irregular gaps.
	at := int64(0)
	r := rand.New(rand.NewPCG(13, 13))
	ta, tb := int64(0), int64(500_000)
	for i := 0; i < 200; i++ {
		ta += 1_000_000 + r.Int64N(5_000_000)
		tb += 1_000_000 + r.Int64N(5_000_000)
		if ta < tb {
			add(smp(ta, 1, 10, 1+2*i))
			add(smp(tb, 1, 11, 2+2*i))
		} else {
			add(smp(tb, 1, 11, 2+2*i))
			add(smp(ta, 1, 10, 1+2*i))
		}
	}
	at = max(ta, tb) + ms
	add(in(at, 1, 10))
	add(in(at, 1, 11))
	for k := 0; k < 20; k++ {
		at += ms / 2
		add(smp(at, 1, 10+k%2, 1000+k))
	}
	tr.flush()
	// The last sample is left out: at the trace's end the other thread's
	// open gap is taken as stopped at its last sample (1 is right there).
	for i, p := range pars[1 : len(pars)-1] {
		if p != 2 {
			t.Errorf("sample %d after the switch records: Par %.17g, want exactly 2", i+1, p)
		}
	}
}
