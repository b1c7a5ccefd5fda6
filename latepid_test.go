package main

// A thread whose process perf names only late (system-wide, no pid
// column, no task events: only a CPU-wide switch record names it).

import (
	"fmt"
	"strings"
	"testing"
)

// latePIDTrace: process 200's threads 200 (CPU 0) and 201 (CPU 1) run
// together from 1 ms to 2 s, sampled every ms; a switch record names 201's
// process at nameAt (µs). Both threads' samples are at parallelism 2.
func latePIDTrace(nameAt int64) string {
	var b strings.Builder
	line := func(comm string, tid, cpu int, us int64, rest string) {
		fmt.Fprintf(&b, "%8s %6d [%03d] %d.%06d: %s\n", comm, tid, cpu, 100+us/1e6, us%1e6, rest)
	}
	line("main", 200, 0, 1000, "PERF_RECORD_SWITCH_CPU_WIDE IN           prev pid/tid:     0/0    ")
	line("main", 201, 1, 1000, "PERF_RECORD_SWITCH_CPU_WIDE IN           prev pid/tid:     0/0    ")
	for us := int64(2000); us < 2000000; us += 1000 {
		for _, tid := range []int{200, 201} {
			line("main", tid, tid-200, us, "   1000000 cpu-clock: ")
			fmt.Fprintf(&b, "\t            1205 work_%d+0x4 (/x)\n\n", tid)
		}
		if us == 2000 {
			// 200 names itself: its own process
			line("main", 200, 0, us+1, "PERF_RECORD_SWITCH_CPU_WIDE OUT preempt  next pid/tid:   200/200  ")
			line("main", 200, 0, us+2, "PERF_RECORD_SWITCH_CPU_WIDE IN           prev pid/tid:   200/200  ")
		}
		if us == nameAt {
			line("main", 201, 1, us+1, "PERF_RECORD_SWITCH_CPU_WIDE OUT preempt  next pid/tid:   200/201  ")
			line("main", 201, 1, us+2, "PERF_RECORD_SWITCH_CPU_WIDE IN           prev pid/tid:   200/201  ")
		}
	}
	return b.String()
}

func TestLatePIDs(t *testing.T) {
	text := latePIDTrace(1500000) // named 1.5 s in
	path := writeTrace(t, "late.txt", []byte(text))
	check := func(how, out, stderr string, wantWarning bool) {
		t.Helper()
		f := parseFolded(t, out)
		var wrong uint64
		for st, n := range f.lines {
			if !strings.HasPrefix(st, "main-200;") {
				wrong += n
			}
		}
		share := 100 * float64(wrong) / f.total
		t.Logf("%s: %.1f %% of the wall outside process 200", how, share)
		warned := strings.Contains(stderr, "named to their process only after their first records counted")
		if wantWarning != warned {
			t.Errorf("%s: warning %v, want %v: %q", how, warned, wantWarning, stderr)
		}
		if !wantWarning && share > 0 {
			t.Errorf("%s: %.1f %% of the wall outside process 200, want 0", how, share)
		}
		if !wantWarning && (f.total < 1.99e9 || f.total > 2.01e9) {
			t.Errorf("%s: wall %.0f ns, want 2 s (both threads at parallelism 2)", how, f.total)
		}
	}
	out, stderr, _ := wallfold(t, "--pid", "--scope=process", path)
	check("file", out, stderr, false)
	// On a pipe the model looks 1 s ahead: a name 1.5 s late is too late,
	// and it says so.
	out, stderr, _ = wallfoldStdin(t, text, "--pid", "--scope=process")
	check("stdin, named 1.5 s late", out, stderr, true)
	// 0.7 s late: within the window.
	out, stderr, _ = wallfoldStdin(t, latePIDTrace(700000), "--pid", "--scope=process")
	check("stdin, named 0.7 s late", out, stderr, false)
}
