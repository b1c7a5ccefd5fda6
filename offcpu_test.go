package main

// --off-cpu: the whole wait in the profile, under [blocked] and
// [runnable] leaves, on real traces against referenceSplit
// (offcpu_reference_test.go), which counts the switch, fork and exit
// records on its own, and on made-up ones. The summary's split is in
// summary_split_test.go, --tree in tree_test.go.

import (
	"math"
	"strings"
	"testing"
)

// sleep: 0.5 s of nanosleep; busy: 0.311 s with every thread preempted.
// With and without task events (exits inferred).
func TestOffCPUFoldedTotalsEqualTheSpan(t *testing.T) {
	for _, c := range []struct {
		name  string
		sleep float64 // the workload's known sleep (s); -1: none
	}{
		{"sleep.txt.gz", 0.5}, {"sleep.notask.txt.gz", 0.5}, {"sleep.sched.txt.gz", 0.5},
		{"busy.txt.gz", -1}, {"busy.notask.txt.gz", -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := offTrace(c.name)
			ref := referenceSplit(t, path, refAll())
			span, on := ref.Span.Seconds(), ref.On.Seconds()
			off := foldedOf(t, "--off-cpu", path)
			blocked, runnable := offLeaves(off)
			total := off.total / 1e9
			t.Logf("--off-cpu total %.4f s (reference span %.4f), [blocked] %.4f (reference %.4f), [runnable] %.4f (reference %.4f)",
				total, span, blocked, ref.Blocked.Seconds(), runnable, ref.Runnable.Seconds())
			if math.Abs(total-span) > 0.015*span {
				t.Errorf("--off-cpu total %.4f s, want the span %.4f s ± 1.5%%", total, span)
			}
			if c.sleep >= 0 && math.Abs(blocked-c.sleep) > 0.06 {
				t.Errorf("[blocked] %.4f s, want the sleep %.1f s ± 0.06", blocked, c.sleep)
			}
			if d := ref.Blocked.Seconds(); math.Abs(blocked-d) > 0.06 {
				t.Errorf("[blocked] %.4f s, reference %.4f s ± 0.06", blocked, d)
			}
			if d := ref.Runnable.Seconds(); math.Abs(runnable-d) > 0.1 {
				t.Errorf("[runnable] %.4f s, reference (preempted) %.4f s ± 0.1", runnable, d)
			}

			// Without --off-cpu the profile is the on-CPU one, line for
			// line: the off-CPU accounting moves no on-CPU weight.
			plain := foldedOf(t, path)
			for st, n := range plain.lines {
				if off.lines[st] != n {
					t.Errorf("on-CPU stack %q: %d without --off-cpu, %d with", st, n, off.lines[st])
				}
			}
			for st, n := range off.lines {
				if _, ok := plain.lines[st]; !ok && !strings.HasSuffix(st, "]") {
					t.Errorf("stack %q (%d) only with --off-cpu", st, n)
				}
			}
			if b, r := offLeaves(plain); b+r != 0 {
				t.Errorf("without --off-cpu: %.4f s [blocked], %.4f s [runnable]", b, r)
			}
			if w := plain.total / 1e9; math.Abs(w-on) > 0.015*on {
				t.Errorf("wall without --off-cpu %.4f s, reference on-CPU %.4f s ± 1.5%%", w, on)
			}
			cpu := foldedOf(t, "--weight=cpu", "--off-cpu", path).total
			if cpu != float64(ref.SamplePeriods) {
				t.Errorf("--weight=cpu --off-cpu total %.0f ns, want the cpu-clock periods %d", cpu, ref.SamplePeriods)
			}
		})
	}
}

// With sched:sched_switch samples, a blocked thread's share sits under the
// stack of its switch (the nanosleep's), and those samples are not CPU time.
func TestOffCPUSchedSwitchStacks(t *testing.T) {
	path := offTrace("sleep.sched.txt.gz")
	f := foldedOf(t, "--off-cpu", path)
	var nanosleep, blocked float64
	for st, n := range f.lines {
		if strings.HasSuffix(st, ";[blocked]") {
			blocked += float64(n) / 1e9
			if strings.Contains(st, ";do_nanosleep;schedule;__schedule;[blocked]") {
				nanosleep += float64(n) / 1e9
			}
		}
		if strings.Contains(st, "sched_switch") {
			t.Errorf("a sched_switch sample as a frame: %q", st)
		}
	}
	t.Logf("[blocked] %.4f s, %.4f s of it under do_nanosleep;schedule;__schedule", blocked, nanosleep)
	if math.Abs(nanosleep-0.5) > 0.06 {
		t.Errorf("[blocked] under the nanosleep's switch: %.4f s, want 0.5 ± 0.06", nanosleep)
	}
	// Without the tracepoint's stack it would sit under the last CPU
	// sample: serial_phase/spin_for. None of the sleep may be there.
	for st, n := range f.lines {
		if strings.HasSuffix(st, ";[blocked]") && strings.Contains(st, "spin_for") && n > 1e6 {
			t.Errorf("%.4f s [blocked] under a CPU sample's stack %q", float64(n)/1e9, st)
		}
	}
	ref := referenceSplit(t, path, refAll())
	if cpu := foldedOf(t, "--weight=cpu", path).total; cpu != float64(ref.SamplePeriods) {
		t.Errorf("--weight=cpu total %.0f ns, want the cpu-clock periods %d (sched_switch samples are no CPU time)", cpu, ref.SamplePeriods)
	}
	// Without --off-cpu the tracepoint's samples count nowhere, and a
	// warning says what they are for.
	_, stderr, _ := wallfold(t, path)
	if !strings.Contains(stderr, "--off-cpu") {
		t.Errorf("no word of --off-cpu for the sched_switch samples: %q", stderr)
	}
}

// The sleep trace's stacks without the tracepoint: the blocked share sits
// under the last on-CPU sample of the thread that slept.
func TestOffCPULastSampleStack(t *testing.T) {
	f := foldedOf(t, "--off-cpu", offTrace("sleep.txt.gz"))
	var under float64
	for st, n := range f.lines {
		if strings.HasSuffix(st, ";[blocked]") && strings.Contains(st, ";main;") {
			under += float64(n) / 1e9
		}
	}
	if math.Abs(under-0.5) > 0.06 {
		t.Errorf("[blocked] under main's stacks %.4f s, want 0.5 ± 0.06", under)
	}
}

func TestOffCPUPprof(t *testing.T) {
	path := offTrace("sleep.txt.gz")
	p := writeProfile(t, "--off-cpu", path)
	cpuIdx, wallIdx := sampleIndex(t, p, "cpu"), sampleIndex(t, p, "wall")
	var wall, blocked float64
	for _, s := range p.Sample {
		wall += float64(s.Value[wallIdx])
		st := s.Label["state"]
		if len(st) == 0 {
			continue
		}
		leaf := s.Location[0].Line[0].Function.Name
		if want := "[" + st[0] + "]"; leaf != want {
			t.Errorf("state %q sample with leaf %q, want %q", st[0], leaf, want)
		}
		if s.Value[cpuIdx] != 0 {
			t.Errorf("off-CPU sample with cpu %d", s.Value[cpuIdx])
		}
		if st[0] == "blocked" {
			blocked += float64(s.Value[wallIdx]) / 1e9
		}
	}
	ref := referenceSplit(t, path, refAll())
	if span := ref.Span.Seconds(); math.Abs(wall/1e9-span) > 0.015*span {
		t.Errorf("pprof wall %.4f s, span %.4f s", wall/1e9, span)
	}
	if math.Abs(blocked-0.5) > 0.06 {
		t.Errorf("state=blocked wall %.4f s, want 0.5 ± 0.06", blocked)
	}
	fb, _ := offLeaves(foldedOf(t, "--off-cpu", path))
	if math.Abs(fb-blocked) > 1e-6 {
		t.Errorf("pprof blocked %.6f s, folded %.6f s", blocked, fb)
	}
}

// An exited thread is gone: it gets no off-CPU share after its EXIT
// (want 0 ns of [blocked]). Was a bug (fixed): observed 200000 ns: the
// 0.2 ms from the EXIT (10.2 ms) to the post-exit sample (10.4 ms) has no
// live thread, and runOn charged such orphan time as blocked to the
// thread that runs next, here the exited thread itself (runOn did not
// check th.exited).
func TestOffCPUNoShareAfterExit(t *testing.T) {
	f := foldedOf(t, "--off-cpu", "--scope=process", exitTail(true).file(t))
	blocked, runnable := offLeaves(f)
	if blocked != 0 || runnable != 0 {
		t.Errorf("[blocked] %.6f s, [runnable] %.6f s charged to a thread after its EXIT, want 0 (lines %v)", blocked, runnable, f.lines)
	}
}

// With --off-cpu the folded total is the span; with a --time window it
// should be the window's length (the issue: "the totals equal the
// span"). Each share is dated at the start of its thread's off period
// (README: "--time places each share at the start of its stretch"), so a
// window that holds the start of the 0.5 s sleep gets all of it and one
// inside the sleep gets none. sleep.txt.gz (span 1.404 s): want 0.702 s
// for 0%,50% and for 50%,100%, 0.140 s for 45%,55%; before the fix,
// observed 1.103, 0.300 and 0.000 s.
func TestOffCPUTimeWindowTotals(t *testing.T) {
	for _, c := range []struct {
		win  string
		want float64
	}{{"0%,50%", 0.702}, {"50%,100%", 0.702}, {"45%,55%", 0.140}} {
		f := foldedOf(t, "--off-cpu", "--time="+c.win, offTrace("sleep.txt.gz"))
		if got := f.total / 1e9; math.Abs(got-c.want) > 0.015*c.want+0.002 {
			t.Errorf("--off-cpu --time=%s: total %.3f s, want the window's %.3f s", c.win, got, c.want)
		}
	}
}

// --weight=cpu --off-cpu: off-CPU shares have no CPU time, so their
// lines weigh 0. Was a bug (fixed): WriteFolded left out zero-weight
// lines for wall but printed "...;[blocked] 0" for cpu (6 such lines on
// sleep.txt.gz). Want no line of weight 0.
func TestOffCPUWithCPUWeight(t *testing.T) {
	f := foldedOf(t, "--off-cpu", "--weight=cpu", offTrace("sleep.txt.gz"))
	for st, n := range f.lines {
		if n == 0 {
			t.Errorf("line of weight 0: %q", st)
		}
	}
	if _, stderr, _ := wallfold(t, "--off-cpu", "--weight=cpu", offTrace("sleep.txt.gz")); !strings.Contains(stderr, "--off-cpu adds wall time only") {
		t.Errorf("no word that --weight=cpu leaves the off-CPU time out: %q", stderr)
	}
}
