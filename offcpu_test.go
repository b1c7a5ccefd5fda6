package main

// The whole wait (--off-cpu, the summary's split, --tree) on real traces,
// against referenceSplit (offcpu_reference_test.go), which counts the
// switch, fork and exit records on its own.

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// offLeaves sums the folded weight (seconds) under each off-CPU leaf.
func offLeaves(f folded) (blocked, runnable float64) {
	for st, n := range f.lines {
		switch {
		case strings.HasSuffix(st, ";[blocked]"):
			blocked += float64(n) / 1e9
		case strings.HasSuffix(st, ";[runnable]"):
			runnable += float64(n) / 1e9
		}
	}
	return
}

// foldedOf is the folded profile of wallfold -q args; any exit status
// but 0 ends the test.
func foldedOf(t *testing.T, args ...string) folded {
	t.Helper()
	return parseFolded(t, mustRun(t, append([]string{"-q"}, args...)...))
}

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

var splitLine = regexp.MustCompile(`span: ([0-9.]+) s = on CPU ([0-9.]+) s \(([0-9.]+)%\) \+ runnable ([0-9.]+) s \(([0-9.]+)%\) \+ blocked ([0-9.]+) s \(([0-9.]+)%\)`)

// summarySplit returns the first group's split from a summary.
func summarySplit(t *testing.T, out string) (span, on, runnable, blocked float64) {
	t.Helper()
	m := splitLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no span split in the summary:\n%s", out)
	}
	f := func(i int) float64 { v, _ := strconv.ParseFloat(m[i], 64); return v }
	if sum := f(3) + f(5) + f(7); math.Abs(sum-100) > 0.2 {
		t.Errorf("split percentages add up to %.1f%%", sum)
	}
	return f(1), f(2), f(4), f(6)
}

func TestSummarySplitMatchesReference(t *testing.T) {
	for _, c := range []struct {
		name  string
		args  []string
		group refGroup
	}{
		{"sleep.txt.gz", nil, refAll()},
		{"sleep.notask.txt.gz", nil, refAll()},
		{"busy.txt.gz", nil, refAll()},
		{"busy.notask.txt.gz", nil, refAll()},
		{"make.txt.gz", []string{"--tree=make"}, refTreeOfComm("make")},
		{"make.nopid.txt.gz", []string{"--tree=7031"}, refTree(7031)},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := offTrace(c.name)
			ref := referenceSplit(t, path, c.group)
			out, stderr, code := wallfold(t, append([]string{"-f", "summary", path}, c.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			span, on, runnable, blocked := summarySplit(t, out)
			t.Logf("summary: span %.3f on %.3f runnable %.3f blocked %.3f; reference %.3f %.3f %.3f %.3f",
				span, on, runnable, blocked, ref.Span.Seconds(), ref.On.Seconds(), ref.Runnable.Seconds(), ref.Blocked.Seconds())
			for _, v := range []struct {
				what      string
				got, want float64
			}{
				{"span", span, ref.Span.Seconds()}, {"on CPU", on, ref.On.Seconds()},
				{"runnable", runnable, ref.Runnable.Seconds()}, {"blocked", blocked, ref.Blocked.Seconds()},
			} {
				if math.Abs(v.got-v.want) > 0.01*ref.Span.Seconds()+0.002 {
					t.Errorf("%s %.3f s, reference %.3f s", v.what, v.got, v.want)
				}
			}
			hint := strings.Contains(out, "--off-cpu adds it")
			if want := (ref.Runnable + ref.Blocked).Seconds() > 0.1*ref.Span.Seconds(); hint != want {
				t.Errorf("the --off-cpu line shown: %v, want %v (off CPU %.1f%% of the span)", hint, want,
					100*(ref.Runnable+ref.Blocked).Seconds()/ref.Span.Seconds())
			}
			if strings.Count(out, "span: ") != 1 {
				t.Errorf("the span said %d times in one group's summary", strings.Count(out, "span: "))
			}
			if hint {
				out, _, _ := wallfold(t, append([]string{"-f", "summary", "--off-cpu", path}, c.args...)...)
				if !strings.Contains(out, "no thread ran): in the profile under [blocked] and [runnable] leaves") {
					t.Errorf("with --off-cpu the summary does not say where the off-CPU time went:\n%s", out)
				}
			}
			if !strings.Contains(out, "average parallelism while on CPU: ") {
				t.Errorf("the average parallelism does not say it is over the time on CPU")
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

// --tree on a system-wide make -j2 beside an unrelated hog: the build's
// wall and parallelism as its own records count them.
func TestTreeBuild(t *testing.T) {
	for _, name := range []string{"make.txt.gz", "make.nopid.txt.gz"} {
		for _, tree := range []string{"make", "7031"} {
			t.Run(name+"/"+tree, func(t *testing.T) {
				path := offTrace(name)
				ref := referenceSplit(t, path, refTreeOfComm("make"))
				if root := refRootPID(t, path, "make"); strconv.Itoa(root) != "7031" {
					t.Fatalf("the reference finds make at pid %d", root)
				}
				on, par := ref.On.Seconds(), ref.CPU.Seconds()/ref.On.Seconds()
				wall := foldedOf(t, "--tree="+tree, path).total / 1e9
				cpu := foldedOf(t, "--tree="+tree, "--weight=cpu", path).total / 1e9
				t.Logf("wall %.4f s (reference on CPU %.4f), parallelism %.3f (reference %.3f)", wall, on, cpu/wall, par)
				if math.Abs(wall-on) > 0.03*on {
					t.Errorf("tree wall %.4f s, reference %.4f s ± 3%%", wall, on)
				}
				if math.Abs(cpu/wall-par) > 0.1 {
					t.Errorf("tree parallelism %.3f, reference %.3f ± 0.1", cpu/wall, par)
				}
				if w := foldedOf(t, "--tree="+tree, "--off-cpu", path).total / 1e9; math.Abs(w-ref.Span.Seconds()) > 0.015*ref.Span.Seconds() {
					t.Errorf("tree --off-cpu total %.4f s, span %.4f s", w, ref.Span.Seconds())
				}
				out, _, _ := wallfold(t, "-f", "summary", "--tree="+tree, path)
				if !strings.HasPrefix(out, "process tree of make (pid 7031, --tree)\n") {
					t.Errorf("summary starts %q", strings.SplitN(out, "\n", 2)[0])
				}
			})
		}
	}
}

// In process scope a system-wide build is many small groups; the summary
// names the tree that did most of the work.
func TestSummaryNamesTheBuildTree(t *testing.T) {
	path := offTrace("make.txt.gz")
	out, _, _ := wallfold(t, "-f", "summary", path)
	if !strings.Contains(out, "--tree=7031 counts it as one group") {
		t.Errorf("no --tree hint:\n%s", out)
	}
	if n := strings.Count(out, "\n"); n > 120 {
		t.Errorf("summary of %d lines (--top default)", n)
	}
	if !strings.Contains(out, "more groups") {
		t.Errorf("no '... more groups' line")
	}
	// the quiet traces of one process get no hint
	out, _, _ = wallfold(t, "-f", "summary", offTrace("sleep.txt.gz"))
	if strings.Contains(out, "--tree=") {
		t.Errorf("a --tree hint for a single process:\n%s", out)
	}
	for _, top := range []int{1, 3} {
		out, _, _ = wallfold(t, "-f", "summary", "--top="+strconv.Itoa(top), path)
		if n := strings.Count(out, "\n  samples: "); n != top {
			t.Errorf("--top=%d: %d groups in full", top, n)
		}
	}
}

// A --tree the trace does not have, or whose processes it does not name,
// says so instead of an empty profile without a word.
func TestTreeWarnings(t *testing.T) {
	out, stderr, code := wallfold(t, "--tree=nosuch", offTrace("sleep.txt.gz"))
	if code != 0 || out != "" || !strings.Contains(stderr, "--tree=nosuch: no sample of that process or its descendants") {
		t.Errorf("--tree=nosuch: exit %d, output %q, stderr %q", code, out, stderr)
	}
	_, stderr, _ = wallfold(t, "--tree=12345", offTrace("sleep.txt.gz"))
	if !strings.Contains(stderr, "--tree=12345: no sample") {
		t.Errorf("--tree=12345: stderr %q", stderr)
	}
	// per-task without task events: no thread's process is known; the
	// main thread (tid = pid) is the root, the workers are not known to
	// be in its tree
	out, stderr, _ = wallfold(t, "-f", "summary", "--tree=6979", offTrace("sleep.notask.txt.gz"))
	if !strings.HasPrefix(out, "process tree of phases (pid 6979, --tree)\n") {
		t.Errorf("summary starts %q", strings.SplitN(out, "\n", 2)[0])
	}
	if !strings.Contains(out, "have no known process") || !strings.Contains(out, "-F +pid and --show-task-events") {
		t.Errorf("no warning of threads with no known process:\n%s", out)
	}
	if _, _, _, blocked := summarySplit(t, out); blocked < 0.5 {
		t.Errorf("the main thread alone: blocked %.3f s, want ≥ 0.5 (its sleep and its join)", blocked)
	}
}
