package main

// A task's first and last moments: from its FORK to its first run it is
// runnable. On a made-up trace whose split is known, and on a real
// fork-heavy build recorded per task against referenceSplit
// (offcpu_reference_test.go).

import (
	"math"
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
	// With --off-cpu the wait is shared by the two off CPU (sh blocked,
	// its child runnable, under the child's name and pid), and the
	// totals are the span.
	f := foldedOf(t, "--off-cpu", "--tree=5", "--pid", forkWait().file(t))
	b, r := offLeaves(f)
	if math.Abs(b-0.0025) > 1e-6 || math.Abs(r-0.0025) > 1e-6 || f.lines["sh-6;[runnable]"] != 2500000 {
		t.Errorf("[blocked] %.6f s, [runnable] %.6f s (sh-6;[runnable] %d ns), want 2.5 ms each, the runnable under sh-6: %v", b, r, f.lines["sh-6;[runnable]"], f.lines)
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
