package main

// Lost records (PERF_RECORD_LOST) in real traces, the answers the traces'
// known ones: the switch and exit records of a window dropped, a LOST
// record at its start; or a ring buffer overflow, every record of a
// window gone (samples with their stacks), then one LOST record.

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// headerTime matches the time of a header or record line.
var headerTime = regexp.MustCompile(`^\S.*?\s(\d+\.\d+):\s`)

// lineTime returns the timestamp of a header or record line.
func lineTime(l string) (float64, bool) {
	m := headerTime.FindStringSubmatch(l)
	if m == nil {
		return 0, false
	}
	t, err := strconv.ParseFloat(m[1], 64)
	return t, err == nil
}

// lossWindow drops every record (samples with their stack lines) with a
// time in [from, to) and writes a LOST record at to.
func lossWindow(from, to float64, comm string) func([]string) []string {
	return func(lines []string) []string {
		var out []string
		inserted, dropping := false, false
		for _, l := range lines {
			if dropping && (strings.HasPrefix(l, "\t") || strings.TrimSpace(l) == "") {
				continue
			}
			dropping = false
			tm, ok := lineTime(l)
			if ok && tm >= to && !inserted {
				out = append(out, comm+" "+strconv.FormatFloat(to, 'f', 6, 64)+": PERF_RECORD_LOST lost 120", "")
				inserted = true
			}
			if ok && tm >= from && tm < to {
				dropping = true
				continue
			}
			out = append(out, l)
		}
		return out
	}
}

// phases.txt: serial_phase alone (thread 5756) 273.125-273.626 s.
// A 30 ms loss in the serial phase: the thread was sampled just before
// and after it, so it ran through it; its 30 ms come back under [lost],
// and a --time window that holds them keeps them.
func TestLossWindowBridged(t *testing.T) {
	path := rewrite(t, "phases.txt", lossWindow(273.400, 273.430, "phases  5756"))
	plain, stderr, _ := wallfold(t, path)
	if !strings.Contains(stderr, "PERF_RECORD_LOST") {
		t.Fatalf("no LOST warning: %q", stderr)
	}
	f := parseFolded(t, plain)
	var lost float64
	for st, n := range f.lines {
		if strings.HasSuffix(st, ";[lost]") {
			lost += float64(n) / 1e9
			if !strings.Contains(st, "serial_phase") {
				t.Errorf("[lost] under %q, want serial_phase's stack", st)
			}
		}
	}
	full := parseFolded(t, mustRun(t, "-q", path))
	whole := parseFolded(t, mustRun(t, "-q", "--time=0%,100%", path))
	t.Logf("[lost] %.4f s, total %.4f s, with --time=0%%,100%% %.4f s", lost, full.total/1e9, whole.total/1e9)
	if lost < 0.025 || lost > 0.031 {
		t.Errorf("[lost] %.4f s, want the 30 ms loss less a period", lost)
	}
	if whole.total != full.total {
		t.Errorf("--time=0%%,100%% total %.0f ns, without it %.0f ns", whole.total, full.total)
	}
	// With --off-cpu the loss is not also blocked time: the total stays
	// the span.
	off := parseFolded(t, mustRun(t, "-q", "--off-cpu", path))
	b, _ := offLeaves(off)
	if b > 0.002 {
		t.Errorf("--off-cpu: %.4f s [blocked] in a trace that never blocks but for the loss", b)
	}
}

// insertLost drops the switch and exit records in [from, to) and puts a
// PERF_RECORD_LOST before the first record at or after from.
func insertLost(from, to float64, comm string) func([]string) []string {
	return func(lines []string) []string {
		var out []string
		inserted := false
		for _, l := range lines {
			tm, ok := lineTime(l)
			if ok && tm >= from && !inserted {
				out = append(out, comm+" "+strconv.FormatFloat(from, 'f', 6, 64)+": PERF_RECORD_LOST lost 4096")
				inserted = true
			}
			if ok && tm >= from && tm < to && (strings.Contains(l, "PERF_RECORD_SWITCH") || strings.Contains(l, "PERF_RECORD_EXIT")) {
				continue
			}
			out = append(out, l)
		}
		return out
	}
}

// Lost records: after a loss the state of each thread is unknown until its
// next record, and silence means it stopped. The split stays within 3
// points of the truth although the switch records of a whole second (the
// parallel phase and both thread exits) are gone.
func TestLostRecordsRecover(t *testing.T) {
	for _, tt := range []struct {
		trace, frame string
		from, to     float64
	}{
		{"phases.txt", "serial_phase", 273.60, 274.70},
		{"phases.notask.txt", "serial_phase", 273.60, 274.70},
		{"procs.txt", "spin_a", 281.0, 282.5},
		{"procs.txt", "spin_a", 280.5, 281.5},
	} {
		p := rewrite(t, tt.trace, insertLost(tt.from, tt.to, "phases  5756   "))
		stderr := checkShare(t, p, nil, "", tt.frame, 50, 3)
		if !strings.Contains(stderr, "PERF_RECORD_LOST") || !strings.Contains(stderr, "4096 records lost") ||
			!strings.Contains(stderr, strconv.FormatFloat(tt.from, 'f', 6, 64)) {
			t.Errorf("%s: lost warning without count and time: %q", tt.trace, stderr)
		}
		_, stderr, code := wallfold(t, "--strict", p)
		if code != 1 || !strings.Contains(stderr, "PERF_RECORD_LOST") || !regexp.MustCompile(`:\d+: `).MatchString(stderr) {
			t.Errorf("--strict with a loss: exit %d, %q", code, stderr)
		}
	}
}
