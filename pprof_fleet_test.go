package main

// Profiles as Pyroscope and Parca ingest them: Unix times, string labels,
// sequential ids, safe sample type names, no empty stacks, one profile
// per --split window.

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

// checkFleetShape asserts what the engines check of every profile.
func checkFleetShape(t *testing.T, p *profile.Profile) {
	t.Helper()
	for i, m := range p.Mapping {
		if m.ID != uint64(i+1) {
			t.Errorf("mapping %d has id %d (Parca: mapping id is not sequential)", i, m.ID)
		}
	}
	for i, l := range p.Location {
		if l.ID != uint64(i+1) {
			t.Errorf("location %d has id %d", i, l.ID)
		}
	}
	for i, f := range p.Function {
		if f.ID != uint64(i+1) {
			t.Errorf("function %d has id %d", i, f.ID)
		}
	}
	safe := regexp.MustCompile(`^[A-Za-z0-9_]+$`)
	for _, st := range append([]*profile.ValueType{p.PeriodType}, p.SampleType...) {
		if !safe.MatchString(st.Type) || !safe.MatchString(st.Unit) {
			t.Errorf("sample type %s/%s outside [A-Za-z0-9_]", st.Type, st.Unit)
		}
	}
	used := map[uint64]bool{}
	for _, s := range p.Sample {
		if len(s.Location) == 0 {
			t.Errorf("a sample without a stack (dropped by Pyroscope): %v", s.Value)
		}
		if len(s.NumLabel) != 0 {
			t.Errorf("numeric labels (dropped by Pyroscope and Parca): %v", s.NumLabel)
		}
		for _, l := range s.Location {
			used[l.ID] = true
		}
	}
	if len(used) != len(p.Location) {
		t.Errorf("%d locations, %d used", len(p.Location), len(used))
	}
}

func TestPprofFleetShape(t *testing.T) {
	for _, name := range []string{"phases.txt", "syswide.txt", "build.txt.gz", "nocallchain.txt"} {
		t.Run(name, func(t *testing.T) {
			checkFleetShape(t, writeProfile(t, trace(name)))
		})
	}
	t.Run("off-cpu", func(t *testing.T) {
		checkFleetShape(t, writeProfile(t, "--off-cpu", offTrace("sleep.sched.txt.gz")))
	})
}

// Event names with '-' or ':' become sample types in the safe alphabet.
func TestPprofSafeSampleTypes(t *testing.T) {
	src, err := os.ReadFile(trace("phases.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ event, want string }{
		{"cpu-cycles", "cpu_cycles"},
		{"probe_x:y", "probe_x_y"},
		{"cpu/event=0x3c/u", "cpu_event_0x3c_u"},
	} {
		path := writeTrace(t, "t.txt", bytes.ReplaceAll(src, []byte(" cpu-clock:"), []byte(" "+c.event+":")))
		p := writeProfile(t, path)
		checkFleetShape(t, p)
		if p.SampleType[1].Type != c.want || p.SampleType[2].Type != c.want+"_wall" || p.PeriodType.Type != c.want {
			t.Errorf("%s: sample types %s, %s, period type %s; want %s", c.event, p.SampleType[1].Type, p.SampleType[2].Type, p.PeriodType.Type, c.want)
		}
	}
}

// A sample with no call chain gets one frame: [no stack].
func TestPprofNoStackFrame(t *testing.T) {
	in := "prog  100/100  10.000000:    1000000 cpu-clock: \n\nprog  100/100  10.001000:    1000000 cpu-clock: \n\tffff1 main+0x1 (/bin/prog)\n\n"
	path := writeTrace(t, "t.txt", []byte(in))
	p := writeProfile(t, path)
	checkFleetShape(t, p)
	var names []string
	for _, s := range p.Sample {
		names = append(names, s.Location[0].Line[0].Function.Name)
	}
	if strings.Join(names, ",") != "[no stack],main" && strings.Join(names, ",") != "main,[no stack]" {
		t.Errorf("leaf functions %v, want [no stack] and main", names)
	}
}

func TestPprofLabels(t *testing.T) {
	p := writeProfile(t, trace("procs.pid.txt"))
	for _, s := range p.Sample {
		if len(s.Label["comm"]) != 1 || len(s.Label["parallelism"]) != 1 || s.Label["pid"] != nil || s.Label["tid"] != nil {
			t.Fatalf("default labels: %v", s.Label)
		}
	}
	p = writeProfile(t, "--labels=pid,tid,parallelism", trace("procs.pid.txt"))
	pids := map[string]bool{}
	for _, s := range p.Sample {
		if len(s.Label["pid"]) != 1 || len(s.Label["tid"]) != 1 || s.Label["comm"] != nil {
			t.Fatalf("--labels=pid,tid,parallelism: %v", s.Label)
		}
		pids[s.Label["pid"][0]] = true
	}
	if len(pids) < 2 {
		t.Errorf("pids %v: want the trace's processes", pids)
	}
	p = writeProfile(t, "--labels=none", trace("procs.pid.txt"))
	for _, s := range p.Sample {
		if len(s.Label) != 0 {
			t.Fatalf("--labels=none: %v", s.Label)
		}
	}
	if _, stderr, code := wallfold(t, "-f", "pprof", "--labels=pid,cpu", trace("procs.pid.txt")); code != 2 || !strings.Contains(stderr, `label "cpu"`) {
		t.Errorf("--labels=pid,cpu: exit %d, %q", code, stderr)
	}
}

func TestPprofUnixTime(t *testing.T) {
	path := trace("phases.txt")
	first, last := perfTimes(t, path)
	span := last - first

	// --start: the first record's Unix time.
	start := time.Date(2026, 12, 3, 6, 0, 0, 500e6, time.UTC)
	for _, arg := range []string{"--start=2026-12-03T06:00:00.5Z", "--start=1796277600.5"} {
		p := writeProfile(t, arg, path)
		if p.TimeNanos != start.UnixNano() || p.DurationNanos != span {
			t.Errorf("%s: TimeNanos %d (%v), duration %d; want %d, %d", arg, p.TimeNanos, time.Unix(0, p.TimeNanos).UTC(), p.DurationNanos, start.UnixNano(), span)
		}
	}

	// perf's header: captured on (local time, whole seconds) is the last
	// sample's time.
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	captured := time.Date(2026, 7, 1, 12, 30, 15, 0, time.Local)
	hdr := "# ========\n# captured on    : " + captured.Format(time.ANSIC) + "\n# hostname : vm\n# ========\n#\n"
	hpath := writeTrace(t, "h.txt", append([]byte(hdr), src...))
	p := writeProfile(t, hpath)
	if want := captured.UnixNano() - span; p.TimeNanos != want {
		t.Errorf("from the header: TimeNanos %v, want %v", time.Unix(0, p.TimeNanos), time.Unix(0, want))
	}

	// Neither: the run's time minus the span.
	before := time.Now()
	p = writeProfile(t, path)
	after := time.Now()
	end := time.Unix(0, p.TimeNanos+p.DurationNanos)
	if end.Before(before.Add(-time.Second)) || end.After(after.Add(time.Second)) {
		t.Errorf("without header or --start: the profile ends at %v, not now (%v)", end, after)
	}

	// A --time window: its own time and duration.
	p = writeProfile(t, "--start=1796277600", "--time=25%,75%", path)
	lo, hi := first+span/4, first+span*3/4
	if d := p.TimeNanos - (1796277600e9 + lo - first); math.Abs(float64(d)) > 1e3 || math.Abs(float64(p.DurationNanos-(hi-lo))) > 1e3 {
		t.Errorf("--time=25%%,75%%: TimeNanos off by %d ns, duration %d, want %d", d, p.DurationNanos, hi-lo)
	}
}

// --split: one profile per window, each with its own time; together they
// are the whole profile.
func TestPprofSplit(t *testing.T) {
	path := trace("phases.txt")
	dir := t.TempDir()
	out := filepath.Join(dir, "wall.pb.gz")
	if _, stderr, code := wallfold(t, "-q", "-f", "pprof", "--start=1796277600", "--split=500ms", "-o", out, path); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	whole := writeProfile(t, "--start=1796277600", path)
	files, _ := filepath.Glob(filepath.Join(dir, "wall-*.pb.gz"))
	if len(files) != 5 { // 2.004 s in windows of 0.5 s
		t.Fatalf("files %v, want wall-000.pb.gz .. wall-004.pb.gz", files)
	}
	var sum [3]int64
	var prevEnd int64
	for i, f := range files {
		if filepath.Base(f) != "wall-00"+string(rune('0'+i))+".pb.gz" {
			t.Errorf("file %d is %s", i, f)
		}
		p := readProfile(t, f)
		checkFleetShape(t, p)
		if i > 0 && p.TimeNanos != prevEnd {
			t.Errorf("%s starts at %d, the one before ended at %d", f, p.TimeNanos, prevEnd)
		}
		if i < len(files)-1 && p.DurationNanos != 500e6 {
			t.Errorf("%s lasts %d ns", f, p.DurationNanos)
		}
		prevEnd = p.TimeNanos + p.DurationNanos
		for _, s := range p.Sample {
			for j := range sum {
				sum[j] += s.Value[j]
			}
		}
	}
	if files != nil && readProfile(t, files[0]).TimeNanos != whole.TimeNanos || prevEnd != whole.TimeNanos+whole.DurationNanos {
		t.Errorf("the windows do not cover the whole profile's time")
	}
	var want [3]int64
	for _, s := range whole.Sample {
		for j := range want {
			want[j] += s.Value[j]
		}
	}
	// wall rounds once per merged sample: a few ns apart
	if sum[0] != want[0] || sum[1] != want[1] || math.Abs(float64(sum[2]-want[2])) > float64(len(whole.Sample)) {
		t.Errorf("windows sum to %v, the whole profile is %v", sum, want)
	}
	// Each message names what is wrong (--split=-1s with -f pprof -o FILE
	// said it needed -f pprof and -o FILE).
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--split=1s", "-o", out, path}, "it needs -f pprof (not -f folded)"},
		{[]string{"--split=1s", "-f", "pprof", path}, "it needs -o FILE"},
		{[]string{"--split=-1s", "-f", "pprof", "-o", out, path}, "--split=-1s: a window's length must be positive"},
	} {
		if _, stderr, code := wallfold(t, tt.args...); code != 2 || !strings.Contains(stderr, tt.want) || strings.Count(stderr, "needs") > 1 {
			t.Errorf("%v: exit %d, %q; want exit 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
}

// With --off-cpu each window's wall is its own time: a share of waiting
// that spans windows is spread over them.
func TestPprofSplitOffCPU(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "w.pb.gz")
	if _, stderr, code := wallfold(t, "-q", "-f", "pprof", "--off-cpu", "--split=200ms", "-o", out, offTrace("sleep.txt.gz")); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "w-*.pb.gz"))
	if len(files) != 8 { // 1.404 s
		t.Fatalf("%d files", len(files))
	}
	for _, f := range files {
		p := readProfile(t, f)
		var wall int64
		for _, s := range p.Sample {
			wall += s.Value[2]
		}
		// A sample stands for the period before it, counted in the window
		// of its time: at a window's edge one period may fall either side
		// (the last window, 4 ms, has 4 samples and the main thread's
		// [unsampled] tail up to its exit: 4.105 ms).
		if d := float64(wall - p.DurationNanos); math.Abs(d) > 0.02*float64(p.DurationNanos)+1e6 {
			t.Errorf("%s: wall %d ns in a window of %d ns", filepath.Base(f), wall, p.DurationNanos)
		}
	}
}
