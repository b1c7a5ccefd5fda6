package state

import "testing"

// Records written by different CPUs whose clocks disagree by some
// microseconds come out of order: a thread's SWITCH IN on its new CPU
// before its SWITCH OUT on the old one, a last sample of the old CPU after
// the IN. The thread runs throughout; the other thread's samples must see
// it.
func TestTrackerClockSkew(t *testing.T) {
	gap := 10 * ms
	tests := []struct {
		name string
		ops  []op
		want map[int]int
	}{
		{
			name: "CPU-wide: the IN on the new CPU before the OUT on the old",
			ops: []op{
				wide(400_000, 100, 102, 2, false, 0, 0), wide(500_000, 100, 101, 0, false, 0, 0),
				smpCPU(600_000, 100, 102, 2, 1),
				wide(991_000, 100, 101, 1, false, 0, 0), // true time 1.001 ms, its CPU 10 µs behind
				wide(1000_000, 100, 101, 0, true, 0, 0), // stale: 101 runs on CPU 1
				smpCPU(1500_000, 100, 102, 2, 2),
				smpCPU(1900_000, 100, 101, 1, 3),
				smpCPU(2000_000, 100, 102, 2, 4),
			},
			want: map[int]int{1: 2, 2: 2, 3: 2},
		},
		{
			name: "CPU-wide: a last sample of the old CPU after the IN on the new",
			ops: []op{
				wide(400_000, 100, 102, 2, false, 0, 0), wide(500_000, 100, 101, 0, false, 0, 0),
				wide(991_000, 100, 101, 1, false, 0, 0),
				smpCPU(995_000, 100, 101, 0, 1), // written by CPU 0 before the switch
				wide(1000_000, 100, 101, 0, true, 0, 0),
				smpCPU(1500_000, 100, 102, 2, 2),
				smpCPU(1900_000, 100, 101, 1, 3),
				smpCPU(2000_000, 100, 102, 2, 4),
			},
			want: map[int]int{1: 2, 2: 2, 3: 2},
		},
		{
			name: "per-task: an IN while already in, then the stale OUT",
			ops: []op{
				in(400_000, 100, 102), in(500_000, 100, 101),
				in(991_000, 100, 101),
				out(1000_000, 100, 101),
				smpCPU(1500_000, 100, 102, -1, 1),
				smpCPU(1900_000, 100, 101, -1, 2),
				smpCPU(2000_000, 100, 102, -1, 3),
			},
			want: map[int]int{1: 2, 2: 2},
		},
		{
			// Not skew: the OUT comes well after the second IN (an OUT lost
			// between them), and is taken.
			name: "per-task: an OUT long after a double IN stops the thread",
			ops: []op{
				in(400_000, 100, 102), in(500_000, 100, 101),
				in(3000_000, 100, 101),
				out(6000_000, 100, 101),
				smpCPU(6500_000, 100, 102, -1, 1),
			},
			want: map[int]int{1: 1},
		},
		{
			name: "CPU-wide: a migration in order is a migration",
			ops: []op{
				wide(400_000, 100, 102, 2, false, 0, 0), wide(500_000, 100, 101, 0, false, 0, 0),
				wide(1000_000, 100, 101, 0, true, 0, 0),
				smpCPU(1200_000, 100, 102, 2, 1),
				wide(1400_000, 100, 101, 1, false, 0, 0),
				smpCPU(1500_000, 100, 102, 2, 2),
				smpCPU(1900_000, 100, 101, 1, 3),
				smpCPU(2000_000, 100, 102, 2, 4),
			},
			want: map[int]int{1: 1, 2: 2},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := run(t, config{Gap: gap}, tc.ops)
			wantParallelism(t, got, tc.want)
		})
	}
}

// After a skewed migration, the thread's real OUT on its new CPU a little
// later is taken.
func TestTrackerSkewThenRealOut(t *testing.T) {
	got := run(t, config{Gap: 10 * ms}, []op{
		wide(400_000, 100, 102, 2, false, 0, 0), wide(500_000, 100, 101, 0, false, 0, 0),
		wide(991_000, 100, 101, 1, false, 0, 0),
		wide(1000_000, 100, 101, 0, true, 0, 0), // stale
		wide(1200_000, 100, 101, 1, true, 0, 0), // real: 101 leaves CPU 1
		smpCPU(1500_000, 100, 102, 2, 1),
		smpCPU(2000_000, 100, 102, 2, 2),
	})
	if got[1] != 1 || got[2] != 1 {
		t.Errorf("after 101's real OUT: parallelism %v, want 1", got)
	}
}

// A new thread's FORK is written by its parent's CPU; a clock behind
// prints it after the child's first SWITCH IN on another CPU. The child is
// that thread, running: the FORK must not end it as a reused tid.
func TestTrackerForkAfterFirstIn(t *testing.T) {
	got := run(t, config{Gap: 10 * ms}, []op{
		wide(400_000, 100, 100, 0, false, 0, 0),
		smpCPU(900_000, 100, 100, 0, 1),
		wide(1000_000, 100, 101, 1, false, 0, 0), // the child's IN
		fork(1005_000, 100, 101),                 // its FORK, 5 µs later in print
		smpCPU(1500_000, 100, 100, 0, 2),
		smpCPU(2000_000, 100, 101, 1, 3),
		smpCPU(2500_000, 100, 100, 0, 4),
	})
	if got[2] != 2 || got[3] != 2 {
		t.Errorf("after a FORK printed late: parallelism %v, want 2 for samples 2 and 3", got)
	}
}

// A FORK of a tid last seen long ago is a reuse: the old thread, silent
// but never switched out, is gone.
func TestTrackerForkReusedTID(t *testing.T) {
	got := run(t, config{Gap: 0}, []op{ // records alone decide
		wide(400_000, 100, 100, 0, false, 0, 0),
		wide(500_000, 100, 101, 1, false, 0, 0),
		fork(20_000_000, 100, 101), // its tid reused 19.5 ms on
		smpCPU(20_500_000, 100, 100, 0, 1),
	})
	if got[1] != 1 {
		t.Errorf("after a reused tid's FORK: parallelism %d, want 1", got[1])
	}
}

// CPU-wide: a thread's OUT lost (a loss), its next IN on the same CPU
// while already in, then its real OUT there: the OUT is that run's, not a
// stale one (that rule is for per-task traces, which print no CPU).
func TestTrackerDoubleInThenOutSameCPU(t *testing.T) {
	got := run(t, config{Gap: 10 * ms}, []op{
		wide(400_000, 100, 102, 1, false, 0, 0), wide(500_000, 100, 101, 0, false, 0, 0),
		wide(2000_000, 100, 101, 0, false, 0, 0), // its OUT before this was lost
		wide(2500_000, 100, 101, 0, true, 0, 0),  // a real OUT, 0.5 ms later
		smpCPU(3000_000, 100, 102, 1, 1),
		smpCPU(4000_000, 100, 102, 1, 2),
		smpCPU(5000_000, 100, 101, 0, 3), // running again from here
	})
	if got[1] != 1 || got[2] != 1 {
		t.Errorf("after 101's OUT on its CPU: parallelism %v, want 1", got)
	}
}

// A FORK printed before the thread's first record (time stepped back) is
// not a late one: the tid is reused, the old thread ends.
func TestTrackerForkBeforeFirstRecord(t *testing.T) {
	got := run(t, config{Gap: 10 * ms}, []op{
		wide(400_000, 100, 100, 0, false, 0, 0),
		wide(5000_000, 100, 101, 1, false, 0, 0),
		fork(4000_000, 100, 101), // 1 ms before 101's first record
		smpCPU(5500_000, 100, 100, 0, 1),
		smpCPU(6000_000, 100, 101, 1, 2), // the new 101 runs from here
	})
	if got[1] != 1 {
		t.Errorf("after a FORK printed before its tid's first record: parallelism %d, want 1", got[1])
	}
}
