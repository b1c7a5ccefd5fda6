package main

// Inputs that are not what wallfold needs: perf script -F without the
// period, time or tid of the samples. Each must end in exit 1, one message
// saying what to add, and nothing on stdout (nor in the -o file).

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Header lines of the shipped traces, as perf script prints them.
var (
	withPeriod = regexp.MustCompile(`^(\S.*\d+\.\d{6}:)\s+\d+\s+(cpu-clock:.*)$`) // a sample's period
	withTime   = regexp.MustCompile(`^(\S.*?\s+-?\d+(?:/-?\d+)?(?:\s+\[\d+\])?)\s+\d+\.\d{6}:`)
	withTID    = regexp.MustCompile(`^(\S.*?)\s+-?\d+((?:\s+\[\d+\])?\s+\d+\.\d{6}:)`)
	isSample   = regexp.MustCompile(`^\S.*\scpu-clock:`)
)

// replaceHeaders applies re -> repl to the header lines (not stack lines)
// for which only says yes (nil: all of them).
func replaceHeaders(re *regexp.Regexp, repl string, only func(line string) bool) func([]string) []string {
	return func(lines []string) []string {
		out := make([]string, len(lines))
		for i, l := range lines {
			if l != "" && l[0] != '\t' && (only == nil || only(l)) {
				l = re.ReplaceAllString(l, repl)
			}
			out[i] = l
		}
		return out
	}
}

func then(fs ...func([]string) []string) func([]string) []string {
	return func(lines []string) []string {
		for _, f := range fs {
			lines = f(lines)
		}
		return lines
	}
}

// firstSampleLine is the line number of the first cpu-clock sample.
func firstSampleLine(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if isSample.MatchString(l) {
			return i + 1
		}
	}
	t.Fatalf("%s: no sample", path)
	return 0
}

// checkRejected runs wallfold on path (as a file and on stdin) with each
// flag set and wants exit 1, one line on stderr with every one of want in
// it (and "FILE:LINE: ", FILE the path or <stdin>), an empty stdout and no
// -o file.
func checkRejected(t *testing.T, path string, line int, want []string) {
	t.Helper()
	for _, flags := range [][]string{nil, {"--strict"}, {"-f", "pprof"}, {"-f", "summary"}, {"--summary"}, {"--weight=cpu"}, {"--pid", "--off-cpu"}} {
		for _, stdin := range []bool{false, true} {
			name := fmt.Sprintf("%s %v stdin=%v", filepath.Base(path), flags, stdin)
			out, stderr, code := wallfoldOn(t, path, stdin, flags...)
			file := path
			if stdin {
				file = "<stdin>"
			}
			if at := fmt.Sprintf("wallfold: %s:%d: ", file, line); !strings.HasPrefix(stderr, at) {
				t.Errorf("%s: stderr %q does not start with %q", name, stderr, at)
			}
			if code != 1 {
				t.Errorf("%s: exit %d, want 1; stderr %q", name, code, stderr)
			}
			if len(out) != 0 {
				t.Errorf("%s: %d bytes on stdout: %.200q", name, len(out), out)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "wallfold: ") {
				t.Errorf("%s: want one message on stderr, got %q", name, stderr)
			}
			for _, w := range want {
				if !strings.Contains(stderr, w) {
					t.Errorf("%s: stderr %q lacks %q", name, stderr, w)
				}
			}
			if flags == nil && !stdin {
				// And with -o: no file.
				o := filepath.Join(t.TempDir(), "out.folded")
				if _, _, code := wallfold(t, "-o", o, path); code != 1 {
					t.Errorf("%s -o: exit %d", name, code)
				}
				if _, err := os.Stat(o); !os.IsNotExist(err) {
					t.Errorf("%s -o: the output file exists (%v)", name, err)
				}
			}
		}
	}
}

// TestMissingFields: the samples of the profiled event lack a field that
// perf script -F left out. Rule: a field is missing when no sample of the
// profiled event prints it (perf prints the same fields on each); then,
// for the time, the tid, and the period of a clock event, exit 1 naming
// -F +FIELD at the line of the first sample.
func TestMissingFields(t *testing.T) {
	dropPeriod := replaceHeaders(withPeriod, "$1 $2", nil)
	dropTime := replaceHeaders(withTime, "$1", nil)
	dropTID := replaceHeaders(withTID, "$1$2", nil)
	// A column wallfold does not know between the tid (or cpu) and the
	// time (as -F +misc was before it was read).
	strayCol := replaceHeaders(regexp.MustCompile(`^(\S.*?\s+-?\d+(?:\s+\[\d+\])?)(\s+\d+\.\d{6}:)`), "$1 ~1$2", nil)
	for _, tt := range []struct {
		name, trace string
		edit        func([]string) []string
		want        []string
	}{
		{"no period", "phases.txt", dropPeriod, []string{"no period", "-F +period ", "cpu-clock", "perf's default fields"}},
		{"no time", "phases.txt", dropTime, []string{"no time", "-F +time ", "perf's default fields"}},
		{"no tid", "phases.txt", dropTID, []string{"no tid", "-F +tid ", "perf's default fields"}},
		{"no period, no time", "phases.txt", then(dropPeriod, dropTime), []string{"no period", "no time", "-F +period,+time "}},
		{"no tid, system-wide (cpu column)", "syswide.txt", dropTID, []string{"no tid", "-F +tid "}},
		{"a column it does not read", "phases.txt", strayCol, []string{"no tid", `a column wallfold does not read: "~1" before the time`, "leave that field out of -F"}},
		{"a column it does not read, system-wide", "syswide.txt", strayCol, []string{"no tid", `"~1" before the time`}},
		{"no time, pid/tid column", "phases.pid.txt", dropTime, []string{"no time", "-F +time "}},
		{"no period, no task events", "phases.notask.txt", dropPeriod, []string{"no period", "-F +period "}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := rewrite(t, tt.trace, tt.edit)
			line := firstSampleLine(t, path)
			if tt.name == "no time" {
				// The edit must have taken every time away.
				if b, _ := os.ReadFile(path); regexp.MustCompile(`(?m)^\S.*\d+\.\d{6}:`).Match(b) {
					t.Fatal("a header kept its time")
				}
			}
			checkRejected(t, path, line, tt.want)
		})
	}
}

// TestFieldsOddSample: one sample without a period or a time among
// others that have them is no reason to reject the trace (the rule is
// "no sample prints it").
func TestFieldsOddSample(t *testing.T) {
	first := func(l string) bool { return l == firstSample }
	for _, edit := range []func([]string) []string{
		replaceHeaders(withPeriod, "$1 $2", first),
		replaceHeaders(withTime, "$1", first),
	} {
		path := rewrite(t, "phases.txt", edit)
		out, stderr, code := wallfold(t, "-q", path)
		if code != 0 || out == "" {
			t.Errorf("exit %d, %d bytes out; stderr %q", code, len(out), stderr)
		}
	}
}

// firstSample is the header of phases.txt's first sample.
const firstSample = "phases  5756   273.125201:    1001001 cpu-clock: "

// TestNoPeriodOtherEvent: an event that is no clock without periods (old
// perf's default output, e.g. FlameGraph's example-perf-stacks, which
// stack collapsers weigh 1 each) is profiled with sample counts and a
// warning; --strict makes it an error.
func TestNoPeriodOtherEvent(t *testing.T) {
	cycles := regexp.MustCompile(`^(\S.*\d+\.\d{6}:)\s+\d+\s+cpu-clock:(.*)$`)
	path := rewrite(t, "phases.txt", replaceHeaders(cycles, "$1 cycles:$2", nil))
	line := firstSampleLine(t, trace("phases.txt"))
	out, stderr, code := wallfold(t, "--weight=cpu", path)
	if code != 0 || !strings.Contains(stderr, fmt.Sprintf("%s:%d: the samples of cycles print no period", path, line)) || !strings.Contains(stderr, "-F +period") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if f := parseFolded(t, out); f.total != 2979 {
		t.Errorf("total weight %.0f, want the 2979 samples", f.total)
	}
	out, stderr, code = wallfold(t, "--strict", path)
	if code != 1 || out != "" || !strings.Contains(stderr, "no period") || !strings.Contains(stderr, "-F +period") {
		t.Errorf("--strict: exit %d, %d bytes out, stderr %q", code, len(out), stderr)
	}
}
