package main

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// writeProfile runs wallfold -f pprof on a trace and parses the result
// back with the pprof library.
func writeProfile(t *testing.T, args ...string) *profile.Profile {
	t.Helper()
	out := filepath.Join(t.TempDir(), "p.pb.gz")
	mustRun(t, append([]string{"-q", "-f", "pprof", "-o", out}, args...)...)
	return readProfile(t, out)
}

// readProfile parses the pprof profile at path and checks it is valid.
func readProfile(t *testing.T, path string) *profile.Profile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if err := p.CheckValid(); err != nil {
		t.Fatalf("%s: CheckValid: %v", path, err)
	}
	return p
}

// sampleIndex is the index of sample type typ in p; none ends the test.
func sampleIndex(t *testing.T, p *profile.Profile, typ string) int {
	t.Helper()
	for i, st := range p.SampleType {
		if st.Type == typ {
			return i
		}
	}
	t.Fatalf("no sample type %q in %v", typ, p.SampleType)
	return -1
}

func hasFunc(s *profile.Sample, name string) bool {
	for _, l := range s.Location {
		for _, ln := range l.Line {
			if ln.Function.Name == name {
				return true
			}
		}
	}
	return false
}

// profShare returns the % of sample type idx in samples that contain fn.
func profShare(p *profile.Profile, idx int, fn string, keep func(*profile.Sample) bool) float64 {
	var in, all float64
	for _, s := range p.Sample {
		if keep != nil && !keep(s) {
			continue
		}
		v := float64(s.Value[idx])
		all += v
		if hasFunc(s, fn) {
			in += v
		}
	}
	return 100 * in / all
}

func TestPprofMatchesFolded(t *testing.T) {
	for _, name := range []string{"phases.txt", "phases.notask.txt", "procs.txt", "syswide.txt", "nocallchain.txt"} {
		t.Run(name, func(t *testing.T) {
			p := writeProfile(t, trace(name))
			if p.DefaultSampleType != "wall" {
				t.Errorf("DefaultSampleType = %q", p.DefaultSampleType)
			}
			want := []string{"samples/count", "cpu/nanoseconds", "wall/nanoseconds"}
			for i, st := range p.SampleType {
				if got := st.Type + "/" + st.Unit; got != want[i] {
					t.Errorf("sample type %d = %s, want %s", i, got, want[i])
				}
			}
			var cpu, wall float64
			for _, s := range p.Sample {
				cpu += float64(s.Value[1])
				wall += float64(s.Value[2])
			}
			out, _, _ := wallfold(t, "-q", "--weight=cpu", trace(name))
			fcpu := parseFolded(t, out).total
			out, _, _ = wallfold(t, "-q", trace(name))
			fwall := parseFolded(t, out).total
			if cpu != fcpu {
				t.Errorf("pprof cpu total %.0f != folded %.0f", cpu, fcpu)
			}
			// Both round once per merged line: the totals may differ by
			// half a unit per line.
			if tol := float64(len(p.Sample)+len(parseFolded(t, out).lines)) / 2; math.Abs(wall-fwall) > tol {
				t.Errorf("pprof wall total %.0f != folded %.0f (± %.0f)", wall, fwall, tol)
			}
			if p.DurationNanos <= 0 || p.Period <= 0 || p.PeriodType == nil {
				t.Errorf("duration %d, period %d %v", p.DurationNanos, p.Period, p.PeriodType)
			}
			if len(p.Comments) == 0 || !strings.HasPrefix(p.Comments[0], "wallfold ") {
				t.Errorf("comments = %q", p.Comments)
			}
		})
	}
}

func TestPprofKnownSplit(t *testing.T) {
	p := writeProfile(t, trace("phases.txt"))
	wall, cpu := sampleIndex(t, p, "wall"), sampleIndex(t, p, "cpu")
	if got := profShare(p, wall, "serial_phase", nil); math.Abs(got-50) > 2 {
		t.Errorf("wall share of serial_phase = %.1f%%, want 50", got)
	}
	if got := profShare(p, cpu, "serial_phase", nil); math.Abs(got-33.3) > 2 {
		t.Errorf("cpu share of serial_phase = %.1f%%, want 33", got)
	}
	// -tagfocus='parallelism=^1$' keeps the serial phase, drops the parallel.
	serial := func(s *profile.Sample) bool { return s.Label["parallelism"][0] == "1" }
	if got := profShare(p, wall, "serial_phase", serial); got < 95 {
		t.Errorf("at parallelism 1, serial_phase is %.1f%% of wall, want ~100", got)
	}
	notSerial := func(s *profile.Sample) bool { return s.Label["parallelism"][0] != "1" }
	if got := profShare(p, wall, "parallel_work", notSerial); got < 95 {
		t.Errorf("at parallelism 2, parallel_work is %.1f%% of wall, want ~100", got)
	}
	for _, s := range p.Sample {
		// string labels only, and by default no pid or tid (series)
		if s.Label["comm"][0] != "phases" || len(s.NumLabel) != 0 || s.Label["tid"] != nil || s.Label["pid"] != nil {
			t.Fatalf("labels: %v %v", s.Label, s.NumLabel)
		}
	}
}

// Process scope in a system-wide trace: serial_phase within process
// phases, read from the pid label.
func TestPprofSyswideProcess(t *testing.T) {
	p := writeProfile(t, trace("syswide.txt"))
	wall := sampleIndex(t, p, "wall")
	inPhases := func(s *profile.Sample) bool { return s.Label["comm"][0] == "phases" }
	if got := profShare(p, wall, "serial_phase", inPhases); math.Abs(got-50) > 2 {
		t.Errorf("serial_phase = %.1f%% of phases' wall, want 50", got)
	}
	if !strings.Contains(strings.Join(p.Comments, "\n"), "scope: process") {
		t.Errorf("comments: %q", p.Comments)
	}
}

func TestPprofInlinedLines(t *testing.T) {
	p := writeProfile(t, "--weight=cpu", "testdata/corpus/inferno/cpp-stacks-std-function.txt")
	found := false
	for _, l := range p.Location {
		if len(l.Line) > 1 {
			found = true
			last := l.Line[len(l.Line)-1].Function.Name
			if last == "_dl_map_segments" || last == "__mmap64" {
				t.Errorf("inlined function %s is the caller line of %v", last, l.Line)
			}
		}
	}
	if !found {
		t.Error("no Location with inlined Lines")
	}
	if p.SampleType[1].Type != "cycles" || p.SampleType[2].Type != "cycles_wall" {
		t.Errorf("sample types for cycles: %v %v", p.SampleType[1], p.SampleType[2])
	}
}

// A window in percent on a pipe waits for the trace's end; its samples
// keep the pid they had when their parallelism was decided (they lost it
// when the pid was looked up at the end, after exited threads were
// forgotten). Every sample of procs.txt has a known process.
func TestPprofPercentWindowOnPipeKeepsPIDs(t *testing.T) {
	path := trace("procs.txt")
	needFile(t, path)
	out := mustRunIn(t, pipedFrom(t, path), "-q", "-f", "pprof", "--labels=pid,tid", "--time=20%,70%")
	p, err := profile.Parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sample) == 0 {
		t.Fatal("no samples in the window")
	}
	for _, s := range p.Sample {
		if len(s.Label["pid"]) != 1 {
			t.Fatalf("sample of tid %v without a pid label", s.Label["tid"])
		}
	}
}

// An empty input gives a valid, empty profile with the usual sample types.
func TestEmptyPprof(t *testing.T) {
	p := writeProfile(t, writeTrace(t, "empty.txt", nil))
	if len(p.Sample) != 0 || p.SampleType[2].Type != "wall" || p.DefaultSampleType != "wall" {
		t.Errorf("samples %d, types %v, default %q", len(p.Sample), p.SampleType, p.DefaultSampleType)
	}
}

// reuseStacks are call chains (leaf first, as perf prints them) that put
// two names at one address of one DSO: JIT code in perf-PID.map reusing
// an address (oldFunction, newFunction), a rebuilt binary (caller_v1,
// caller_v2 at 0x1250, not the leaf), two inline chains at one address
// (helper_a, helper_b in outer), and two symbols that name one function
// (Foo::bar's overloads: one Location). PID stands for the pid.
var reuseStacks = map[string][]string{
	"old":    {"7f00001000 oldFunction+0x0 (/tmp/perf-PID.map)", "1230 main+0x9 (/usr/bin/app)"},
	"new":    {"7f00001000 newFunction+0x0 (/tmp/perf-PID.map)", "1230 main+0x9 (/usr/bin/app)"},
	"v1":     {"1300 leaf+0x10 (/usr/bin/app)", "1250 caller_v1+0x5 (/usr/bin/app)", "1230 main+0x9 (/usr/bin/app)"},
	"v2":     {"1300 leaf+0x10 (/usr/bin/app)", "1250 caller_v2+0x5 (/usr/bin/app)", "1230 main+0x9 (/usr/bin/app)"},
	"inlA":   {"1400 helper_a (inlined)", "1400 outer+0x20 (/usr/bin/app)", "1230 main+0x9 (/usr/bin/app)"},
	"inlB":   {"1400 helper_b (inlined)", "1400 outer+0x20 (/usr/bin/app)", "1230 main+0x9 (/usr/bin/app)"},
	"barInt": {"1500 Foo::bar(int)+0x4 (/usr/bin/app)", "1230 main+0x9 (/usr/bin/app)"},
	"barLng": {"1500 Foo::bar(long)+0x4 (/usr/bin/app)", "1230 main+0x9 (/usr/bin/app)"},
}

// reuseOrder is the order of the samples of each process: the old name
// first, the new one, then the old one again.
var reuseOrder = []string{"old", "new", "new", "v1", "v2", "v2", "inlA", "inlB", "inlB", "barInt", "barLng", "old", "new"}

// reuseTrace writes reuseOrder's samples, 1 ms apart, of process java
// (pid 123; comm java makes wallfold tidy Java names and key frames by
// text) and then of process app (pid 200: frames cached by number), one
// thread each.
func reuseTrace(t *testing.T) string {
	r := &rv{}
	us := int64(1000)
	for _, proc := range []struct {
		comm string
		pid  int
	}{{"java", 123}, {"app", 200}} {
		for _, name := range reuseOrder {
			r.head(proc.comm, proc.pid, proc.pid, 0, us)
			r.b.WriteString("   1000000 cpu-clock: \n")
			for _, fr := range reuseStacks[name] {
				fmt.Fprintf(&r.b, "\t%16s\n", strings.ReplaceAll(fr, "PID", strconv.Itoa(proc.pid)))
			}
			r.b.WriteString("\n")
			us += 1000
		}
	}
	return r.file(t)
}

// funcTimes is each function's flat (as the leaf) and cum (anywhere in
// the stack, once per stack) weight.
type funcTimes struct{ flat, cum map[string]int64 }

func newFuncTimes() funcTimes { return funcTimes{map[string]int64{}, map[string]int64{}} }

// add counts a stack (leaf first) of weight w.
func (ft funcTimes) add(stack []string, w int64) {
	ft.flat[stack[0]] += w
	seen := map[string]bool{}
	for _, fn := range stack {
		if !seen[fn] {
			seen[fn] = true
			ft.cum[fn] += w
		}
	}
}

// pprofFuncTimes is funcTimes of sample type idx of p, as pprof -top
// counts them.
func pprofFuncTimes(p *profile.Profile, idx int) funcTimes {
	ft := newFuncTimes()
	for _, s := range p.Sample {
		var stack []string
		for _, l := range s.Location {
			for _, ln := range l.Line {
				stack = append(stack, ln.Function.Name)
			}
		}
		ft.add(stack, s.Value[idx])
	}
	return ft
}

// foldedFuncTimes is funcTimes of folded output, its root (the comm) left
// out.
func foldedFuncTimes(f folded) funcTimes {
	ft := newFuncTimes()
	for st, n := range f.lines {
		frames := strings.Split(st, ";")[1:]
		slices.Reverse(frames)
		ft.add(frames, int64(n))
	}
	return ft
}

// One address under two names is two Locations, each with its own
// samples; one name (or inline chain) at one address is one Location.
// pprof's flat and cum times per function equal the folded output's and
// a count of the trace's samples (1 ms each, one thread at a time).
func TestPprofAddressReuse(t *testing.T) {
	path := reuseTrace(t)
	p := writeProfile(t, path)
	got := pprofFuncTimes(p, sampleIndex(t, p, "wall"))
	fromFolded := foldedFuncTimes(foldedOf(t, path))
	want := newFuncTimes()
	for range 2 { // java, app
		for _, name := range reuseOrder {
			var stack []string
			for _, fr := range reuseStacks[name] {
				fn, _, _ := strings.Cut(strings.Fields(fr)[1], "+") // no offset
				fn, _, _ = strings.Cut(fn, "(")                     // no arguments
				stack = append(stack, fn)
			}
			want.add(stack, 1e6)
		}
	}
	for _, c := range []struct {
		what      string
		got, want map[string]int64
	}{
		{"pprof flat vs folded", got.flat, fromFolded.flat}, {"pprof cum vs folded", got.cum, fromFolded.cum},
		{"pprof flat vs count", got.flat, want.flat}, {"pprof cum vs count", got.cum, want.cum},
	} {
		if !maps.Equal(c.got, c.want) {
			t.Errorf("%s:\n got %v\nwant %v", c.what, c.got, c.want)
		}
	}
	// Locations per (DSO, address), and their lines (leaf first).
	locs := map[string][]string{}
	for _, l := range p.Location {
		var lines []string
		for _, ln := range l.Line {
			lines = append(lines, ln.Function.Name)
		}
		k := fmt.Sprintf("%s %#x", l.Mapping.File, l.Address)
		locs[k] = append(locs[k], strings.Join(lines, "<"))
	}
	for k := range locs {
		slices.Sort(locs[k])
	}
	wantLocs := map[string][]string{
		"/tmp/perf-123.map 0x7f00001000": {"newFunction", "oldFunction"},
		"/tmp/perf-200.map 0x7f00001000": {"newFunction", "oldFunction"},
		"/usr/bin/app 0x1230":            {"main"},
		"/usr/bin/app 0x1250":            {"caller_v1", "caller_v2"},
		"/usr/bin/app 0x1300":            {"leaf"},
		"/usr/bin/app 0x1400":            {"helper_a<outer", "helper_b<outer"},
		"/usr/bin/app 0x1500":            {"Foo::bar"},
	}
	if !maps.EqualFunc(locs, wantLocs, slices.Equal) {
		t.Errorf("locations:\n got %v\nwant %v", locs, wantLocs)
	}
}
