package main

// --scope=thread --off-cpu: every thread its own group, so each thread's
// profile holds its whole life (on CPU, runnable, blocked), as wall-mode
// profilers show it. Against the threads' own clocks: pool.txt.gz of
// testdata/offcpu2 (see its README), whose pool threads each printed the
// CLOCK_MONOTONIC of their first and last act.

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

// poolTruth is what pool printed: each pool thread's span.
type poolTruth struct {
	Threads []struct {
		TID   int     `json:"tid"`
		Start float64 `json:"start"`
		End   float64 `json:"end"`
	} `json:"threads"`
}

// threadTotals is the folded weight (s) of each thread of a --tid
// profile, by the TID in its root frame comm-PID/TID.
func threadTotals(t *testing.T, f folded) map[int]float64 {
	t.Helper()
	totals := map[int]float64{}
	for st, n := range f.lines {
		root, _, _ := strings.Cut(st, ";")
		m := tidRoot.FindStringSubmatch(root)
		if m == nil {
			t.Fatalf("no comm-PID/TID root frame: %q", st)
		}
		tid, _ := strconv.Atoi(m[2])
		totals[tid] += float64(n) / 1e9
	}
	return totals
}

// poolSpanTol: a thread's total within 1.5 % of its own span. Its clock
// starts a little after the thread is created (the wait for its first
// turn on CPU 0 beside the hog) and stops a little before it exits.
const poolSpanTol = 0.015

// judgePoolTotals returns what is wrong with the threads' totals.
func judgePoolTotals(totals map[int]float64, tr poolTruth) []string {
	var bad []string
	for _, th := range tr.Threads {
		span := th.End - th.Start
		if got := totals[th.TID]; math.Abs(got-span) > poolSpanTol*span {
			bad = append(bad, fmt.Sprintf("thread %d: total %.4f s, its own span %.4f s ± 1.5 %% (%+.1f %%)",
				th.TID, got, span, 100*(got-span)/span))
		}
	}
	return bad
}

// The pool's four threads start 100 ms apart and share CPU 0 with a hog:
// each computes, sleeps, and queues for the pool's lock; each thread's
// total is its span.
func TestScopeThreadTotalsAreThreadSpans(t *testing.T) {
	var tr poolTruth
	readOff2Truth(t, "pool", &tr)
	if len(tr.Threads) < 2 {
		t.Fatalf("pool.truth.json: %d threads", len(tr.Threads))
	}
	out, stderr, code := wallfold(t, "-q", "--scope=thread", "--off-cpu", "--tid", off2Trace("pool.txt.gz"))
	if code != 0 {
		t.Fatalf("wallfold --scope=thread --off-cpu: exit %d: %s", code, stderr)
	}
	totals := threadTotals(t, parseFolded(t, out))
	for _, th := range tr.Threads {
		t.Logf("thread %d: span %.4f s, total %.4f s", th.TID, th.End-th.Start, totals[th.TID])
	}
	for _, b := range judgePoolTotals(totals, tr) {
		t.Error(b)
	}
}

// The judge has teeth: the workload's group (--scope=workload) gives a
// thread only a share of the time when no thread runs, so the threads'
// totals are not their spans; and a total off by 2 % fails.
func TestScopeThreadPoolJudge(t *testing.T) {
	var tr poolTruth
	readOff2Truth(t, "pool", &tr)
	f := foldedOf(t, "--scope=workload", "--off-cpu", "--tid", off2Trace("pool.txt.gz"))
	if bad := judgePoolTotals(threadTotals(t, f), tr); len(bad) == 0 {
		t.Error("the workload's shares pass as each thread's span")
	}
	exact := map[int]float64{}
	for _, th := range tr.Threads {
		exact[th.TID] = th.End - th.Start
	}
	if bad := judgePoolTotals(exact, tr); len(bad) > 0 {
		t.Errorf("the spans themselves fail: %v", bad)
	}
	exact[tr.Threads[0].TID] *= 1.02
	if bad := judgePoolTotals(exact, tr); len(bad) != 1 {
		t.Errorf("a total 2 %% over its span: %d complaints, want 1", len(bad))
	}
}
