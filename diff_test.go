package main

// wallfold diff on two real recordings of testdata/diff: steps.c before
// (fetch, then transform) and after (fetch on a thread beside transform),
// each with the step times the program measured in that very run.

import (
	"bufio"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/wallfold/wallfold/internal/diff"
)

func diffTrace(name string) string { return filepath.Join("testdata", "diff", name) }

// measured reads what steps.c printed: "step load 0.117", "waited fetch
// 0.25", "total 0.54" (seconds) by all but the last word.
func measured(t *testing.T, name string) map[string]float64 {
	t.Helper()
	b, err := os.ReadFile(diffTrace(name))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]float64{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			t.Fatalf("%s: %q: %v", name, line, err)
		}
		m[strings.Join(f[:len(f)-1], " ")] = v
	}
	return m
}

// diffLine is a line of difffolded's form: a stack, then BEFORE and AFTER.
type diffLine struct {
	frames        []string
	before, after float64
}

func parseDiffFolded(t *testing.T, out string) []diffLine {
	t.Helper()
	var lines []diffLine
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		f := strings.Fields(l)
		if len(f) != 3 {
			t.Fatalf("not stack BEFORE AFTER: %q", l)
		}
		b, err1 := strconv.ParseUint(f[1], 10, 64)
		a, err2 := strconv.ParseUint(f[2], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("weights not integers: %q", l)
		}
		lines = append(lines, diffLine{strings.Split(f[0], ";"), float64(b), float64(a)})
	}
	return lines
}

// inclusiveDiff sums the lines whose stack holds frame: its wall (or CPU)
// before and after.
func inclusiveDiff(lines []diffLine, frame string) (before, after float64) {
	for _, l := range lines {
		for _, f := range l.frames {
			if f == frame {
				before += l.before
				after += l.after
				break
			}
		}
	}
	return before, after
}

// foldedTotal sums a folded output's weights, read by itself.
func foldedTotal(t *testing.T, out string) float64 {
	t.Helper()
	var sum float64
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		n, err := strconv.ParseUint(line[strings.LastIndexByte(line, ' ')+1:], 10, 64)
		if err != nil {
			t.Fatalf("folded line %q: %v", line, err)
		}
		sum += float64(n)
	}
	return sum
}

// The change took fetch's wait off the run: fetch's change of wall time
// is the change of the time the program's main thread waited for it, as
// the program measured it in each recording, within 5 %; and its CPU
// time, which is a sleep's, hardly moves.
func TestDiffFetchMatchesMeasuredWait(t *testing.T) {
	before, after := diffTrace("before.txt.gz"), diffTrace("after.txt.gz")
	mb, ma := measured(t, "before.steps"), measured(t, "after.steps")
	wall := parseDiffFolded(t, mustRun(t, "diff", "--off-cpu", "-f", "folded", before, after))
	wb, wa := inclusiveDiff(wall, "fetch")
	got, want := (wa-wb)/1e9, ma["waited fetch"]-mb["waited fetch"]
	t.Logf("fetch: wall %.4f s -> %.4f s, delta %.4f s; measured wait %.4f s -> %.4f s, delta %.4f s",
		wb/1e9, wa/1e9, got, mb["waited fetch"], ma["waited fetch"], want)
	if math.Abs(got-want) > 0.05*math.Abs(want) {
		t.Errorf("fetch's wall delta %.4f s, the program measured %.4f s (5 %%: %.4f s)", got, want, 0.05*math.Abs(want))
	}
	// The whole run: the root's change is that of the program's total.
	rb, ra := inclusiveDiff(wall, "steps")
	if got, want := (ra-rb)/1e9, ma["total"]-mb["total"]; math.Abs(got-want) > 0.05*math.Abs(want) {
		t.Errorf("the run's wall delta %.4f s, the program measured %.4f s", got, want)
	}
	cpu := parseDiffFolded(t, mustRun(t, "diff", "--off-cpu", "-f", "folded", "--weight=cpu", before, after))
	cb, ca := inclusiveDiff(cpu, "fetch")
	if math.Abs(ca-cb) > 0.01e9 {
		t.Errorf("fetch's CPU %.4f s -> %.4f s: a sleep's should hardly move", cb/1e9, ca/1e9)
	}
	// The table shows both deltas in fetch's row.
	row := diffTopRow(t, mustRun(t, "diff", "--off-cpu", "--top=1000", before, after), "fetch")
	if math.Abs(row[2]-got) > 0.0015 || math.Abs(row[5]-(ca-cb)/1e9) > 0.0015 {
		t.Errorf("top's fetch row: wall delta %.3f s, CPU delta %.3f s; folded: %.4f s, %.4f s", row[2], row[5], got, (ca-cb)/1e9)
	}
}

// diffTopRow is the numbers of a function's row of diff's table: wall
// before, after, delta, CPU before, after, delta (seconds). The rows are
// checked to come by |wall delta|, largest first.
func diffTopRow(t *testing.T, out, name string) []float64 {
	t.Helper()
	var found []float64
	last := math.Inf(1)
	for _, line := range strings.Split(out, "\n") {
		if line == "" || line[0] == '#' || strings.Contains(line, "wall before") || strings.HasPrefix(line, "...") {
			continue
		}
		var nums []float64
		for _, f := range strings.Fields(line) {
			if x, err := strconv.ParseFloat(f, 64); err == nil && len(nums) < 6 {
				nums = append(nums, x)
			}
		}
		if len(nums) != 6 {
			t.Fatalf("row %q: %d numbers", line, len(nums))
		}
		if d := math.Abs(nums[2]); d > last+1e-9 {
			t.Errorf("row %q: |wall delta| %.3f after %.3f", line, d, last)
		} else {
			last = d
		}
		if strings.HasSuffix(line, "  "+name) {
			found = nums
		}
	}
	if found == nil {
		t.Fatalf("no row %s in:\n%s", name, out)
	}
	return found
}

// Each column of the folded diff sums to its side's folded output, summed
// line by line here.
func TestDiffFoldedColumnsSumToEachProfile(t *testing.T) {
	before, after := diffTrace("before.txt.gz"), diffTrace("after.txt.gz")
	lines := parseDiffFolded(t, mustRun(t, "diff", "--off-cpu", "-f", "folded", before, after))
	var sb, sa float64
	for _, l := range lines {
		sb += l.before
		sa += l.after
	}
	wb := foldedTotal(t, mustRun(t, "--off-cpu", before))
	wa := foldedTotal(t, mustRun(t, "--off-cpu", after))
	if sb != wb || sa != wa {
		t.Errorf("columns sum to %.0f and %.0f; the folded outputs to %.0f and %.0f", sb, sa, wb, wa)
	}
	// -n: before's column scaled to after's total (each line rounded).
	norm := parseDiffFolded(t, mustRun(t, "diff", "--off-cpu", "-f", "folded", "-n", before, after))
	var nb float64
	for _, l := range norm {
		nb += l.before
	}
	if math.Abs(nb-wa) > float64(len(norm)) {
		t.Errorf("-n: before's column sums to %.0f, after's total is %.0f", nb, wa)
	}
}

// Saved profiles (wallfold -f pprof) compare as their traces do, and
// either kind beside the other.
func TestDiffProfilesAsTraces(t *testing.T) {
	before, after := diffTrace("before.txt.gz"), diffTrace("after.txt.gz")
	dir := t.TempDir()
	pb, pa := filepath.Join(dir, "before.pb.gz"), filepath.Join(dir, "after.pb.gz")
	mustRun(t, "--off-cpu", "-f", "pprof", "-o", pb, before)
	mustRun(t, "--off-cpu", "-f", "pprof", "-o", pa, after)
	fromTraces := parseDiffFolded(t, mustRun(t, "diff", "--off-cpu", "-f", "folded", before, after))
	tb, ta := inclusiveDiff(fromTraces, "fetch")
	for _, args := range [][]string{{pb, pa}, {pb, after}} {
		lines := parseDiffFolded(t, mustRun(t, append([]string{"diff", "--off-cpu", "-f", "folded"}, args...)...))
		b, a := inclusiveDiff(lines, "fetch")
		// A profile's samples are rounded per label set: a nanosecond each.
		if math.Abs(b-tb) > 1000 || math.Abs(a-ta) > 1000 {
			t.Errorf("%v: fetch %.0f -> %.0f ns; from the traces %.0f -> %.0f", args, b, a, tb, ta)
		}
	}
}

// -f pprof: after's samples and before's negated under pprof::base, so
// that each part sums to its side's total; go tool pprof -top reads it
// and shows fetch's change.
func TestDiffPprofAsDiffBase(t *testing.T) {
	before, after := diffTrace("before.txt.gz"), diffTrace("after.txt.gz")
	out := filepath.Join(t.TempDir(), "diff.pb.gz")
	mustRun(t, "diff", "--off-cpu", "-f", "pprof", "-o", out, before, after)
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pr, err := profile.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	var base, rest float64
	for _, s := range pr.Sample {
		if s.Label[diff.BaseLabel] != nil {
			base += float64(s.Value[1])
		} else {
			rest += float64(s.Value[1])
		}
	}
	wb := foldedTotal(t, mustRun(t, "--off-cpu", before))
	wa := foldedTotal(t, mustRun(t, "--off-cpu", after))
	if base != -wb || rest != wa {
		t.Errorf("wall: base samples sum to %.0f, the others to %.0f; want %.0f and %.0f", base, rest, -wb, wa)
	}
	lines := parseDiffFolded(t, mustRun(t, "diff", "--off-cpu", "-f", "folded", before, after))
	fb, fa := inclusiveDiff(lines, "fetch")
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command for go tool pprof")
	}
	top, err := exec.Command(goTool, "tool", "pprof", "-top", "-unit=ms", out).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof -top: %v\n%s", err, top)
	}
	for _, line := range strings.Split(string(top), "\n") {
		f := strings.Fields(line)
		if len(f) == 6 && f[5] == "fetch" {
			cum, err := strconv.ParseFloat(strings.TrimSuffix(f[3], "ms"), 64)
			if err != nil || math.Abs(cum-(fa-fb)/1e6) > 0.01 {
				t.Errorf("go tool pprof: fetch cum %s, want %.2fms", f[3], (fa-fb)/1e6)
			}
			return
		}
	}
	t.Errorf("go tool pprof -top shows no fetch:\n%s", top)
}

// Inputs it cannot compare or must not overwrite: exit 2, a message.
func TestDiffRefusals(t *testing.T) {
	before, after := diffTrace("before.txt.gz"), diffTrace("after.txt.gz")
	dir := t.TempDir()
	goProf := filepath.Join(dir, "cpu.pprof")
	pr := &profile.Profile{SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}}}
	w, err := os.Create(goProf)
	if err != nil {
		t.Fatal(err)
	}
	if err := pr.Write(w); err != nil {
		t.Fatal(err)
	}
	w.Close()
	copyOf := filepath.Join(dir, "before.txt.gz")
	data, _ := os.ReadFile(before)
	if err := os.WriteFile(copyOf, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"diff", "-", "-"}, "both stdin"},
		{[]string{"diff", goProf, after}, "not wallfold's"},
		{[]string{"diff", "-o", copyOf, copyOf, after}, "does not write over"},
		{[]string{"diff", filepath.Join(dir, "none"), after}, "no such file"},
	} {
		_, stderr, code := wallfold(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.msg) || !strings.HasPrefix(stderr, "wallfold diff: ") {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, stderr, c.msg)
		}
	}
	if now, _ := os.ReadFile(copyOf); string(now) != string(data) {
		t.Error("the input was overwritten")
	}
}

func TestDiffHelp(t *testing.T) {
	out := mustRun(t, "diff", "--help")
	for _, want := range []string{"BEFORE", "AFTER", "--normalize", "pprof::base", "--off-cpu"} {
		if !strings.Contains(out, want) {
			t.Errorf("wallfold diff --help has no %q:\n%s", want, out)
		}
	}
	if out := mustRun(t, "--help"); !strings.Contains(out, "  diff ") {
		t.Errorf("wallfold --help lists no diff:\n%s", out)
	}
}

// With two inputs, a warning names the one it is of; a side without
// samples is said.
func TestDiffWarningsNameTheInput(t *testing.T) {
	before, after := diffTrace("before.txt.gz"), diffTrace("after.txt.gz")
	_, stderr, code := wallfold(t, "diff", before, after)
	for _, in := range []string{before, after} {
		if !strings.Contains(stderr, "wallfold diff: "+in+": warning: ") || code != 0 {
			t.Errorf("exit %d, no warning named %s (block stacks without --off-cpu):\n%s", code, in, stderr)
		}
	}
	empty := filepath.Join(t.TempDir(), "empty.txt")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = wallfold(t, "diff", "--off-cpu", empty, after)
	if code != 0 || stderr != "wallfold diff: "+empty+": warning: no samples: its side of every row is 0\n" {
		t.Errorf("empty BEFORE: exit %d, %q", code, stderr)
	}
	if _, stderr, _ := wallfold(t, "diff", "-q", empty, before); stderr != "" {
		t.Errorf("-q: %q", stderr)
	}
}

// --focus keeps the stacks through a frame: their sums are the frame's
// inclusive weights.
func TestDiffFocus(t *testing.T) {
	before, after := diffTrace("before.txt.gz"), diffTrace("after.txt.gz")
	all := parseDiffFolded(t, mustRun(t, "diff", "--off-cpu", "-f", "folded", before, after))
	wb, wa := inclusiveDiff(all, "fetch")
	focused := parseDiffFolded(t, mustRun(t, "diff", "--off-cpu", "-f", "folded", "--focus=^fetch$", before, after))
	var sb, sa float64
	for _, l := range focused {
		sb += l.before
		sa += l.after
		if !strings.Contains(";"+strings.Join(l.frames, ";")+";", ";fetch;") {
			t.Errorf("a stack without fetch: %v", l.frames)
		}
	}
	if sb != wb || sa != wa || len(focused) == 0 {
		t.Errorf("focused on fetch: %.0f -> %.0f; fetch's inclusive %.0f -> %.0f", sb, sa, wb, wa)
	}
	if _, stderr, code := wallfold(t, "diff", "--focus=(", before, after); code != 2 || !strings.Contains(stderr, "--focus=(") {
		t.Errorf("a bad --focus: exit %d, %q", code, stderr)
	}
}

// phases 0.5 1.0 2 against phases 1.0 0.5 2 (testdata/traces, per-thread
// sample counts within 1.5 % of the design): serial_phase runs 1 s more,
// parallel_work 0.5 s less on 2 threads. The wall moves by the design
// (+1.0 s, -0.5 s) within 5 %, the CPU of the whole run hardly (-1.0 s
// of parallel work, +1.0 s of serial), and the parallelism of each side
// is shown: parallel_work about 2 in both, the whole run 1.5 -> 1.2.
func TestDiffDesignedPhases(t *testing.T) {
	lines := parseDiffFolded(t, mustRun(t, "diff", "-f", "folded", trace("phases.txt"), trace("phases3.txt")))
	for _, c := range []struct {
		frame string
		want  float64
	}{{"serial_phase", 1.0}, {"parallel_work", -0.5}} {
		b, a := inclusiveDiff(lines, c.frame)
		if got := (a - b) / 1e9; math.Abs(got-c.want) > 0.05*math.Abs(c.want) {
			t.Errorf("%s: wall delta %.4f s, designed %+.1f s", c.frame, got, c.want)
		}
	}
	out := mustRun(t, "diff", "--top=100", trace("phases.txt"), trace("phases3.txt"))
	pw := diffTopRow(t, out, "parallel_work")
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 4 && f[len(f)-1] == "parallel_work" {
			pb, _ := strconv.ParseFloat(f[len(f)-4], 64)
			pa, _ := strconv.ParseFloat(f[len(f)-2], 64)
			if math.Abs(pb-2) > 0.1 || math.Abs(pa-2) > 0.1 || math.Abs(pb-pw[3]/pw[0]) > 0.02 || math.Abs(pa-pw[4]/pw[1]) > 0.02 {
				t.Errorf("parallel_work: parallelism %s -> %s, its CPU/wall %.2f -> %.2f; designed 2:\n%s", f[len(f)-4], f[len(f)-2], pw[3]/pw[0], pw[4]/pw[1], line)
			}
		}
	}
	root := diffTopRow(t, out, "phases")
	if math.Abs(root[5]) > 0.03 || math.Abs(root[2]-0.5) > 0.025 {
		t.Errorf("the run: wall delta %.3f s (designed +0.5), CPU delta %.3f s (designed 0)", root[2], root[5])
	}
}
