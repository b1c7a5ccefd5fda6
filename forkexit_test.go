package main

// A task's first and last moments: from its FORK to its first run it is
// runnable; after its EXIT it is on CPU only from an IN to an OUT, and
// runnable while preempted. On made-up traces whose split is known, on a
// real fork-heavy build recorded per task against referenceSplit
// (offcpu_reference_test.go), and on the same build recorded system-wide
// against referenceWideOn (forkexit_reference_test.go).

import (
	"math"
	"strconv"
	"testing"
)

// summaryRound is how far a time the summary prints (seconds to 3
// decimals) may be from its value.
const summaryRound = 0.0005 + 1e-9

// forkWait is a CPU-wide trace: sh (pid 5) runs on CPU 0 from 1 ms,
// forks 6 at 3.5 ms and waits for it from 4 ms (plain OUT); a process
// outside the tree (99) holds CPU 0 until 9 ms; the child runs 9-11.6
// ms (EXIT at 11.5) and sh 11.6-13.1 ms. The tree waits runnable 4-9 ms:
// on CPU 1-4 and 9-13.1 ms (7.1 ms), runnable 5 ms, blocked none.
func forkWait() *rv {
	r := &rv{}
	r.sw("sh", 5, 5, 0, 1000, false, 0)
	r.sample("sh", 5, 5, 0, 2000, "fork_loop")
	r.sample("sh", 5, 5, 0, 3000, "fork_loop")
	r.line("sh", 5, 5, 0, 3500, "PERF_RECORD_FORK(6:6):(5:5)")
	r.sw("sh", 5, 5, 0, 4000, true, 99)
	r.sw("hog", 99, 99, 0, 4000, false, 5)
	r.sample("hog", 99, 99, 0, 5000, "spin")
	r.sample("hog", 99, 99, 0, 8000, "spin")
	r.line("hog", 99, 99, 0, 9000, "PERF_RECORD_SWITCH_CPU_WIDE OUT preempt  next pid/tid:     6/6    ")
	r.sw("sh", 6, 6, 0, 9000, false, 99)
	r.sample("sh", 6, 6, 0, 10000, "child")
	r.sample("sh", 6, 6, 0, 11000, "child")
	r.line("sh", 6, 6, 0, 11500, "PERF_RECORD_EXIT(6:6):(5:5)")
	r.sw("sh", 6, 6, 0, 11600, true, 5)
	r.sw("sh", 5, 5, 0, 11600, false, 6)
	r.sample("sh", 5, 5, 0, 12600, "fork_loop")
	r.line("sh", 5, 5, 0, 13000, "PERF_RECORD_EXIT(5:5):(1:1)")
	r.sw("sh", 5, 5, 0, 13100, true, 0)
	return r
}

// Was: the child had no state until its IN, so the tree waited blocked
// (sh in wait4) 5 ms.
func TestForkedTaskIsRunnable(t *testing.T) {
	out, stderr, code := wallfold(t, "-f", "summary", "--tree=5", forkWait().file(t))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	span, on, runnable, blocked := summarySplit(t, out)
	if math.Abs(span-0.0121) > summaryRound || math.Abs(on-0.0071) > summaryRound || math.Abs(runnable-0.005) > summaryRound || blocked > summaryRound {
		t.Errorf("span %.4f = on %.4f + runnable %.4f + blocked %.4f, want 0.0121 = 0.0071 + 0.0050 + 0", span, on, runnable, blocked)
	}
	// With --off-cpu the wait is the child's, runnable, under its name and
	// pid (sh, blocked in wait4, waits on it: the group waits for a CPU),
	// as the summary says; the totals are the span.
	f := foldedOf(t, "--off-cpu", "--tree=5", "--pid", forkWait().file(t))
	b, r := offLeaves(f)
	if b != 0 || math.Abs(r-0.005) > 1e-6 || f.lines["sh-6;[runnable]"] != 5000000 {
		t.Errorf("[blocked] %.6f s, [runnable] %.6f s (sh-6;[runnable] %d ns), want 0 and 5 ms, the runnable under sh-6: %v", b, r, f.lines["sh-6;[runnable]"], f.lines)
	}
}

// exitPreempted is forkWait's sh alone, preempted after its EXIT: it runs
// 1-10.5 ms (EXIT at 10.2), waits for CPU 0 until 15.5 ms (99 holds it),
// runs its exit to its last OUT at 15.8 ms. On CPU 9.8 ms of a 14.8 ms
// span, runnable 5 ms.
func exitPreempted() *rv {
	r := &rv{}
	r.sw("sh", 5, 5, 0, 1000, false, 0)
	for us := int64(2000); us <= 10000; us += 1000 {
		r.sample("sh", 5, 5, 0, us, "work")
	}
	r.line("sh", 5, 5, 0, 10200, "PERF_RECORD_EXIT(5:5):(1:1)")
	r.line("sh", 5, 5, 0, 10500, "PERF_RECORD_SWITCH_CPU_WIDE OUT preempt  next pid/tid:    99/99   ")
	r.sw("hog", 99, 99, 0, 10500, false, 5)
	r.sample("hog", 99, 99, 0, 12000, "spin")
	r.line("hog", 99, 99, 0, 15500, "PERF_RECORD_SWITCH_CPU_WIDE OUT preempt  next pid/tid:     5/5    ")
	r.sw("sh", 5, 5, 0, 15500, false, 99)
	r.sw("sh", 5, 5, 0, 15800, true, 99)
	r.sw("hog", 99, 99, 0, 15800, false, 5)
	r.sample("hog", 99, 99, 0, 16800, "spin")
	return r
}

// Was: everything from the EXIT to the last OUT was on CPU (14.8 ms).
func TestExitedTaskPreemptedIsRunnable(t *testing.T) {
	out, stderr, code := wallfold(t, "-f", "summary", "--tree=5", exitPreempted().file(t))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	span, on, runnable, blocked := summarySplit(t, out)
	if math.Abs(span-0.0148) > summaryRound || math.Abs(on-0.0098) > summaryRound || math.Abs(runnable-0.005) > summaryRound || blocked > summaryRound {
		t.Errorf("span %.4f = on %.4f + runnable %.4f + blocked %.4f, want 0.0148 = 0.0098 + 0.0050 + 0", span, on, runnable, blocked)
	}
	f := foldedOf(t, "--off-cpu", "--tree=5", exitPreempted().file(t))
	if _, r := offLeaves(f); math.Abs(r-0.005) > 1e-6 || math.Abs(f.total/1e9-span) > 0.001 {
		t.Errorf("--off-cpu: [runnable] %.6f s, total %.6f s; want 0.005 s, the span %.4f s ± 1 ms (a sample)", r, f.total/1e9, span)
	}
}

// configure.txt.gz: pv's configure and make -j2, recorded per task
// beside a CPU hog: 1,481 processes, most of them forked by the
// configure script, each waiting a while for a CPU. Was (the counts of
// the recording): runnable 1.028 s, blocked 1.563 s; the reference
// 1.957 s and 0.634 s of a 5.485 s span.
func TestForkHeavyBuildSplit(t *testing.T) {
	path := offTrace("configure.txt.gz")
	ref := referenceSplit(t, path, refAll())
	out, stderr, code := wallfold(t, "-f", "summary", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	span, on, runnable, blocked := summarySplit(t, out)
	t.Logf("summary: span %.3f on %.3f runnable %.3f blocked %.3f; reference %.3f %.3f %.3f %.3f (%d threads)",
		span, on, runnable, blocked, ref.Span.Seconds(), ref.On.Seconds(), ref.Runnable.Seconds(), ref.Blocked.Seconds(), ref.Threads)
	if ref.Threads < 1000 {
		t.Fatalf("the reference counts %d threads: not the fork-heavy build", ref.Threads)
	}
	for _, c := range []struct {
		what      string
		got, want float64
	}{{"on CPU", on, ref.On.Seconds()}, {"runnable", runnable, ref.Runnable.Seconds()}, {"blocked", blocked, ref.Blocked.Seconds()}} {
		if math.Abs(c.got-c.want) > 0.02*ref.Span.Seconds() {
			t.Errorf("%s %.3f s, reference %.3f s: more than 2%% of the span %.3f s apart", c.what, c.got, c.want, ref.Span.Seconds())
		}
	}
}

// configure.sys.txt.gz: the same build recorded system-wide beside three
// CPU hogs (cut to the build's tree and its switches' other sides), 183
// of its processes preempted after their EXIT. Was: the tree on CPU
// 3.875 s, where its switch records say 3.569 s.
func TestBusyBuildTreeOnCPU(t *testing.T) {
	path := offTrace("configure.sys.txt.gz")
	root := refFirstExec(t, path, "sh")
	ref := referenceWideOn(t, path, root)
	out, stderr, code := wallfold(t, "-f", "summary", "--tree="+strconv.Itoa(root), path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	span, on, _, _ := summarySplit(t, out)
	t.Logf("tree of %d: summary on CPU %.3f s of %.3f s; reference %.3f s of %.3f s (%d exits, %d preempted after it, %.3f s waiting)",
		root, on, span, ref.On.Seconds(), (ref.Last - ref.First).Seconds(), ref.Exits, ref.ExitsPreempt, ref.AfterExitWait.Seconds())
	if ref.ExitsPreempt < 50 {
		t.Fatalf("%d of the tree's tasks preempted after their EXIT: not the busy build", ref.ExitsPreempt)
	}
	if want := ref.On.Seconds(); math.Abs(on-want) > 0.01*want {
		t.Errorf("the tree on CPU %.3f s, its switch records %.3f s: more than 1%% apart", on, want)
	}
}
