package main

// The off-CPU profile against what the kernel and the programs say of
// themselves: recordings of testdata/offcpu2 (see its README), each beside
// the truth its program printed (NAME.truth.json). The truths come from
// /proc/thread-self/schedstat and the programs' own clocks, or from
// referenceSplit's count of the switch records; nothing here is
// wallfold's output pasted in.

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wallfold/wallfold/internal/testtrace"
)

// off2Trace is the path of a trace of testdata/offcpu2.
func off2Trace(name string) string { return filepath.Join("testdata", "offcpu2", name) }

// readOff2Truth decodes NAME.truth.json of testdata/offcpu2 into v.
func readOff2Truth(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(off2Trace(name + ".truth.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s.truth.json: %v", name, err)
	}
}

// selfTruth is what selfmeasure printed: its window on CLOCK_MONOTONIC
// (the trace's clock: recorded with -k mono) and the kernel's split of
// it, in seconds: on CPU and run_delay from schedstat, blocked the rest.
type selfTruth struct {
	TID      int     `json:"tid"`
	Start    float64 `json:"start"`
	End      float64 `json:"end"`
	Span     float64 `json:"span"`
	OnCPU    float64 `json:"on_cpu"`
	Runnable float64 `json:"runnable"`
	Blocked  float64 `json:"blocked"`
	Rounds   int     `json:"rounds"`
}

// offSplit is a folded --off-cpu profile's time (s) by leaf: on CPU (the
// samples' stacks), [runnable], [blocked] and [unsampled].
type offSplit struct{ on, runnable, blocked, unsampled float64 }

func splitOf(f folded) offSplit {
	var s offSplit
	s.blocked, s.runnable = offLeaves(f)
	for st, n := range f.lines {
		if strings.HasSuffix(st, ";[unsampled]") {
			s.unsampled += float64(n) / 1e9
		}
	}
	s.on = f.total/1e9 - s.blocked - s.runnable - s.unsampled
	return s
}

// selfWindow is wallfold's split of selfmeasure's thread in its window.
// --event: the wakeup samples come first in those traces, and the clock
// is what is profiled; --scope=process: the hogs of selfmeasure.wake are
// other processes of the workload.
func selfWindow(t *testing.T, name string, tr selfTruth) offSplit {
	t.Helper()
	return splitOf(foldedOf(t, "--off-cpu", "--event=cpu-clock", "--scope=process", fmt.Sprintf("--tids=%d", tr.TID),
		fmt.Sprintf("--time=%.6f,%.6f", tr.Start, tr.End), off2Trace(name+".txt.gz")))
}

// selfMeasureTol: each part within 3 % of the span of the kernel's count.
const selfMeasureTol = 0.03

// judgeSelfSplit returns what is wrong with got against the kernel's
// split: with wakeup records each of on CPU, runnable and blocked must be
// the kernel's; without them only on CPU and the time off CPU can be
// (switch records cannot tell the wait for a CPU after a wakeup from the
// sleep before it), and blocked may only be too long by that wait, never
// too short.
func judgeSelfSplit(got offSplit, tr selfTruth, wakeups bool) []string {
	tol := selfMeasureTol * tr.Span
	var bad []string
	check := func(what string, g, want float64) {
		if math.Abs(g-want) > tol {
			bad = append(bad, fmt.Sprintf("%s %.4f s, the kernel says %.4f s (± %.4f: 3 %% of the span %.4f s)", what, g, want, tol, tr.Span))
		}
	}
	check("on CPU", got.on+got.unsampled, tr.OnCPU)
	if wakeups {
		check("[runnable]", got.runnable, tr.Runnable)
		check("[blocked]", got.blocked, tr.Blocked)
		return bad
	}
	check("[runnable]+[blocked]", got.runnable+got.blocked, tr.Runnable+tr.Blocked)
	if got.blocked < tr.Blocked-tol {
		bad = append(bad, fmt.Sprintf("[blocked] %.4f s, less than the %.4f s the thread slept (± %.4f)", got.blocked, tr.Blocked, tol))
	}
	return bad
}

// TestSelfMeasuredSplit: selfmeasure computes 40 × 5 ms, sleeps 40 ×
// 10 ms and waits for CPU 0 beside four hogs, also after each wakeup.
// wake: it sleeps in a pipe that a recorded child writes, so each wakeup
// is a sched_wakeup record and the wait after it is known to be
// runnable. taskwake: nanosleep, with the wakeup events, which then hold
// only the wakeups the thread does, not those the timer interrupt does
// to it while an unrecorded hog runs: what it can know is what nowake
// (no wakeup events) knows.
func TestSelfMeasuredSplit(t *testing.T) {
	for _, c := range []struct {
		name    string
		wakeups bool // the trace has the thread's wakeups
	}{{"selfmeasure.wake", true}, {"selfmeasure.taskwake", false}, {"selfmeasure.nowake", false}} {
		t.Run(c.name, func(t *testing.T) {
			var tr selfTruth
			readOff2Truth(t, c.name, &tr)
			// what the trace can tell: a wakeup record for every sleep
			wakeups := wakeupsOf(t, off2Trace(c.name+".txt.gz"), tr.TID, tr.Start, tr.End)
			if want := map[bool]int{true: tr.Rounds}[c.wakeups]; wakeups != want {
				t.Fatalf("%d wakeup records of thread %d in its window, want %d: record again", wakeups, tr.TID, want)
			}
			got := selfWindow(t, c.name, tr)
			t.Logf("kernel: span %.4f s = on CPU %.4f + runnable %.4f + blocked %.4f", tr.Span, tr.OnCPU, tr.Runnable, tr.Blocked)
			t.Logf("wallfold: on CPU %.4f (+ [unsampled] %.4f) + [runnable] %.4f + [blocked] %.4f = %.4f s",
				got.on, got.unsampled, got.runnable, got.blocked, got.on+got.unsampled+got.runnable+got.blocked)
			for _, b := range judgeSelfSplit(got, tr, c.wakeups) {
				t.Errorf("%s: %s", c.name, b)
			}
		})
	}
}

// The judge has teeth: the recorded truth moved by 5 % of the span from
// one part to another fails, however the parts are judged.
func TestSelfMeasuredSplitJudge(t *testing.T) {
	var tr selfTruth
	readOff2Truth(t, "selfmeasure.nowake", &tr)
	exact := offSplit{on: tr.OnCPU, runnable: tr.Runnable, blocked: tr.Blocked}
	if bad := judgeSelfSplit(exact, tr, true); len(bad) > 0 {
		t.Errorf("the truth itself fails: %v", bad)
	}
	d := 0.05 * tr.Span
	for _, c := range []struct {
		what    string
		got     offSplit
		wakeups bool
	}{
		{"on CPU → blocked", offSplit{on: tr.OnCPU - d, runnable: tr.Runnable, blocked: tr.Blocked + d}, false},
		{"blocked → runnable", offSplit{on: tr.OnCPU, runnable: tr.Runnable + d, blocked: tr.Blocked - d}, false},
		{"runnable → blocked", offSplit{on: tr.OnCPU, runnable: tr.Runnable - d, blocked: tr.Blocked + d}, true},
		{"off CPU too long", offSplit{on: tr.OnCPU, runnable: tr.Runnable + d, blocked: tr.Blocked}, false},
	} {
		if bad := judgeSelfSplit(c.got, tr, c.wakeups); len(bad) == 0 {
			t.Errorf("%s by %.4f s passes the judge", c.what, d)
		}
	}
}

// crowd: main computes, then joins two workers that share CPU 0 with a
// hog and are preempted; crowd.idle adds three helper threads that sleep
// from start to end. Whenever no thread runs, a worker is runnable: the
// group's off-CPU time is runnable time (referenceSplit counts it from
// the switch records), and the profile's [runnable] and [blocked] must
// say what the summary says, idle helpers or not.
func TestOffCPUFoldedMatchesSummaryBesideAHog(t *testing.T) {
	for _, name := range []string{"crowd.txt.gz", "crowd.idle.txt.gz"} {
		t.Run(name, func(t *testing.T) {
			path := off2Trace(name)
			ref := referenceSplit(t, path, refAll())
			out, _, code := wallfold(t, "-q", "-f", "summary", "--off-cpu", path)
			if code != 0 {
				t.Fatalf("summary: exit %d", code)
			}
			span, _, sumRunnable, sumBlocked := summarySplit(t, out)
			got := splitOf(foldedOf(t, "--off-cpu", path))
			t.Logf("reference: span %.4f, runnable %.4f, blocked %.4f s", ref.Span.Seconds(), ref.Runnable.Seconds(), ref.Blocked.Seconds())
			t.Logf("summary: span %.3f, runnable %.3f, blocked %.3f s; folded: [runnable] %.4f, [blocked] %.4f s (%.1f %% of the summary's runnable)",
				span, sumRunnable, sumBlocked, got.runnable, got.blocked, 100*got.runnable/sumRunnable)
			if r := ref.Runnable.Seconds(); r < 0.2 || ref.Blocked.Seconds() > 0.01*r {
				t.Fatalf("the recording shows no crowded workers: reference runnable %.4f s, blocked %.4f s", r, ref.Blocked.Seconds())
			}
			if math.Abs(got.runnable-sumRunnable) > 0.01*sumRunnable {
				t.Errorf("folded [runnable] %.4f s, the summary's runnable %.3f s ± 1 %%", got.runnable, sumRunnable)
			}
			if math.Abs(got.blocked-sumBlocked) > 0.01*span {
				t.Errorf("folded [blocked] %.4f s, the summary's blocked %.3f s ± 1 %% of the span", got.blocked, sumBlocked)
			}
			if r := ref.Runnable.Seconds(); math.Abs(got.runnable-r) > 0.01*r {
				t.Errorf("folded [runnable] %.4f s, the switch records' runnable %.4f s ± 1 %%", got.runnable, r)
			}
		})
	}
}

// wakeupsOf counts the sched_wakeup records of thread tid in [start, end]
// (trace seconds), as perf script prints them: "... sched:sched_wakeup:
// comm=NAME pid=TID prio=...".
func wakeupsOf(t *testing.T, path string, tid int, start, end float64) int {
	t.Helper()
	target := fmt.Sprintf(" pid=%d ", tid)
	n := 0
	for _, l := range strings.Split(string(testtrace.Read(t, path)), "\n") {
		i := strings.Index(l, " sched:sched_wakeup: ")
		if i < 0 || !strings.Contains(l[i:], target) {
			continue
		}
		f := strings.Fields(l[:i])
		if len(f) == 0 {
			continue
		}
		at, err := strconv.ParseFloat(strings.TrimSuffix(f[len(f)-1], ":"), 64)
		if err == nil && at >= start && at <= end {
			n++
		}
	}
	return n
}
