package main

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// frameShare is the share of stacks containing frame in folded output.
func frameShare(t *testing.T, out, frame string) float64 {
	t.Helper()
	return parseFolded(t, out).share("", frame)
}

func TestSummaryPhases(t *testing.T) {
	out, _, code := wallfold(t, "-f", "summary", trace("phases.txt"))
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	// Known answer: 3 s of CPU in 2 s of wall: 1.5.
	m := regexp.MustCompile(`average parallelism while on CPU: ([0-9.]+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no average parallelism line:\n%s", out)
	}
	avg, _ := strconv.ParseFloat(m[1], 64)
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
