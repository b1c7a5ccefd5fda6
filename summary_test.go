package main

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestSummaryPhases(t *testing.T) {
	out, _, code := wallfold(t, "-f", "summary", trace("phases.txt"))
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	// Known answer: 3 s of CPU in 2 s of wall: 1.5.
	avg := avgParOf(t, out)
	if math.Abs(avg-1.5) > 0.05 {
		t.Errorf("average parallelism %.2f, want 1.5", avg)
	}
	// Half the wall time at parallelism 1, half at 2.
	for _, lv := range []string{"1", "2"} {
		m := regexp.MustCompile(`(?m)^\s+` + lv + `\s+([0-9.]+)% [#]*\s+([0-9.]+)%`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no histogram row %s:\n%s", lv, out)
		}
		wall, _ := strconv.ParseFloat(m[1], 64)
		if math.Abs(wall-50) > 3 {
			t.Errorf("parallelism %s: %.1f%% of wall, want 50", lv, wall)
		}
	}
	if !strings.Contains(out, "serial (parallelism 1)") || !strings.Contains(out, "serial_phase") {
		t.Errorf("no serial hot spots naming serial_phase:\n%s", out)
	}
	if strings.Contains(out, "█") {
		t.Error("Unicode bars when not writing to a terminal")
	}
}

func TestSummaryProcessScope(t *testing.T) {
	out, _, _ := wallfold(t, "-f", "summary", trace("syswide.notask.txt"))
	if !strings.HasPrefix(out, "process phases (pid ") {
		t.Errorf("largest group first, named by its comm after exec:\n%.300s", out)
	}
	if !strings.Contains(out, "warning: no task events") {
		t.Errorf("summary without the run's warnings:\n%s", out)
	}
}

func TestSummaryFlagGoesToStderr(t *testing.T) {
	out, stderr, code := wallfold(t, "--summary", trace("phases.txt"))
	if code != 0 || !strings.Contains(stderr, "average parallelism") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if strings.Contains(out, "average parallelism") {
		t.Error("summary in the folded output")
	}
	parseFolded(t, out)
}

// TestSummaryDeterministic: groups with equal wall (small processes of a
// system-wide trace) come out in the same order every run.
func TestSummaryDeterministic(t *testing.T) {
	path := trace("syswide2.notask.txt")
	needFile(t, path)
	first, _, _ := wallfold(t, "-f", "summary", path)
	for i := 0; i < 8; i++ {
		if out, _, _ := wallfold(t, "-f", "summary", path); out != first {
			t.Fatalf("run %d: summary differs from the first run", i+2)
		}
	}
}

// avgParOf is the summary's average parallelism while on CPU.
func avgParOf(t *testing.T, out string) float64 {
	t.Helper()
	m := avgPar.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no average parallelism line:\n%s", out)
	}
	avg, _ := strconv.ParseFloat(m[1], 64)
	return avg
}

// avgPar matches the summary's average parallelism.
var avgPar = regexp.MustCompile(`average parallelism while on CPU: ([0-9.]+)`)

// levelRow matches a row of the summary's histogram: a parallelism
// level and its share of the wall.
var levelRow = regexp.MustCompile(`(?m)^\s+(\d+)\s+([0-9.]+)% `)

// Was a bug (fixed): in workload scope the summary counts idle samples (tid 0,
// swapper: parallelism 0, wall 0) in the group's samples and CPU, so
// "average parallelism (= CPU / wall)" counts idle CPUs as parallel work.
// On syswide.txt (--scope=workload: every thread of the machine) the
// histogram itself says 50.4 % of the wall at parallelism 1 and 49.6 % at
// 2, i.e. an average of 1.50 (3.0 s of non-idle CPU in 2.0 s), but the
// summary prints 1.75 (3.506 s of CPU, 0.5 s of it swapper).
// At fault then: the summary's addSummary added idle samples (par 0) to
// g.samples and g.cpu (only process scope dropped the idle group).
// Fix: idle samples are kept out of the groups' samples and CPU, and
// counted apart as idle CPU (emit/summarize.go, Summarizer.Add).
func TestSummaryIdleLeftOut(t *testing.T) {
	out, _, code := wallfold(t, "-f", "summary", "--scope=workload", trace("syswide.txt"))
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	avg := avgParOf(t, out)
	// The histogram's own wall-weighted mean of the parallelism levels.
	var mean, share float64
	for _, r := range levelRow.FindAllStringSubmatch(out, -1) {
		lv, _ := strconv.Atoi(r[1])
		w, _ := strconv.ParseFloat(r[2], 64)
		mean += float64(lv) * w / 100
		share += w
	}
	if share < 99 {
		t.Fatalf("histogram rows add up to %.1f%%:\n%s", share, out)
	}
	if math.Abs(avg-mean) > 0.03 || math.Abs(avg-1.5) > 0.05 {
		t.Errorf("average parallelism %.2f; its histogram says %.2f, the trace 1.5 (idle CPU counted as work)\n%s", avg, mean, out)
	}
}

// With --pid or --tid and no pid column, a root learnt from the trace's
// task records (comm-PID) is what the summary names, as the folded
// output does (was: comm-? in the summary).
func TestSummaryNamesLearntRoots(t *testing.T) {
	out := mustRun(t, "-f", "summary", "--tid", trace("phases.txt"))
	if !strings.Contains(out, "phases-5756/5756") || strings.Contains(out, "phases-?") {
		t.Errorf("the summary's roots are not the learnt ones:\n%s", out)
	}
}
