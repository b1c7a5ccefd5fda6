package state

import (
	"cmp"
	"math"
	"slices"
	"testing"
)

// A CPU's ring overflows: all its records (samples too) are lost for
// 20 ms, then perf writes a LOST record. A thread that ran before the
// loss and runs after it, with no OUT between, ran through it: the other
// thread's samples meanwhile see it.
func TestTrackerBridgesLostWindow(t *testing.T) {
	gap := 10 * ms
	lostOn := func(at int64, cpu int) op { return op{Event: Event{Kind: KindLost, Time: at, CPU: cpu, Lost: 100}} }
	tests := []struct {
		name string
		ops  []op
		want map[int]int
	}{
		{
			name: "CPU-wide: 101's CPU 0 lost 10-30 ms",
			ops: []op{
				wide(1*ms, 100, 101, 0, false, 0, 0), wide(1*ms, 100, 102, 1, false, 0, 0),
				smpCPU(9*ms, 100, 101, 0, 1),
				smpCPU(15*ms, 100, 102, 1, 2), smpCPU(20*ms, 100, 102, 1, 3), smpCPU(25*ms, 100, 102, 1, 4),
				lostOn(30*ms, 0),
				smpCPU(31*ms, 100, 101, 0, 5), smpCPU(32*ms, 100, 102, 1, 6),
				smpCPU(33*ms, 100, 101, 0, 7), smpCPU(34*ms, 100, 102, 1, 8),
			},
			want: map[int]int{2: 2, 3: 2, 4: 2, 5: 2, 6: 2},
		},
		{
			name: "per-task (no CPU): the same",
			ops: []op{
				in(1*ms, 100, 101), in(1*ms, 100, 102),
				smpCPU(9*ms, 100, 101, -1, 1),
				smpCPU(15*ms, 100, 102, -1, 2), smpCPU(20*ms, 100, 102, -1, 3),
				lostOn(30*ms, -1),
				smpCPU(31*ms, 100, 101, -1, 5), smpCPU(32*ms, 100, 102, -1, 6),
				smpCPU(33*ms, 100, 101, -1, 7),
			},
			want: map[int]int{2: 2, 3: 2, 6: 2},
		},
		{
			// The loss was on another CPU: it explains nothing of 101's
			// silence. But CPU 0 printed nothing else in it, so 101, switched
			// in there, is still on it (stall.go): it ran (was: 2 and 3 at
			// parallelism 1, silence taken as evidence).
			name: "CPU-wide: a loss on another CPU, 101's CPU quiet",
			ops: []op{
				wide(1*ms, 100, 101, 0, false, 0, 0), wide(1*ms, 100, 102, 1, false, 0, 0),
				smpCPU(9*ms, 100, 101, 0, 1),
				smpCPU(15*ms, 100, 102, 1, 2), smpCPU(20*ms, 100, 102, 1, 3),
				lostOn(30*ms, 3),
				smpCPU(31*ms, 100, 101, 0, 5), smpCPU(32*ms, 100, 102, 1, 6),
				smpCPU(33*ms, 100, 101, 0, 7),
			},
			want: map[int]int{2: 2, 3: 2, 6: 2},
		},
		{
			// No sign after the loss: it stopped (an exit without a record).
			name: "CPU-wide: no sign after the loss",
			ops: []op{
				wide(1*ms, 100, 101, 0, false, 0, 0), wide(1*ms, 100, 102, 1, false, 0, 0),
				smpCPU(9*ms, 100, 101, 0, 1),
				smpCPU(15*ms, 100, 102, 1, 2), smpCPU(20*ms, 100, 102, 1, 3),
				lostOn(30*ms, 0),
				smpCPU(31*ms, 100, 102, 1, 4), smpCPU(200*ms, 100, 102, 1, 5),
			},
			want: map[int]int{2: 1, 3: 1, 4: 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := run(t, config{Gap: gap}, tc.ops)
			wantParallelism(t, got, tc.want)
		})
	}
}

// The bridged thread's own CPU time in the loss (its samples are gone) is
// released once, as a Lost pseudo-sample at its last sample's stack.
func TestTrackerLostTime(t *testing.T) {
	var lost []sample
	tr := newTracker(config{Gap: 10 * ms, Release: func(s sample, _ float64, _ *group) {
		if s.Lost {
			lost = append(lost, s)
		}
	}})
	for _, o := range []op{
		wide(1*ms, 100, 101, 0, false, 0, 0),
		smpCPU(9*ms, 100, 101, 0, 7),
		{Event: Event{Kind: KindLost, Time: 30 * ms, CPU: 0, Lost: 100}},
		smpCPU(31*ms, 100, 101, 0, 8),
		smpCPU(32*ms, 100, 101, 0, 9),
	} {
		tr.add(&o.Event)
	}
	tr.flush()
	if len(lost) != 1 || lost[0].Ref != 7 || lost[0].Period != uint64(31*ms-9*ms-10*ms/silencePeriods) {
		t.Errorf("lost time %+v, want one of %d ns at ref 7", lost, 31*ms-9*ms-10*ms/silencePeriods)
	}
}

// More evidence of a thread running through a loss, and where there is
// none. The silence limit is 3 ms (a 1 ms period).
func TestTrackerLossEvidence(t *testing.T) {
	lostOn := func(at int64, cpu int) op { return op{Event: Event{Kind: KindLost, Time: at, CPU: cpu, Lost: 40}} }
	every := func(from, to int64, pid, tid, cpu, ref0 int) (ops []op) {
		for at := from; at <= to; at += ms {
			ops = append(ops, smpCPU(at, pid, tid, cpu, ref0+int(at/ms)))
		}
		return ops
	}
	join := func(parts ...[]op) (ops []op) {
		for _, p := range parts {
			ops = append(ops, p...)
		}
		return ops
	}
	// 102 runs on CPU 1 all along (refs 1xx); 101 on CPU 0 (refs 2xx).
	tests := []struct {
		name string
		rate bool
		ops  []op
		want map[int]int
	}{
		{
			name: "no switch records: sampled right before and after a LOST of its CPU",
			rate: true,
			ops:  join(every(1*ms, 9*ms, 100, 101, 0, 200), every(10*ms, 29*ms, 100, 102, 1, 100), []op{lostOn(30*ms, 0)}, every(31*ms, 33*ms, 100, 101, 0, 200)),
			want: map[int]int{115: 2, 120: 2, 125: 2},
		},
		{
			// 101 ran at 1 ms; CPU 0 printed a record of 103 at 20 ms, so the
			// loss began after that: 101's silence is its own (it is rarely
			// sampled, as a thread that runs little is).
			name: "no switch records: sampled long before the loss began",
			rate: true,
			ops: join([]op{smpCPU(1*ms, 100, 101, 0, 201)}, every(10*ms, 29*ms, 100, 102, 1, 100),
				[]op{smpCPU(20*ms+ms/2, 300, 103, 0, 300), lostOn(30*ms, 0), smpCPU(31*ms, 100, 101, 0, 231)}),
			want: map[int]int{115: 1, 125: 1},
		},
		{
			name: "CPU-wide: its SWITCH OUT on its CPU right after the LOST",
			ops: join([]op{wide(1*ms, 100, 101, 0, false, 0, 0), wide(1*ms, 100, 102, 1, false, 0, 0)},
				every(2*ms, 9*ms, 100, 101, 0, 200), every(10*ms, 34*ms, 100, 102, 1, 100),
				[]op{lostOn(30*ms, 0), wide(30*ms+ms/2, 100, 101, 0, true, 0, 0)}),
			want: map[int]int{115: 2, 125: 2, 131: 1},
		},
		{
			name: "CPU-wide: its EXIT right after the LOST",
			ops: join([]op{wide(1*ms, 100, 101, 0, false, 0, 0), wide(1*ms, 100, 102, 1, false, 0, 0)},
				every(2*ms, 9*ms, 100, 101, 0, 200), every(10*ms, 34*ms, 100, 102, 1, 100),
				[]op{lostOn(30*ms, 0), exitCPU(30*ms+ms/2, 100, 101, 0)}),
			want: map[int]int{115: 2, 125: 2, 131: 1},
		},
		{
			name: "CPU-wide: its EXIT printed by another CPU after the LOST",
			ops: join([]op{wide(1*ms, 100, 101, 0, false, 0, 0), wide(1*ms, 100, 102, 1, false, 0, 0)},
				every(2*ms, 9*ms, 100, 101, 0, 200), every(10*ms, 34*ms, 100, 102, 1, 100),
				[]op{lostOn(30*ms, 0), exitCPU(30*ms+ms/2, 100, 101, 2)}),
			want: map[int]int{115: 1, 125: 1},
		},
		{
			// The LOST says 3 records were lost; running through 20 ms, 101
			// would have lost 20 samples: its CPU was idle before the loss.
			name: "CPU-wide: fewer records lost than its samples in the loss",
			ops: join([]op{wide(1*ms, 100, 101, 0, false, 0, 0), wide(1*ms, 100, 102, 1, false, 0, 0)},
				every(2*ms, 9*ms, 100, 101, 0, 200), every(10*ms, 34*ms, 100, 102, 1, 100),
				[]op{{Event: Event{Kind: KindLost, Time: 30 * ms, CPU: 0, Lost: 3}}, smpCPU(30*ms+ms/2, 100, 101, 0, 231)}),
			want: map[int]int{115: 1, 125: 1},
		},
		{
			// Its OUT on CPU 1, where it never ran: not a sign of CPU 0.
			name: "CPU-wide: an OUT on another CPU after the LOST",
			ops: join([]op{wide(1*ms, 100, 101, 0, false, 0, 0), wide(1*ms, 100, 102, 1, false, 0, 0)},
				every(2*ms, 9*ms, 100, 101, 0, 200), every(10*ms, 34*ms, 100, 102, 1, 100),
				[]op{lostOn(30*ms, 0), wide(30*ms+ms/2, 100, 101, 2, true, 0, 0)}),
			want: map[int]int{115: 1, 125: 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ops := slices.Clone(tc.ops)
			slices.SortStableFunc(ops, func(a, b op) int { return cmp.Compare(a.Time, b.Time) })
			got := run(t, config{Gap: 3 * ms, Rate: tc.rate}, ops)
			wantParallelism(t, got, tc.want)
		})
	}
}

// A bridged thread's time in the loss has the parallelism its group's
// samples in the loss saw, not the one where it resumed: 102 ran beside
// it through the loss and left just before 101's first sample after it.
func TestTrackerLostTimeParallelism(t *testing.T) {
	var lostPar []float64
	tr := newTracker(config{Gap: 3 * ms, Release: func(s sample, par float64, _ *group) {
		if s.Lost {
			lostPar = append(lostPar, par)
		}
	}})
	ops := []op{wide(1*ms, 100, 101, 0, false, 0, 0), wide(1*ms, 100, 102, 1, false, 0, 0), smpCPU(9*ms, 100, 101, 0, 1)}
	for at := 10 * ms; at < 29*ms; at += ms {
		ops = append(ops, smpCPU(at, 100, 102, 1, 2))
	}
	ops = append(ops, wide(29*ms, 100, 102, 1, true, 0, 0),
		op{Event: Event{Kind: KindLost, Time: 30 * ms, CPU: 0, Lost: 40}},
		smpCPU(30*ms+ms/2, 100, 101, 0, 3))
	for _, o := range ops {
		tr.add(&o.Event)
	}
	tr.flush()
	if len(lostPar) != 1 || math.Abs(lostPar[0]-2) > 1e-9 {
		t.Errorf("lost time released at parallelism %v, want one at 2", lostPar)
	}
}

// A thread sampled every 1.25 periods before a loss ran 80 % of the time
// (it blocked briefly between samples): its time in the loss is 80 % of
// it, not all of it.
func TestTrackerLostTimeDuty(t *testing.T) {
	var lost []sample
	tr := newTracker(config{Gap: 3 * ms, Release: func(s sample, _ float64, _ *group) {
		if s.Lost {
			lost = append(lost, s)
		}
	}})
	ops := []op{wide(0, 100, 101, 0, false, 0, 0)}
	for i := int64(1); i <= 8; i++ {
		ops = append(ops, smpCPU(i*5*ms/4, 100, 101, 0, int(i))) // up to 10 ms
	}
	ops = append(ops, op{Event: Event{Kind: KindLost, Time: 30 * ms, CPU: 0, Lost: 40}}, smpCPU(30*ms+ms/2, 100, 101, 0, 9))
	for _, o := range ops {
		tr.add(&o.Event)
	}
	tr.flush()
	want := (30*ms + ms/2 - 10*ms) * 4 / 5 // of the 20.5 ms, 80 %
	if len(lost) != 1 || math.Abs(float64(lost[0].Period)-float64(want-ms)) > float64(ms)/100 {
		t.Errorf("lost time %+v, want one of %d ns (80 %% of the loss, bar the period of the sample after it)", lost, want-ms)
	}
}

// A corrupt CPU column (perf prints up to 18 digits) must not size a
// table: the run goes on with that record's CPU unknown for losses.
func TestTrackerHugeCPU(t *testing.T) {
	tr := newTracker(config{Gap: 3 * ms, Release: func(sample, float64, *group) {}})
	for _, o := range []op{smpCPU(1*ms, 100, 101, 0, 1), smpCPU(2*ms, 100, 101, 999_999_999, 2), smpCPU(3*ms, 100, 101, 1<<40, 3)} {
		tr.add(&o.Event)
	}
	tr.flush()
	if len(tr.cpuLast) > maxCPU {
		t.Errorf("cpuLast has %d entries", len(tr.cpuLast))
	}
}
