package state

import (
	"math"
	"math/rand/v2"
	"testing"
)

const ms = int64(1e6)

// op is one tracker input: an event, or (setGap) the silence limit
// learnt late.
type op struct {
	Event
	setGap bool
	gap    int64
}

func smp(at int64, pid, tid, ref int) op { return smpCPU(at, pid, tid, -1, ref) }
func smpCPU(at int64, pid, tid, cpu, ref int) op {
	return op{Event: Event{Kind: KindSample, Time: at, PID: pid, TID: tid, CPU: cpu, Period: 1001001, Ref: ref}}
}
func in(at int64, pid, tid int) op { return inCPU(at, pid, tid, -1) }
func inCPU(at int64, pid, tid, cpu int) op {
	return op{Event: Event{Kind: KindSwitch, Time: at, PID: pid, TID: tid, CPU: cpu}}
}
func out(at int64, pid, tid int) op { return outCPU(at, pid, tid, -1) }
func outCPU(at int64, pid, tid, cpu int) op {
	return op{Event: Event{Kind: KindSwitch, Time: at, PID: pid, TID: tid, CPU: cpu, Out: true}}
}
func fork(at int64, pid, tid int) op {
	return op{Event: Event{Kind: KindFork, Time: at, PID: pid, TID: tid}}
}
func exit(at int64, pid, tid int) op { return exitCPU(at, pid, tid, -1) }
func exitCPU(at int64, pid, tid, cpu int) op {
	return op{Event: Event{Kind: KindExit, Time: at, PID: pid, TID: tid, CPU: cpu}}
}
func comm(at int64, pid, tid int) op {
	return op{Event: Event{Kind: KindComm, Time: at, PID: pid, TID: tid}}
}
func lost(at int64) op { return op{Event: Event{Kind: KindLost, Time: at, Lost: 1}} }
func tick(at int64) op { return op{Event: Event{Kind: KindTick, Time: at}} }
func wide(at int64, pid, tid, cpu int, isOut bool, peerPID, peerTID int) op {
	return op{Event: Event{Kind: KindSwitchCPUWide, Time: at, PID: pid, TID: tid, CPU: cpu, Out: isOut, PeerPID: peerPID, PeerTID: peerTID}}
}

// wantParallelism checks the parallelism of the refs in want.
func wantParallelism(t *testing.T, got, want map[int]int) {
	t.Helper()
	for ref, w := range want {
		if got[ref] != w {
			t.Errorf("sample %d: parallelism %d, want %d (all: %v)", ref, got[ref], w, got)
		}
	}
}

// run feeds ops to a tracker, flushes, and returns each ref's parallelism;
// it fails the test if a sample is released twice or never.
func run(t *testing.T, cfg config, ops []op) map[int]int {
	t.Helper()
	got := map[int]int{}
	times := map[int]int{}
	cfg.Release = func(s sample, par float64, _ *group) {
		if s.Lost {
			return // a thread's time through lost records (lost.go), not a sample
		}
		times[s.Ref]++
		got[s.Ref] = int(math.Round(par))
	}
	tr := newTracker(cfg)
	samples := 0
	for _, o := range ops {
		if o.setGap {
			tr.setGap(o.gap)
			continue
		}
		if o.Kind == KindSample {
			samples++
		}
		tr.add(&o.Event)
	}
	tr.flush()
	if len(times) != samples {
		t.Errorf("released %d distinct samples, want %d", len(times), samples)
	}
	for ref, n := range times {
		if n != 1 {
			t.Errorf("sample %d released %d times", ref, n)
		}
	}
	return got
}

// scenario is a sequence of tracker inputs and the parallelism each of
// its samples must get.
type scenario struct {
	name string
	cfg  config
	ops  []op
	want map[int]int // ref -> parallelism
}

// runScenarios runs each scenario as a subtest.
func runScenarios(t *testing.T, tests []scenario) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := run(t, tc.cfg, tc.ops)
			for ref, w := range tc.want {
				if got[ref] != w {
					t.Errorf("sample %d: parallelism %d, want %d", ref, got[ref], w)
				}
			}
		})
	}
}

// TestTrackerRecordScenarios: samples say a thread runs, a SWITCH OUT (also
// OUT preempt) that it stopped until its IN, an EXIT that it ended.
func TestTrackerRecordScenarios(t *testing.T) {
	gap := 10 * ms
	runScenarios(t, []scenario{
		{
			name: "one thread alone",
			cfg:  config{Gap: gap},
			ops:  []op{smp(1*ms, 100, 101, 1), smp(2*ms, 100, 101, 2), smp(3*ms, 100, 101, 3)},
			want: map[int]int{1: 1, 2: 1, 3: 1},
		},
		{
			// 101 runs from 1 ms, 102 from 1.5 ms; 101's last sign is 3 ms.
			name: "two threads running together",
			cfg:  config{Gap: gap},
			ops: []op{
				smp(1000_000, 100, 101, 1), smp(1500_000, 100, 102, 2),
				smp(2000_000, 100, 101, 3), smp(2500_000, 100, 102, 4),
				smp(3000_000, 100, 101, 5), smp(3500_000, 100, 102, 6),
			},
			want: map[int]int{1: 1, 2: 2, 3: 2, 4: 2, 5: 2, 6: 1},
		},
		{
			name: "a thread switched OUT no longer counts",
			cfg:  config{Gap: gap},
			ops: []op{
				smp(500_000, 100, 102, 1),
				smp(1000_000, 100, 101, 2),
				out(1200_000, 100, 101),
				smp(1500_000, 100, 102, 3), smp(2500_000, 100, 102, 4),
			},
			want: map[int]int{1: 1, 2: 2, 3: 1, 4: 1},
		},
		{
			// The tracker has no preempt flag: the caller passes OUT preempt
			// as out=true, and the thread is off the CPU until its IN.
			name: "OUT preempt counts as not running until IN",
			cfg:  config{Gap: gap},
			ops: []op{
				smp(500_000, 100, 102, 1),
				smp(1000_000, 100, 101, 2),
				out(1200_000, 100, 101),
				smp(1500_000, 100, 102, 3),
				in(1800_000, 100, 101),
				smp(2000_000, 100, 102, 4),
				smp(2300_000, 100, 101, 5),
				smp(2600_000, 100, 102, 6),
			},
			want: map[int]int{1: 1, 2: 2, 3: 1, 4: 2, 5: 2, 6: 1},
		},
		{
			name: "EXIT ends a thread",
			cfg:  config{Gap: gap},
			ops: []op{
				smp(500_000, 100, 102, 1),
				smp(1000_000, 100, 101, 2),
				exit(1100_000, 100, 101),
				smp(1500_000, 100, 102, 3), smp(2000_000, 100, 102, 4),
			},
			want: map[int]int{1: 1, 2: 2, 3: 1, 4: 1},
		},
	})
}

// TestTrackerSilenceScenarios: a thread silent for longer than the gap
// stopped at its last record; for less, it ran throughout; with no gap
// (Gap 0) records alone decide.
func TestTrackerSilenceScenarios(t *testing.T) {
	runScenarios(t, []scenario{
		{
			// 101's last record is a SWITCH IN at 1 ms; the gap (5 ms)
			// expires at 6 ms. It is taken as stopped at 1 ms, so 102's
			// samples before and after 6 ms all get 1.
			name: "silent after SWITCH IN longer than the gap: stopped at that record",
			cfg:  config{Gap: 5 * ms},
			ops: []op{
				smp(500_000, 100, 101, 1),
				in(1*ms, 100, 101),
				smp(2*ms, 100, 102, 2), smp(3*ms, 100, 102, 3), smp(4*ms, 100, 102, 4),
				smp(5*ms, 100, 102, 5), smp(6*ms, 100, 102, 6), smp(7*ms, 100, 102, 7),
				smp(8*ms, 100, 102, 8), smp(12*ms, 100, 102, 9),
			},
			want: map[int]int{1: 1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1, 7: 1, 8: 1, 9: 1},
		},
		{
			// Same, but 101 shows up again at 4 ms: the 3 ms silence is
			// shorter than the gap, so it ran throughout.
			name: "silence shorter than the gap: running throughout",
			cfg:  config{Gap: 5 * ms},
			ops: []op{
				in(1*ms, 100, 101),
				smp(2*ms, 100, 102, 1), smp(3*ms, 100, 102, 2),
				smp(4*ms, 100, 101, 3),
				smp(4500_000, 100, 102, 4),
			},
			// At 4.5 ms 101's last sign (4 ms) has nothing after it: the
			// trace ends, so it is taken as stopped there.
			want: map[int]int{1: 2, 2: 2, 3: 2, 4: 1},
		},
		{
			// A thread that comes back after a long silence ran neither
			// during it: the samples in between get 1.
			name: "silence longer than the gap ended by the thread's own sample",
			cfg:  config{Gap: 5 * ms},
			ops: []op{
				smp(1*ms, 100, 101, 1),
				smp(2*ms, 100, 102, 2), smp(4*ms, 100, 102, 3),
				smp(7*ms, 100, 101, 4),
				smp(7500_000, 100, 102, 5),
			},
			// 102's 4 ms to 7.5 ms silence is 3.5 ms < 5 ms: running at 7 ms.
			// At 7.5 ms 101 has no sign after 7 ms: stopped.
			want: map[int]int{1: 1, 2: 1, 3: 1, 4: 2, 5: 1},
		},
		{
			name: "records only (Gap 0): a silent running thread keeps counting",
			cfg:  config{Gap: 0},
			ops: []op{
				in(1*ms, 100, 101),
				smp(100*ms, 100, 102, 1), smp(200*ms, 100, 102, 2),
				out(300*ms, 100, 101),
				smp(400*ms, 100, 102, 3),
			},
			want: map[int]int{1: 2, 2: 2, 3: 1},
		},
		{
			name: "records only (Gap 0): sampled threads run until OUT/EXIT",
			cfg:  config{Gap: 0},
			ops: []op{
				smp(1*ms, 100, 101, 1), smp(2*ms, 100, 102, 2), smp(900*ms, 100, 101, 3),
				exit(950*ms, 100, 102),
				smp(999*ms, 100, 101, 4),
			},
			want: map[int]int{1: 1, 2: 2, 3: 2, 4: 1},
		},
	})
}

// TestTrackerCPUScenarios: what the samples' CPUs tell: the idle task
// counts for nobody, and a thread on a CPU ends the one before there.
func TestTrackerCPUScenarios(t *testing.T) {
	gap := 10 * ms
	runScenarios(t, []scenario{
		{
			name: "idle samples (tid 0) get 0 and do not count for others",
			cfg:  config{Gap: gap},
			ops: []op{
				smpCPU(1*ms, 100, 101, 0, 1),
				smpCPU(1500_000, 0, 0, 1, 2),
				smpCPU(2*ms, 100, 101, 0, 3),
				smpCPU(2500_000, -1, 0, 1, 4),
			},
			want: map[int]int{1: 1, 2: 0, 3: 1, 4: 0},
		},
		{
			// 101 on CPU 0 lost its SWITCH OUT: 102 on CPU 0 takes it over.
			name: "another thread on the same CPU ends the previous one",
			cfg:  config{Gap: gap},
			ops: []op{
				smpCPU(1*ms, 100, 101, 0, 1),
				smpCPU(1500_000, 100, 102, 0, 2),
				smpCPU(1700_000, 100, 103, 1, 3),
				smpCPU(2500_000, 100, 102, 0, 4),
				smpCPU(3*ms, 100, 103, 1, 5),
			},
			want: map[int]int{1: 1, 2: 1, 3: 2, 4: 2, 5: 1},
		},
	})
}

// Three threads: 101 and 102 of process 100, 201 of process 200. The
// samples carry no pid (tid only); the pid is learnt another way.
func TestTrackerProcessScope(t *testing.T) {
	samples := []op{
		smp(1000_000, -1, 101, 1), smp(1200_000, -1, 201, 2), smp(1400_000, -1, 102, 3),
		smp(2000_000, -1, 101, 4), smp(2200_000, -1, 201, 5), smp(2400_000, -1, 102, 6),
	}
	// By hand: 101 runs 1.0-2.0, 201 1.2-2.2, 102 1.4-2.4 (ms).
	process := map[int]int{1: 1, 2: 1, 3: 2, 4: 2, 5: 1, 6: 1}
	workload := map[int]int{1: 1, 2: 2, 3: 3, 4: 3, 5: 2, 6: 1}
	withPID := make([]op, len(samples))
	for i, s := range samples {
		s.PID = 100
		if s.TID == 201 {
			s.PID = 200
		}
		withPID[i] = s
	}
	prefixes := map[string][]op{
		"pid from FORK": {
			fork(100_000, 100, 101), fork(200_000, 100, 102), fork(300_000, 200, 201),
		},
		"pid from Sample.PID": nil,
		"pid from SwitchCPUWide next pid/tid": {
			wide(100_000, -1, 0, 0, true, 100, 101),
			wide(200_000, -1, 0, 1, true, 100, 102),
			wide(300_000, -1, 0, 2, true, 200, 201),
		},
		"pid from SwitchCPUWide prev pid/tid": {
			wide(100_000, -1, 0, 0, false, 100, 101),
			wide(200_000, -1, 0, 1, false, 100, 102),
			wide(300_000, -1, 0, 2, false, 200, 201),
		},
		"pid from COMM": {
			comm(100_000, 100, 101),
			comm(200_000, 100, 102),
			comm(300_000, 200, 201),
		},
	}
	for name, pre := range prefixes {
		ss := samples
		if pre == nil {
			ss = withPID
		}
		ops := append(append([]op(nil), pre...), ss...)
		for _, sc := range []struct {
			scope Scope
			want  map[int]int
		}{{Process, process}, {Workload, workload}} {
			t.Run(name+"/"+sc.scope.String(), func(t *testing.T) {
				wantParallelism(t, run(t, config{Scope: sc.scope, Gap: 10 * ms}, ops), sc.want)
			})
		}
	}
}

// A thread first seen without a pid is its own process; when a CPU-wide
// switch record later names its process, it moves there and counts with
// the process's other threads from then on.
func TestTrackerProcessLearntLate(t *testing.T) {
	ops := []op{
		smp(1000_000, -1, 101, 1), smp(1200_000, -1, 102, 2),
		wide(1300_000, -1, 0, 2, true, 100, 101),
		wide(1300_000, -1, 0, 3, true, 100, 102),
		smp(2000_000, -1, 101, 3), smp(2200_000, -1, 102, 4),
		smp(3000_000, -1, 101, 5), smp(3200_000, -1, 102, 6),
	}
	want := map[int]int{1: 1, 2: 1, 3: 2, 4: 2, 5: 2, 6: 1}
	wantParallelism(t, run(t, config{Scope: Process, Gap: 10 * ms}, ops), want)
}

// TestTrackerReleaseOnce feeds long random event sequences and checks that
// every sample is released exactly once (by Flush at the latest), that
// idle samples get 0, and that parallelism never exceeds the number of
// threads that exist.
func TestTrackerReleaseOnce(t *testing.T) {
	for _, cfg := range []config{
		{Scope: Workload, Gap: 3 * ms}, {Scope: Process, Gap: 3 * ms},
		{Scope: Workload, Gap: 0}, {Scope: Process, Gap: 0},
		{Scope: Workload, Gap: -1}, {Scope: Process, Gap: -1},
	} {
		for seed := uint64(1); seed <= 20; seed++ {
			rng := rand.New(rand.NewPCG(seed, 7))
			var ops []op
			now := int64(0)
			ref := 0
			const nthreads = 8
			for i := 0; i < 3000; i++ {
				now += int64(rng.IntN(2 * int(ms)))
				tid := 1000 + rng.IntN(nthreads)
				pid := 1000 + (tid-1000)%3
				cpu := rng.IntN(4)
				switch r := rng.IntN(20); {
				case r < 12:
					if rng.IntN(10) == 0 {
						tid, pid = 0, 0
					}
					ref++
					p := pid
					if rng.IntN(2) == 0 {
						p = -1
					}
					ops = append(ops, smpCPU(now, p, tid, cpu, ref))
				case r < 14:
					ops = append(ops, inCPU(now, -1, tid, cpu))
				case r < 16:
					ops = append(ops, outCPU(now, -1, tid, cpu))
				case r == 16:
					ops = append(ops, wide(now, -1, 0, cpu, rng.IntN(2) == 0, pid, tid))
				case r == 17:
					ops = append(ops, exit(now, pid, tid))
				case r == 18:
					ops = append(ops, fork(now, pid, tid))
				default:
					ops = append(ops, lost(now))
				}
				if cfg.Gap < 0 && i == 1500 {
					ops = append(ops, op{setGap: true, gap: int64(rng.IntN(2)) * 3 * ms})
				}
			}
			got := run(t, cfg, ops)
			for _, o := range ops {
				if o.Kind != KindSample {
					continue
				}
				p := got[o.Ref]
				if o.TID == 0 && p != 0 {
					t.Fatalf("cfg %+v seed %d: idle sample %d got %d", cfg, seed, o.Ref, p)
				}
				if o.TID != 0 && (p < 1 || p > nthreads) {
					t.Fatalf("cfg %+v seed %d: sample %d got %d, want 1..%d", cfg, seed, o.Ref, p, nthreads)
				}
			}
		}
	}
}

// Samples wait at most about the gap and the hold for a LOST record
// (lossHold) before they are released.
func TestTrackerReleaseBeforeFlush(t *testing.T) {
	released := 0
	tr := newTracker(config{Gap: 5 * ms, Release: func(sample, float64, *group) { released++ }})
	tr.addSample(sample{Time: 1 * ms, PID: 100, TID: 101, CPU: -1, Ref: 1})
	tr.addSample(sample{Time: 2 * ms, PID: 100, TID: 102, CPU: -1, Ref: 2})
	tr.tick(20 * ms)
	if released != 1 {
		t.Errorf("released %d samples 18 ms after the last sign, want 1: the second waits for a LOST record that could explain the first thread's silence", released)
	}
	tr.tick(2*ms + 5*ms + lossHold + 1)
	if released != 2 {
		t.Errorf("released %d samples after the gap and the hold, want 2", released)
	}
	if s := tr.counts(); s.Samples != 2 || s.Threads != 2 || s.SilentStops != 2 {
		t.Errorf("counts = %+v, want 2 samples, 2 threads, 2 silent stops", s)
	}
}
