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
