package main

// The output filters end to end, on traces with known answers.

import (
	"math"
	"strings"
	"testing"
)

func TestParallelismFilter(t *testing.T) {
	out, _, _ := wallfold(t, "-q", "--parallelism=1", trace("phases.txt"))
	if s := frameShare(t, out, "serial_phase"); s < 95 {
		t.Errorf("--parallelism=1: serial_phase %.1f%%, want ~100", s)
	}
	out, _, _ = wallfold(t, "-q", "--parallelism=2-", trace("phases.txt"))
	if s := frameShare(t, out, "parallel_work"); s < 98 {
		t.Errorf("--parallelism=2-: parallel_work %.1f%%, want ~100", s)
	}
	// The two filters split the whole.
	all, _, _ := wallfold(t, "-q", trace("phases.txt"))
	one, _, _ := wallfold(t, "-q", "--parallelism=1", trace("phases.txt"))
	two, _, _ := wallfold(t, "-q", "--parallelism=2,3-", trace("phases.txt"))
	a, b, c := parseFolded(t, all).total, parseFolded(t, one).total, parseFolded(t, two).total
	if math.Abs(a-(b+c)) > float64(len(parseFolded(t, all).lines)) {
		t.Errorf("par 1 (%.0f) + par 2- (%.0f) != all (%.0f)", b, c, a)
	}
}

func TestTimeFilter(t *testing.T) {
	// phases: serial 0.5 s, parallel 1 s, serial 0.5 s.
	for _, tt := range []struct {
		window, frame string
	}{
		{"0%,20%", "serial_phase"},
		{"35%,65%", "parallel_work"},
		{"80%,100%", "serial_phase"},
		{"80%,", "serial_phase"},
	} {
		out, _, code := wallfold(t, "-q", "--time="+tt.window, trace("phases.txt"))
		if code != 0 {
			t.Fatalf("--time=%s: exit %d", tt.window, code)
		}
		if s := frameShare(t, out, tt.frame); s < 97 {
			t.Errorf("--time=%s: %s %.1f%%, want ~100", tt.window, tt.frame, s)
		}
	}
	// Absolute seconds: the trace starts at 273.124 s.
	out, _, _ := wallfold(t, "-q", "--time=273.8,274.4", trace("phases.txt"))
	f := parseFolded(t, out)
	if s := f.share("", "parallel_work"); s < 99 {
		t.Errorf("absolute window: parallel_work %.1f%%", s)
	}
	if w := f.total / 1e9; math.Abs(w-0.6) > 0.02 {
		t.Errorf("a 0.6 s window holds %.3f s of wall", w)
	}
	// Percent on a pipe: the samples wait for the end of the trace.
	piped := mustRunIn(t, pipedFrom(t, trace("phases.txt")), "-q", "--time=0%,20%")
	if piped != func() string { o, _, _ := wallfold(t, "-q", "--time=0%,20%", trace("phases.txt")); return o }() {
		t.Error("--time in percent differs between a file and a pipe")
	}
}

func TestIdentityFilters(t *testing.T) {
	out, _, _ := wallfold(t, "-q", "--tid", "--comm=spin", trace("procs.txt"))
	for st := range parseFolded(t, out).lines {
		if !strings.HasPrefix(st, "spin-") {
			t.Fatalf("--comm=spin kept %q", st)
		}
	}
	out, _, _ = wallfold(t, "-q", "--tid", "--pids=5864", trace("procs.txt"))
	f := parseFolded(t, out)
	for st := range f.lines {
		if !strings.HasPrefix(st, "spin-") || !strings.Contains(st, "/5864;") {
			t.Fatalf("--pids=5864 kept %q", st)
		}
	}
	if s := f.share("", "spin_a"); s < 99 {
		t.Errorf("pid 5864 is spin a: %.1f%%", s)
	}
	out, _, _ = wallfold(t, "-q", "--tids=5885,5886", trace("procs.txt"))
	if s := frameShare(t, out, "spin_b"); s < 99 {
		t.Errorf("--tids of the spin b processes: spin_b %.1f%%", s)
	}
}

func TestParallelismFrame(t *testing.T) {
	out, _, _ := wallfold(t, "-q", "--parallelism-frame", trace("phases.txt"))
	f := parseFolded(t, out)
	var one, two float64
	for st, n := range f.lines {
		switch {
		case strings.HasPrefix(st, "[parallelism 1];phases;"):
			one += float64(n)
		case strings.HasPrefix(st, "[parallelism 2];phases;"):
			two += float64(n)
		default:
			t.Fatalf("stack without parallelism root: %q", st)
		}
	}
	if math.Abs(one/(one+two)-0.5) > 0.03 {
		t.Errorf("[parallelism 1] is %.1f%% of wall", 100*one/(one+two))
	}
}

func TestFilterFlagErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--parallelism=x"}, {"--parallelism=3-1"}, {"--time=5"}, {"--time=1%,2"}, {"--pids=a"},
	} {
		_, stderr, code := wallfold(t, append(args, trace("phases.txt"))...)
		if code != 2 || !strings.Contains(stderr, strings.SplitN(strings.TrimPrefix(args[0], "--"), "=", 2)[0]) {
			t.Errorf("%v: exit %d, %q", args, code, stderr)
		}
	}
}

// --comm keeps only some threads' samples but the others still count for
// parallelism: the workers' samples at parallelism 2 stay at 2.
func TestCommFilterKeepsParallelism(t *testing.T) {
	all, _, _ := wallfold(t, "-q", "--tid", "--parallelism-frame", trace("procs.txt"))
	some, _, _ := wallfold(t, "-q", "--tid", "--parallelism-frame", "--comm=spin", trace("procs.txt"))
	fa, fs := parseFolded(t, all), parseFolded(t, some)
	for st, n := range fs.lines {
		if fa.lines[st] != n {
			t.Errorf("%q: %d with --comm, %d without", st, n, fa.lines[st])
		}
	}
	if len(fs.lines) == 0 {
		t.Fatal("--comm=spin kept nothing")
	}
}
