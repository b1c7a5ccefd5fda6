package emit_test

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/wallfold/wallfold/emit"
	"github.com/wallfold/wallfold/parse"
)

func pframe(addr, sym, dso string) parse.Frame {
	return parse.Frame{Addr: []byte(addr), Sym: []byte(sym), DSO: []byte(dso)}
}

// roundTrip writes pr as WritePprof does and parses it back with the
// pprof library, which checks it.
func roundTrip(t *testing.T, pr *profile.Profile) *profile.Profile {
	t.Helper()
	var b bytes.Buffer
	if err := emit.WritePprof(&b, pr); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b.Bytes(), []byte{0x1f, 0x8b}) {
		t.Errorf("not gzipped: % x", b.Bytes()[:min(4, b.Len())])
	}
	back, err := profile.Parse(&b)
	if err != nil {
		t.Fatalf("profile.Parse: %v", err)
	}
	if err := back.CheckValid(); err != nil {
		t.Fatalf("CheckValid: %v", err)
	}
	return back
}

// samplesOf keys each sample by its labels and its functions, leaf first:
// "comm=app pid=10 | work;main".
func samplesOf(pr *profile.Profile) map[string][]int64 {
	out := map[string][]int64{}
	for _, s := range pr.Sample {
		var labels, fns []string
		for k, v := range s.Label {
			labels = append(labels, k+"="+strings.Join(v, ","))
		}
		slices.Sort(labels)
		for _, l := range s.Location {
			for _, ln := range l.Line {
				fns = append(fns, ln.Function.Name)
			}
		}
		k := strings.Join(labels, " ") + " | " + strings.Join(fns, ";")
		if out[k] != nil {
			k += " (again)" // a sample the builder should have merged
		}
		out[k] = s.Value
	}
	return out
}

func checkSamples(t *testing.T, pr *profile.Profile, want map[string][]int64) {
	t.Helper()
	got := samplesOf(pr)
	for k, w := range want {
		if g, ok := got[k]; !ok || !slices.Equal(g, w) {
			t.Errorf("sample %q: %v, want %v", k, g, w)
		}
	}
	for k, g := range got {
		if want[k] == nil {
			t.Errorf("sample %q: %v, not expected", k, g)
		}
	}
}

func sums(pr *profile.Profile) [3]int64 {
	var s [3]int64
	for _, x := range pr.Sample {
		for i := range s {
			s[i] += x.Value[i]
		}
	}
	return s
}

// pprofStacks interns, into p, a kernel-only stack first (so that the
// first mapping made is the kernel's), a plain one, one through libc and
// the kernel, one with an inlined frame, and none at all. main is one
// address, printed with two frame IDs (as perf's text may differ): one
// Location all the same.
func pprofStacks(p *emit.Profile) (kernel, work, syscall, inl, none uint32) {
	main := pframe("401000", "main", "/bin/app")
	main7, main8 := main, main
	main7.ID, main8.ID = 7, 8
	kernel = p.Stack(parse.NewStack([]parse.Frame{pframe("ffffffff81000010", "schedule", "[kernel.kallsyms]")}), false)
	work = p.Stack(parse.NewStack([]parse.Frame{pframe("401010", "work", "/bin/app"), main7}), false)
	syscall = p.Stack(parse.NewStack([]parse.Frame{pframe("ffffffff81000020", "do_syscall", "[kernel.kallsyms]"),
		pframe("7f0000001000", "read", "/lib/libc.so.6"), main8}), false)
	inlined := parse.Frame{Addr: []byte("401020"), Sym: []byte("inl_helper"), Inlined: true}
	inl = p.Stack(parse.NewStack([]parse.Frame{inlined, pframe("401020", "outer", "/bin/app"), main}), false)
	none = p.Stack(nil, false)
	return
}

func TestPprofKnownProfile(t *testing.T) {
	p := emit.NewProfile(emit.NameOptions{}, emit.Labels{Comm: true, Parallelism: true, State: true, PID: true, TID: true})
	kernel, work, syscall, inl, none := pprofStacks(p)
	app, wrk := p.Comm([]byte("app")), p.Comm([]byte("worker"))
	for range 3 {
		p.Add(0, work, app, 10, 11, 2, 1e6, 5e5)
		p.Add(0, work, app, 10, 12, 2, 1e6, 0.6) // merged, then rounded: 1.8 is 2
	}
	p.Add(0, syscall, wrk, 10, 13, 1, 2e6, 2e6)
	p.Add(0, inl, app, 10, 11, 4, 4e6, 1e6)
	p.Add(0, kernel, wrk, -1, 13, 1, 1e6, 1e6) // pid unknown: no label
	p.Add(0, none, app, 10, 11, 1, 1e6, 1e6)
	p.AddOff(0, p.WithLeaf(work, "[blocked]"), app, 10, 11, "blocked", 3e6)
	p.AddOff(0, p.WithLeaf(work, "[runnable]"), app, 10, 11, "runnable", 5e5)
	meta := emit.Meta{Event: "cpu-clock", TimeBased: true, Period: 1e6,
		TimeNanos: 1_700_000_000_000_000_000, DurationNanos: 2_500_000_000, Comments: []string{"wallfold test", "two"}}
	pr := roundTrip(t, p.Build(meta))

	var types []string
	for _, st := range pr.SampleType {
		types = append(types, st.Type+"/"+st.Unit)
	}
	if want := []string{"samples/count", "cpu/nanoseconds", "wall/nanoseconds"}; !slices.Equal(types, want) {
		t.Errorf("sample types %v, want %v", types, want)
	}
	if pr.DefaultSampleType != "wall" || pr.PeriodType == nil || pr.PeriodType.Type != "cpu" ||
		pr.PeriodType.Unit != "nanoseconds" || pr.Period != 1e6 {
		t.Errorf("default %q, period %d %+v; want wall, 1000000 cpu/nanoseconds", pr.DefaultSampleType, pr.Period, pr.PeriodType)
	}
	if pr.TimeNanos != meta.TimeNanos || pr.DurationNanos != meta.DurationNanos || !slices.Equal(pr.Comments, meta.Comments) {
		t.Errorf("time %d, duration %d, comments %q; want Meta's", pr.TimeNanos, pr.DurationNanos, pr.Comments)
	}
	checkSamples(t, pr, map[string][]int64{
		"comm=app parallelism=2 pid=10 tid=11 | work;main":               {3, 3e6, 1.5e6},
		"comm=app parallelism=2 pid=10 tid=12 | work;main":               {3, 3e6, 2},
		"comm=worker parallelism=1 pid=10 tid=13 | do_syscall;read;main": {1, 2e6, 2e6},
		"comm=app parallelism=4 pid=10 tid=11 | inl_helper;outer;main":   {1, 4e6, 1e6},
		"comm=worker parallelism=1 tid=13 | schedule":                    {1, 1e6, 1e6},
		"comm=app parallelism=1 pid=10 tid=11 | [no stack]":              {1, 1e6, 1e6},
		"comm=app pid=10 state=blocked tid=11 | [blocked];work;main":     {0, 0, 3e6},
		"comm=app pid=10 state=runnable tid=11 | [runnable];work;main":   {0, 0, 5e5},
	})
	// Conservation: the samples added, their periods, their wall.
	if got, want := sums(pr), [3]int64{10, 14e6, 10e6 + 2}; got != want {
		t.Errorf("sums %v, want %v", got, want)
	}
	checkTables(t, pr)
}

// checkTables: one Function per name, one Location per (mapping,
// address, functions), the inlined frame a second Line of its Location, pseudo
// leaves without code, the program's mapping first, ids = positions + 1.
func checkTables(t *testing.T, pr *profile.Profile) {
	t.Helper()
	var fns []string
	for i, f := range pr.Function {
		fns = append(fns, f.Name)
		if f.ID != uint64(i+1) || f.SystemName != f.Name {
			t.Errorf("function %d: id %d, %q system name %q", i, f.ID, f.Name, f.SystemName)
		}
	}
	slices.Sort(fns)
	want := []string{"[blocked]", "[no stack]", "[runnable]", "do_syscall", "inl_helper", "main", "outer", "read", "schedule", "work"}
	if !slices.Equal(fns, want) {
		t.Errorf("functions %q, want %q", fns, want)
	}
	var maps []string
	for i, m := range pr.Mapping {
		maps = append(maps, m.File)
		if m.ID != uint64(i+1) {
			t.Errorf("mapping %s: id %d at %d", m.File, m.ID, i)
		}
	}
	if len(maps) != 3 || maps[0] != "/bin/app" || !slices.Contains(maps, "[kernel.kallsyms]") || !slices.Contains(maps, "/lib/libc.so.6") {
		t.Errorf("mappings %q, want /bin/app first, the kernel and libc", maps)
	}
	locs := map[string]string{}
	for i, l := range pr.Location {
		if l.ID != uint64(i+1) {
			t.Errorf("location %d: id %d", i, l.ID)
		}
		var names []string
		for _, ln := range l.Line {
			names = append(names, ln.Function.Name)
		}
		file := "-"
		if l.Mapping != nil {
			file = l.Mapping.File
		}
		k := strings.Join(names, ",")
		if _, dup := locs[k]; dup {
			t.Errorf("two locations of %s", k)
		}
		locs[k] = fmt.Sprintf("%s %#x", file, l.Address)
	}
	for k, w := range map[string]string{
		"main": "/bin/app 0x401000", "work": "/bin/app 0x401010", "inl_helper,outer": "/bin/app 0x401020",
		"read": "/lib/libc.so.6 0x7f0000001000", "[blocked]": "- 0x0", "[no stack]": "- 0x0",
	} {
		if locs[k] != w {
			t.Errorf("location of %s: %q, want %q", k, locs[k], w)
		}
	}
}

// TestPprofCountEvent: an event that is not a clock counts events, and
// its wall is the count over parallelism; with the default labels (no
// pid, tid) the threads' samples of one stack are one.
func TestPprofCountEvent(t *testing.T) {
	p := emit.NewProfile(emit.NameOptions{}, emit.DefaultLabels)
	_, work, _, _, _ := pprofStacks(p)
	app := p.Comm([]byte("app"))
	p.Add(0, work, app, 10, 11, 2, 100, 50)
	p.Add(0, work, app, 10, 12, 2, 300, 150)
	pr := roundTrip(t, p.Build(emit.Meta{Event: "cpu-cycles", Period: 100}))
	var types []string
	for _, st := range pr.SampleType {
		types = append(types, st.Type+"/"+st.Unit)
	}
	if want := []string{"samples/count", "cpu_cycles/count", "cpu_cycles_wall/count"}; !slices.Equal(types, want) {
		t.Errorf("sample types %v, want %v", types, want)
	}
	if pr.DefaultSampleType != "cpu_cycles_wall" || pr.PeriodType.Type != "cpu_cycles" || pr.PeriodType.Unit != "count" {
		t.Errorf("default %q, period type %+v", pr.DefaultSampleType, pr.PeriodType)
	}
	checkSamples(t, pr, map[string][]int64{"comm=app parallelism=2 | work;main": {2, 400, 200}})
}

// TestPprofWindows: BuildEach makes one profile per window, in order,
// each with only what its samples use; merged, one profile where samples
// that differ only by window are one; a write error stops it.
func TestPprofWindows(t *testing.T) {
	fill := func() *emit.Profile {
		p := emit.NewProfile(emit.NameOptions{}, emit.Labels{Comm: true})
		_, work, syscall, _, _ := pprofStacks(p)
		app := p.Comm([]byte("app"))
		p.Add(1, work, app, 1, 1, 1, 10, 10)
		p.Add(0, work, app, 1, 1, 1, 20, 10)
		p.Add(1, syscall, app, 1, 1, 2, 30, 15)
		return p
	}
	meta := func(win int32) emit.Meta {
		return emit.Meta{Event: "task-clock", TimeBased: true, TimeNanos: 1e9 * int64(1+win), DurationNanos: 1e9}
	}
	var wins []int32
	var got []*profile.Profile
	err := fill().BuildEach(meta, false, func(win int32, pr *profile.Profile) error {
		wins = append(wins, win)
		got = append(got, roundTrip(t, pr))
		return nil
	})
	if err != nil || !slices.Equal(wins, []int32{0, 1}) {
		t.Fatalf("windows %v, error %v; want [0 1]", wins, err)
	}
	if s := sums(got[0]); s != [3]int64{1, 20, 10} || len(got[0].Function) != 2 || len(got[0].Mapping) != 1 || got[0].TimeNanos != 1e9 {
		t.Errorf("window 0: sums %v, %d functions, %d mappings, time %d; want [1 20 10], 2, 1, 1e9",
			s, len(got[0].Function), len(got[0].Mapping), got[0].TimeNanos)
	}
	if s := sums(got[1]); s != [3]int64{2, 40, 25} || len(got[1].Function) != 4 || got[1].TimeNanos != 2e9 {
		t.Errorf("window 1: sums %v, %d functions, time %d; want [2 40 25], 4, 2e9", s, len(got[1].Function), got[1].TimeNanos)
	}
	got = nil
	fill().BuildEach(meta, true, func(_ int32, pr *profile.Profile) error {
		got = append(got, roundTrip(t, pr))
		return nil
	})
	if len(got) != 1 {
		t.Fatalf("merged: %d profiles", len(got))
	}
	checkSamples(t, got[0], map[string][]int64{"comm=app | work;main": {2, 30, 20}, "comm=app | do_syscall;read;main": {1, 30, 15}})
	boom, calls := errors.New("full"), 0
	err = fill().BuildEach(meta, false, func(int32, *profile.Profile) error { calls++; return boom })
	if !errors.Is(err, boom) || calls != 1 {
		t.Errorf("write error: %v after %d calls, want %v after 1", err, calls, boom)
	}
	// No sample: still one profile, valid and empty.
	empty := roundTrip(t, emit.NewProfile(emit.NameOptions{}, emit.DefaultLabels).Build(meta(0)))
	if len(empty.Sample) != 0 || len(empty.SampleType) != 3 {
		t.Errorf("empty: %d samples, %d types", len(empty.Sample), len(empty.SampleType))
	}
}

// TestPprofOneAddressTwoNames: two names at one address of one DSO (JIT
// code reusing an address; a rebuilt binary) are two Locations, each
// with its own samples, and so are two inline chains at one address; one
// name (or chain) at one address is one Location, whichever way its frame
// is looked up: by frame ID, by text (ID 0), or as a Java frame.
func TestPprofOneAddressTwoNames(t *testing.T) {
	p := emit.NewProfile(emit.NameOptions{}, emit.Labels{Comm: true})
	app := p.Comm([]byte("app"))
	jit := func(sym string, id uint32) parse.Frame {
		f := pframe("7f0000001000", sym, "/tmp/perf-1.map")
		f.ID = id
		return f
	}
	inl := func(helper string, id uint32) []parse.Frame {
		outer := pframe("401020", "outer", "/bin/app")
		outer.ID = id
		return []parse.Frame{{Addr: []byte("401020"), Sym: []byte(helper), Inlined: true}, outer}
	}
	for _, s := range []struct {
		frames []parse.Frame
		java   bool
		period uint64
	}{
		{[]parse.Frame{jit("oldFunction", 1)}, false, 1},
		{[]parse.Frame{jit("newFunction", 2)}, false, 2},
		{[]parse.Frame{jit("oldFunction", 3)}, false, 4}, // other text, same frame
		{[]parse.Frame{jit("oldFunction", 0)}, false, 8}, // no ID: by text
		{[]parse.Frame{jit("newFunction", 0)}, true, 16},
		{inl("helper_a", 0), false, 32},
		{inl("helper_b", 0), false, 64},
		{inl("helper_a", 0), false, 128},
	} {
		p.Add(0, p.Stack(parse.NewStack(s.frames), s.java), app, 1, 1, 1, s.period, float64(s.period))
	}
	pr := roundTrip(t, p.Build(emit.Meta{Event: "cpu-clock", TimeBased: true}))
	checkSamples(t, pr, map[string][]int64{
		"comm=app | oldFunction":    {3, 13, 13},
		"comm=app | newFunction":    {2, 18, 18},
		"comm=app | helper_a;outer": {2, 160, 160},
		"comm=app | helper_b;outer": {1, 64, 64},
	})
	locs := map[string][]string{}
	for _, l := range pr.Location {
		var names []string
		for _, ln := range l.Line {
			names = append(names, ln.Function.Name)
		}
		k := fmt.Sprintf("%s %#x", l.Mapping.File, l.Address)
		locs[k] = append(locs[k], strings.Join(names, ","))
	}
	for k := range locs {
		slices.Sort(locs[k])
	}
	want := map[string][]string{
		"/tmp/perf-1.map 0x7f0000001000": {"newFunction", "oldFunction"},
		"/bin/app 0x401020":              {"helper_a,outer", "helper_b,outer"},
	}
	if !maps.EqualFunc(locs, want, slices.Equal) {
		t.Errorf("locations %q, want %q", locs, want)
	}
}

// TestPprofInlinedFrameByID: a frame with an ID that perf printed as
// inlined is, inside a stack, one Location with the frame it was inlined
// into, also once that frame ID has been seen as a stack's last frame
// (its own Location there): what is known of a frame by its ID does not
// tell its place in a run of frames.
func TestPprofInlinedFrameByID(t *testing.T) {
	p := emit.NewProfile(emit.NameOptions{}, emit.Labels{Comm: true})
	app := p.Comm([]byte("app"))
	helper := parse.Frame{Addr: []byte("401030"), Sym: []byte("helper"), Inlined: true, ID: 9}
	outer := pframe("401030", "outer", "/bin/app")
	outer.ID = 10
	work := pframe("401010", "work", "/bin/app")
	work.ID = 1
	for _, s := range []struct {
		frames []parse.Frame
		period uint64
	}{
		{[]parse.Frame{work, helper}, 1}, // a stack cut after the inlined frame
		{[]parse.Frame{helper, outer}, 2},
		{[]parse.Frame{work, helper}, 4},
		{[]parse.Frame{helper, outer}, 8},
	} {
		p.Add(0, p.Stack(parse.NewStack(s.frames), false), app, 1, 1, 1, s.period, float64(s.period))
	}
	pr := roundTrip(t, p.Build(emit.Meta{Event: "cpu-clock", TimeBased: true}))
	seen := false
	for _, s := range pr.Sample {
		if s.Value[1] != 2+8 { // the samples of {helper, outer}
			continue
		}
		seen = true
		if len(s.Location) != 1 || len(s.Location[0].Line) != 2 {
			t.Errorf("helper inlined into outer: %d Locations, want one of two lines", len(s.Location))
		}
	}
	if !seen {
		t.Errorf("no sample of helper inlined into outer in %v", pr)
	}
}
