package main

// Time on CPU that switch records show and no sample covers: a per-task
// recording samples each task from its fork on, so a task shorter than a
// period, and each task's last period, have no sample. The summary tells
// it; --off-cpu adds it under [unsampled] so that the totals are the
// span.

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"
)

// shortChild is a per-task trace (no CPU column, as perf record -- CMD
// writes it): sh (tid 5) runs 1-11 ms, sampled at 2..11 ms (1 ms
// periods: every moment covered), forks 6 at 10.9 ms and waits for it
// from 11 ms; the child runs 11-11.6 ms, too short for a sample, and
// exits; sh runs again 11.6-13.6 ms, sampled at 12.6 and 13.6 ms.
func shortChild() string {
	var b strings.Builder
	at := func(us int64) string { return fmt.Sprintf("%d.%06d", 100+us/1e6, us%1e6) }
	rec := func(comm string, tid int, us int64, what string) {
		fmt.Fprintf(&b, "%s %6d %s: %s\n", comm, tid, at(us), what)
	}
	smp := func(comm string, tid int, us int64) {
		fmt.Fprintf(&b, "%s %6d %s:    1000000 cpu-clock: \n\t            1205 loop+0x44 (/work/sh)\n\t            1230 main+0x9 (/work/sh)\n\n", comm, tid, at(us))
	}
	rec("sh", 5, 1000, "PERF_RECORD_SWITCH IN")
	for us := int64(2000); us <= 11000; us += 1000 {
		smp("sh", 5, us)
		if us == 10000 {
			rec("sh", 5, 10900, "PERF_RECORD_FORK(6:6):(5:5)")
		}
	}
	rec("sh", 5, 11000, "PERF_RECORD_SWITCH OUT")
	rec("sh", 6, 11000, "PERF_RECORD_SWITCH IN")
	rec("true", 6, 11100, "PERF_RECORD_COMM exec: true:6/6")
	rec("true", 6, 11600, "PERF_RECORD_EXIT(6:6):(5:5)")
	rec("sh", 5, 11600, "PERF_RECORD_SWITCH IN")
	smp("sh", 5, 12600)
	smp("sh", 5, 13600)
	rec("sh", 5, 13600, "PERF_RECORD_EXIT(5:5):(1:1)")
	return b.String()
}

// The child's 0.6 ms is in no sample: --off-cpu puts it under
// [unsampled] at the child's name (it has no stack), and the totals are
// the span (12.6 ms). Was: 12.0 ms, and no word of it.
func TestUnsampledShortTask(t *testing.T) {
	path := writeTrace(t, "short.txt", []byte(shortChild()))
	f := foldedOf(t, "--off-cpu", path)
	if got := f.lines["true;[unsampled]"]; got != 600000 {
		t.Errorf("true;[unsampled] %d ns, want 600000 (all: %v)", got, f.lines)
	}
	if f.total != 12600000 {
		t.Errorf("--off-cpu total %.0f ns, want the span 12600000", f.total)
	}
	if plain := foldedOf(t, path); plain.total != 12000000 {
		t.Errorf("without --off-cpu: total %.0f ns, want the samples' 12000000", plain.total)
	}
}

// unsampledLine matches the summary's "on CPU by switch records A s, by
// samples B s: no sample covers C s (CPU D s of N threads, M of them
// never sampled)".
var unsampledLine = regexp.MustCompile(`on CPU by switch records ([0-9.]+) s, by samples ([0-9.]+) s: no sample covers ([0-9.]+) s \(CPU ([0-9.]+) s of (\d+) threads, (\d+) of them never sampled\)`)

// configure.txt.gz (TestForkHeavyBuildSplit): 644 of its 1,481
// processes have no sample. The summary says how much time no sample
// covers, why and what to record; --off-cpu adds it, and its totals are
// the span. Was: 4.941 s of a 5.485 s span, and no word.
func TestUnsampledForkHeavyBuild(t *testing.T) {
	path := offTrace("configure.txt.gz")
	ref := referenceSplit(t, path, refAll())
	out, _, _ := wallfold(t, "-f", "summary", path)
	m := unsampledLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the summary does not tell the time no sample covers:\n%s", out)
	}
	for _, why := range []string{"per-task recording", "perf record -a", "--off-cpu adds it under [unsampled]"} {
		if !strings.Contains(out, why) {
			t.Errorf("the summary does not say %q:\n%s", why, out)
		}
	}
	bySwitch, bySamples, uncovered := num(m[1]), num(m[2]), num(m[3])
	t.Logf("on CPU by switch records %.3f s (reference %.3f s), by samples %.3f s, no sample covers %.3f s; CPU: reference %.3f s, samples %.3f s",
		bySwitch, ref.On.Seconds(), bySamples, uncovered, ref.CPU.Seconds(), ref.SamplePeriods.Seconds())
	if d := bySwitch - bySamples; math.Abs(uncovered-d) > 0.015*ref.Span.Seconds() {
		t.Errorf("no sample covers %.3f s, but switch records and samples are %.3f s apart", uncovered, d)
	}
	f := foldedOf(t, "--off-cpu", path)
	var unsampled float64
	for st, n := range f.lines {
		if strings.HasSuffix(st, ";[unsampled]") {
			unsampled += float64(n) / 1e9
		}
	}
	total, span := f.total/1e9, ref.Span.Seconds()
	t.Logf("--off-cpu total %.4f s, span %.4f s, [unsampled] %.4f s", total, span, unsampled)
	if math.Abs(total-span) > 0.015*span {
		t.Errorf("--off-cpu total %.4f s, want the span %.4f s ± 1.5%%", total, span)
	}
	if math.Abs(unsampled-uncovered) > 0.002 {
		t.Errorf("[unsampled] %.4f s, the summary says %.3f s", unsampled, uncovered)
	}
	// System-wide sampling leaves no task out: no [unsampled] there.
	for st := range foldedOf(t, "--off-cpu", "--tree="+fmt.Sprint(refFirstExec(t, offTrace("configure.sys.txt.gz"), "sh")), offTrace("configure.sys.txt.gz")).lines {
		if strings.HasSuffix(st, "[unsampled]") {
			t.Errorf("a system-wide trace with an [unsampled] leaf: %q", st)
			break
		}
	}
}
