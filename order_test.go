package main

// Records out of time order: perf record's own order (perf script
// --show-round-events), traces concatenated or interleaved. The model puts
// records in time order before it counts them, and starts a new segment
// where it cannot (state/order.go). The traces are real (testdata/order,
// testdata/traces); the answers are the same records in time order, the
// workloads' designs, and what the records say of make's life.

import (
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/wallfold/wallfold/internal/testtrace"
)

func orderTrace(name string) string { return filepath.Join("testdata", "order", name) }

// byFrame sums a folded profile by the frame at depth (0: the root).
func byFrame(f folded, depth int) map[string]float64 {
	m := map[string]float64{}
	for st, n := range f.lines {
		if fr := strings.Split(st, ";"); depth < len(fr) {
			m[fr[depth]] += float64(n)
		}
	}
	return m
}

// sameShares checks that b's weight by key is a's within tol (a
// fraction) for every key over 1 % of a's total.
func sameShares(t *testing.T, what string, a, b map[string]float64, total, tol float64) {
	t.Helper()
	for k, v := range a {
		if v > 0.01*total && math.Abs(b[k]-v) > tol*v {
			t.Errorf("%s %s: %.6f s in time order, %.6f s in perf record's order (over %.1f%%)", what, k, v/1e9, b[k]/1e9, 100*tol)
		}
	}
}

var wallLine = regexp.MustCompile(`wall \(on CPU\): ([0-9.]+) s`)

// summaryWall returns the first group's wall from a summary.
func summaryWall(t *testing.T, out string) float64 {
	t.Helper()
	m := wallLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no wall in the summary:\n%s", out)
	}
	return num(m[1])
}

// makeLife returns, from the records of a trace, the time from make's
// COMM exec to its EXIT, in s.
func makeLife(t *testing.T, path string) float64 {
	t.Helper()
	text := string(testtrace.Read(t, path))
	exec := regexp.MustCompile(` ([0-9]+)\.([0-9]+): PERF_RECORD_COMM exec: make:([0-9]+)/`).FindStringSubmatch(text)
	if exec == nil {
		t.Fatal("no make exec")
	}
	exit := regexp.MustCompile(` ([0-9]+)\.([0-9]+): PERF_RECORD_EXIT\(` + exec[3] + `:` + exec[3] + `\)`).FindStringSubmatch(text)
	if exit == nil {
		t.Fatal("no make exit")
	}
	return float64(parseNs(exit[1], exit[2])-parseNs(exec[1], exec[2])) / 1e9
}

// Was a bug (fixed): perf script --show-round-events prints records in
// the order perf record wrote them (a CPU's records up to 1.78 s after
// later records of the other, in this system-wide make -j2), and they
// went to the model in that order: --tree=make gave wall 6.047 s (the CPU
// time: parallelism 1.00 everywhere) for a span of 3.165 s, and the round
// records were unparseable lines. Now the model orders the records by
// perf's rule on the round records: the same answers as the same
// recording printed in time order (perf script's default), per top-level
// function and per thread (perf resolved 49 of 6263 stacks differently in
// its two orders, which is all that is left).
func TestRoundOrderEqualsTimeOrder(t *testing.T) {
	sorted, rounds := orderTrace("make.txt.gz"), orderTrace("make.round.txt.gz")
	for _, scope := range [][]string{{"--tree=make"}, {"--scope=process"}} {
		a, b := foldedOf(t, append(scope, sorted)...), foldedOf(t, append(scope, "--strict", rounds)...)
		if math.Abs(a.total-b.total) > 0.001*a.total {
			t.Errorf("%v: wall %.6f s in time order, %.6f s in perf record's order", scope, a.total/1e9, b.total/1e9)
		}
		sameShares(t, "top-level function", byFrame(a, 1), byFrame(b, 1), a.total, 0.005)
		ta := foldedOf(t, append(scope, "--tid", sorted)...)
		tb := foldedOf(t, append(scope, "--tid", rounds)...)
		sameShares(t, "thread", byFrame(ta, 0), byFrame(tb, 0), ta.total, 0.005)
	}
	life := makeLife(t, sorted)
	for _, path := range []string{sorted, rounds} {
		out, stderr, code := wallfold(t, "-f", "summary", "--tree=make", path)
		if code != 0 || strings.Contains(out+stderr, "unparseable") || strings.Contains(out+stderr, "time order") {
			t.Errorf("%s: exit %d, warnings %q", path, code, out+stderr)
		}
		span, on, _, _ := summarySplit(t, out)
		wall := summaryWall(t, out)
		t.Logf("%s: span %.3f s (make's exec to exit %.3f s), on CPU %.3f s, wall %.3f s", path, span, life, on, wall)
		if math.Abs(span-life) > 0.005 || math.Abs(wall-on) > 0.01*span {
			t.Errorf("%s: span %.3f s, want make's life %.3f s; wall %.3f s, want on CPU %.3f s ± 1%% of the span", path, span, life, wall, on)
		}
	}
}

// records splits perf script text into its records (a header line and
// the stack lines after it).
func records(text string) []string {
	var recs []string
	for _, l := range strings.SplitAfter(text, "\n") {
		if len(recs) > 0 && (l == "" || l == "\n" || l[0] == '\t') {
			recs[len(recs)-1] += l
			continue
		}
		recs = append(recs, l)
	}
	return recs
}

// interleave writes the records of a and b one by one in turn.
func interleave(t *testing.T, a, b string) string {
	ra, rb := records(string(testtrace.Read(t, a))), records(string(testtrace.Read(t, b)))
	var s strings.Builder
	for i := 0; i < max(len(ra), len(rb)); i++ {
		if i < len(ra) {
			s.WriteString(ra[i])
		}
		if i < len(rb) {
			s.WriteString(rb[i])
		}
	}
	return writeTrace(t, "interleaved.txt", []byte(s.String()))
}

// concat writes path's text n times over.
func concat(t *testing.T, path string, n int) string {
	text := testtrace.Read(t, path)
	return writeTrace(t, "concatenated.txt", []byte(strings.Repeat(string(text), n)))
}

// checkSegmented checks a summary and folded profiles of a trace that
// steps back: the warning, the span (want, s; -1: not known), wall ≤ span
// and the wall against wantWall (s), frame's share against its design
// (points), and with --off-cpu total = span. Wall is the samples'
// estimate of the time on CPU: in the build's trace, in time order, it
// is 0.5 % over the switch records' count (3.177 s for 3.160 s), so the
// span bounds it within 1 %.
func checkSegmented(t *testing.T, path string, args []string, want, wantWall float64, frame string, share float64) {
	t.Helper()
	out, stderr, code := wallfold(t, append(append([]string{"-f", "summary"}, args...), path)...)
	span, on, runnable, blocked := summarySplit(t, out)
	wall := summaryWall(t, out)
	t.Logf("span %.3f s = on CPU %.3f + runnable %.3f + blocked %.3f; wall %.3f s", span, on, runnable, blocked, wall)
	if code != 0 || !strings.Contains(out+stderr, "new segment") {
		t.Errorf("exit %d; no warning of the new segment in %q", code, out+stderr)
	}
	if want >= 0 && math.Abs(span-want) > 0.003 {
		t.Errorf("span %.3f s, want %.3f s", span, want)
	}
	if wall > span*1.01 || math.Abs(wall-wantWall) > 0.015*wantWall {
		t.Errorf("wall %.3f s: want at most the span %.3f s, and %.3f s ± 1.5%%", wall, span, wantWall)
	}
	if s := foldedOf(t, append(args, path)...).share("", frame); math.Abs(s-share) > 1 {
		t.Errorf("%s %.2f%% of the wall, want %.1f%% ± 1", frame, s, share)
	}
	if off := foldedOf(t, append(args, "--off-cpu", path)...).total / 1e9; math.Abs(off-span) > 0.015*span {
		t.Errorf("--off-cpu total %.3f s, want the span %.3f s ± 1.5%%", off, span)
	}
}

// Was a bug (fixed): two traces concatenated (cat a.txt a.txt; phases2:
// serial_phase 0.3 s alone twice around parallel_work on 2 threads for
// 1.0 s, so 1.6 s wall of 1.606 s) gave "span 1.606 s" and "wall (on
// CPU) 3.210 s", and --off-cpu totalled 3.21 s, without a word. Now the
// second copy's step back starts a new segment: the span is the two
// copies' (2 x 1.606 s), the wall 2 x 1.6 s, serial_phase still 37.5 %,
// and a warning says so. The same for a system-wide build (--tree=make)
// in time order and in perf record's order: twice make's life.
func TestConcatenatedTraces(t *testing.T) {
	first, last := perfTimes(t, trace("phases2.txt"))
	one := float64(last-first) / 1e9
	checkSegmented(t, concat(t, trace("phases2.txt"), 2), nil, 2*one, 3.2, "serial_phase", 37.5)
	life := makeLife(t, orderTrace("make.txt.gz"))
	for _, name := range []string{"make.txt.gz", "make.round.txt.gz"} {
		alone := foldedOf(t, "--tree=make", orderTrace(name))
		checkSegmented(t, concat(t, orderTrace(name), 2), []string{"--tree=make"}, 2*life, 2*alone.total/1e9, "[cc1]", alone.share("", "[cc1]"))
	}
}

// Was a bug (fixed): the records of two runs interleaved one by one
// (phases2: 1.6 s wall, serial_phase 0.6 s; phases3: 2.5 s wall,
// serial_phase 2.0 s) gave on CPU 0.363 s and wall 5.573 s (the CPU
// time), serial_phase 46.7 %. Now the records are put in time order where
// they can be, and a new segment begins where one was counted too early:
// the wall is the two runs' 4.1 s, serial_phase 2.6/4.1 = 63.4 %, with a
// warning; the span is the segments' (each reaches from one run to the
// other), with --off-cpu total = span.
func TestInterleavedTraces(t *testing.T) {
	checkSegmented(t, interleave(t, trace("phases2.txt"), trace("phases3.txt")), nil, -1, 4.1, "serial_phase", 100*2.6/4.1)
}

// --strict makes a step back an error, at the line of the record that
// steps back, exit status 1: the second copy's first record, at time 0
// (perf's synthesized records: another trace begins), or without task
// events its first sample, 1.6 s back.
func TestStrictStepBack(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"phases2.txt", "a record at time 0 after records up to 364.326033 s"},
		{"phases2.notask.txt", "time steps back 1.60"},
	} {
		text := string(testtrace.Read(t, trace(c.name)))
		_, stderr, code := wallfold(t, "--strict", concat(t, trace(c.name), 2))
		want := ":" + strconv.Itoa(strings.Count(text, "\n")+1) + ": " + c.want
		if code != 1 || !strings.Contains(stderr, want) {
			t.Errorf("%s twice: exit %d, stderr %q; want 1 and %q", c.name, code, stderr, want)
		}
	}
	if _, stderr, code := wallfold(t, "--strict", orderTrace("make.round.txt.gz")); code != 0 {
		t.Errorf("perf record's order (round records): exit %d, %q; want 0", code, stderr)
	}
}
