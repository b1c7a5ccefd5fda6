package state

import "testing"

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
			// The loss was on another CPU: 101's silence is its own.
			name: "CPU-wide: a loss on another CPU bridges nothing",
			ops: []op{
				wide(1*ms, 100, 101, 0, false, 0, 0), wide(1*ms, 100, 102, 1, false, 0, 0),
				smpCPU(9*ms, 100, 101, 0, 1),
				smpCPU(15*ms, 100, 102, 1, 2), smpCPU(20*ms, 100, 102, 1, 3),
				lostOn(30*ms, 3),
				smpCPU(31*ms, 100, 101, 0, 5), smpCPU(32*ms, 100, 102, 1, 6),
				smpCPU(33*ms, 100, 101, 0, 7),
			},
			want: map[int]int{2: 1, 3: 1, 6: 2},
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
			for ref, want := range tc.want {
				if got[ref] != want {
					t.Errorf("sample %d: parallelism %d, want %d (all: %v)", ref, got[ref], want, got)
				}
			}
		})
	}
}

// The bridged thread's own CPU time in the loss (its samples are gone) is
// released once, as a Lost pseudo-sample at its last sample's stack.
func TestTrackerLostTime(t *testing.T) {
	var lost []sample
	tr := newTracker(config{Gap: 10 * ms}, func(s sample, _ float64, _ *group) {
		if s.Lost {
			lost = append(lost, s)
		}
	})
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
