package main

// The summary's split of a group's span: on CPU + runnable + blocked,
// against referenceSplit (offcpu_reference_test.go) on real traces, and
// on made-up ones whose split is known.

import (
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/wallfold/wallfold/internal/testtrace"
)

// splitLine matches the summary's "span: X s = on CPU A s (a%) + runnable
// B s (b%) + blocked C s (c%)": submatches 1 to 7 are X, A, a, B, b, C, c.
var splitLine = regexp.MustCompile(`span: ([0-9.]+) s = on CPU ([0-9.]+) s \(([0-9.]+)%\) \+ runnable ([0-9.]+) s \(([0-9.]+)%\) \+ blocked ([0-9.]+) s \(([0-9.]+)%\)`)

// summarySplit returns the first group's split from a summary.
func summarySplit(t *testing.T, out string) (span, on, runnable, blocked float64) {
	t.Helper()
	m := splitLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no span split in the summary:\n%s", out)
	}
	if sum := num(m[3]) + num(m[5]) + num(m[7]); math.Abs(sum-100) > 0.2 {
		t.Errorf("split percentages add up to %.1f%%", sum)
	}
	return num(m[1]), num(m[2]), num(m[4]), num(m[6])
}

// num is a number as the summary printed it.
func num(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }

func TestSummarySplitMatchesReference(t *testing.T) {
	for _, c := range []struct {
		name  string
		args  []string
		group refGroup
	}{
		{"sleep.txt.gz", nil, refAll()},
		{"sleep.notask.txt.gz", nil, refAll()},
		{"busy.txt.gz", nil, refAll()},
		{"busy.notask.txt.gz", nil, refAll()},
		{"make.txt.gz", []string{"--tree=make"}, refTreeOfComm("make")},
		{"make.nopid.txt.gz", []string{"--tree=7031"}, refTree(7031)},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := offTrace(c.name)
			ref := referenceSplit(t, path, c.group)
			out, stderr, code := wallfold(t, append([]string{"-f", "summary", path}, c.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			span, on, runnable, blocked := summarySplit(t, out)
			t.Logf("summary: span %.3f on %.3f runnable %.3f blocked %.3f; reference %.3f %.3f %.3f %.3f",
				span, on, runnable, blocked, ref.Span.Seconds(), ref.On.Seconds(), ref.Runnable.Seconds(), ref.Blocked.Seconds())
			for _, v := range []struct {
				what      string
				got, want float64
			}{
				{"span", span, ref.Span.Seconds()}, {"on CPU", on, ref.On.Seconds()},
				{"runnable", runnable, ref.Runnable.Seconds()}, {"blocked", blocked, ref.Blocked.Seconds()},
			} {
				if math.Abs(v.got-v.want) > 0.01*ref.Span.Seconds()+0.002 {
					t.Errorf("%s %.3f s, reference %.3f s", v.what, v.got, v.want)
				}
			}
			hint := strings.Contains(out, "--off-cpu adds it")
			if want := (ref.Runnable + ref.Blocked).Seconds() > 0.1*ref.Span.Seconds(); hint != want {
				t.Errorf("the --off-cpu line shown: %v, want %v (off CPU %.1f%% of the span)", hint, want,
					100*(ref.Runnable+ref.Blocked).Seconds()/ref.Span.Seconds())
			}
			if strings.Count(out, "span: ") != 1 {
				t.Errorf("the span said %d times in one group's summary", strings.Count(out, "span: "))
			}
			if hint {
				out, _, _ := wallfold(t, append([]string{"-f", "summary", "--off-cpu", path}, c.args...)...)
				if !strings.Contains(out, "no thread ran): in the profile under [blocked] and [runnable] leaves") {
					t.Errorf("with --off-cpu the summary does not say where the off-CPU time went:\n%s", out)
				}
			}
			if !strings.Contains(out, "average parallelism while on CPU: ") {
				t.Errorf("the average parallelism does not say it is over the time on CPU")
			}
		})
	}
}

// The summary prints "span: X = on CPU A + runnable B + blocked C"; the
// parts must add up to the span (100 %). Here the span is 1..10.7 ms =
// 9.7 ms. Was a bug (fixed): the parts were 9.2 ms (94.8 %): the 0.5 ms
// from EXIT to the last switch-out was in the span (the group's last
// record) but in no part ("orphan" time, dropped by closeSplit). Real:
// ld (pid 7056) in `wallfold -f summary --scope=process --top=99
// testdata/offcpu/make.txt.gz` showed 93.2% + 0.2% + 2.3%; as (pid 7046)
// 94.3% + 0.6% + 0.0%.
func TestSplitExitTailAddsUpToSpan(t *testing.T) {
	out, _, code := wallfold(t, "-f", "summary", "--scope=process", exitTail(false).file(t))
	m := splitLine.FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("exit %d, no split line:\n%s", code, out)
	}
	if sum := num(m[3]) + num(m[5]) + num(m[7]); math.Abs(sum-100) > 0.2 {
		t.Errorf("split %q: the parts add up to %.1f%% of the span, want 100%%", m[0], sum)
	}
	// The real trace: every group of make.txt.gz in process scope.
	out, _, _ = wallfold(t, "-f", "summary", "--scope=process", "--top=1000", offTrace("make.txt.gz"))
	for _, m := range splitLine.FindAllStringSubmatch(out, -1) {
		if sum := num(m[3]) + num(m[5]) + num(m[7]); math.Abs(sum-100) > 1 {
			t.Errorf("make.txt.gz: %q: parts add up to %.1f%%", m[0], sum)
		}
	}
}

// With --time the summary's split is the window's: sleep.txt.gz's 0.5 s
// nanosleep starts at about 43 % of the span, so --time=0%,30% (0.421 s,
// all on CPU) has ~0 blocked and no "off CPU ... %" line. Where the
// window is known only at the end (percent on a pipe or a .gz), the split
// is the whole trace's and says so.
func TestSummarySplitTimeWindow(t *testing.T) {
	plain := writeTrace(t, "sleep.txt", testtrace.Read(t, offTrace("sleep.txt.gz")))
	for _, win := range []string{"0%,30%", "3882.586354,3883.007354"} {
		out, _, _ := wallfold(t, "-f", "summary", "--time="+win, plain)
		m := splitLine.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("--time=%s: no split line:\n%s", win, out)
		}
		if span, blocked := num(m[1]), num(m[6]); math.Abs(span-0.421) > 0.01 || blocked > 0.01 || strings.Contains(out, "off CPU") {
			t.Errorf("--time=%s: %q, want the window's: span ~0.421 s, blocked ~0", win, m[0])
		}
	}
	out, _, _ := wallfold(t, "-f", "summary", "--time=0%,30%", offTrace("sleep.txt.gz"))
	if !strings.Contains(out, "(the whole trace's span: on a pipe a --time in percent is known only at the end)") {
		t.Errorf("a percent window on a .gz: the split does not say it is the whole trace's:\n%s", out)
	}
}

// A non-time event (cycles): --off-cpu cannot add the shares (the
// warning says so). Was a bug (fixed): the summary still told the user
// the off-CPU time was "in the profile under [blocked] and [runnable]
// leaves". Want no such claim when the shares were dropped.
func TestSummaryOffCPUDroppedForCycles(t *testing.T) {
	b, err := os.ReadFile(trace("sleepy.txt"))
	if err != nil {
		t.Fatal(err)
	}
	p := writeTrace(t, "cycles.txt", []byte(strings.ReplaceAll(string(b), "cpu-clock", "cycles")))
	out, _, _ := wallfold(t, "-f", "summary", "--off-cpu", p)
	if strings.Contains(out, "in the profile under [blocked]") && strings.Contains(out, "cannot be added") {
		t.Errorf("summary says the off-CPU time is in the profile and, in its warnings, that it cannot be added:\n%s", out)
	}
}
