package emit_test

import (
	"bytes"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wallfold/wallfold/emit"
	"github.com/wallfold/wallfold/state"
)

// sumGroups are four groups, given out of order: by wall, a (2 s), then
// c and b (0.1 s each; c started first), then d (0.05 s).
func sumGroups() []emit.SummaryGroup {
	a := emit.SummaryGroup{Name: "workload a", Samples: 300, CPU: 3e9, Wall: 2e9, Start: 0, End: 2e9,
		// 1 s of wall at parallelism 1 (1 s of CPU), 1 s at 2 (2 s of CPU)
		Levels:       map[int]*[2]float64{1: {1e9, 1e9}, 2: {1e9, 2e9}},
		Serial:       []emit.FuncWeight{{Name: "main", Self: 0.2e9, Cum: 1e9}, {Name: "serial_phase", Self: 0.8e9, Cum: 0.8e9}},
		SerialByComm: []emit.FuncWeight{{Name: "app", Self: 0.7e9, Cum: 0.7e9}, {Name: "helper", Self: 0.3e9, Cum: 0.3e9}},
		Split:        state.Split{First: 0, Last: 4e9, OnCPU: 2e9, Runnable: 0.5e9, Blocked: 1.5e9, CPU: 3e9}, HasSplit: true}
	b := emit.SummaryGroup{Name: "process b (pid 7)", Samples: 10, CPU: 4e8, Wall: 1e8, Start: 5, End: 1e9 + 5,
		Levels: map[int]*[2]float64{4: {1e8, 4e8}}}
	c := emit.SummaryGroup{Name: "process c (pid 9)", Samples: 5, CPU: 1e8, Wall: 1e8, Start: 1, End: 1,
		Levels: map[int]*[2]float64{1: {1e8, 1e8}},
		Serial: []emit.FuncWeight{{Name: "only", Self: 1e8, Cum: 1e8}}, SerialByComm: []emit.FuncWeight{{Name: "c", Self: 1e8, Cum: 1e8}}}
	d := emit.SummaryGroup{Name: "process d (pid 11)", Samples: 1, CPU: 5e7, Wall: 5e7, Levels: map[int]*[2]float64{1: {5e7, 5e7}}}
	return []emit.SummaryGroup{b, d, a, c}
}

// sumSection is one group's part of the summary.
type sumSection struct {
	name   string
	avg    float64
	levels map[string][2]float64 // wall %, cpu %
	bars   map[string][2]string
	serial []string // "self self% total total% function", as numbers
	byComm []string
	lines  []string
}

var (
	sumAvgRE    = regexp.MustCompile(`^  average parallelism while on CPU: ([0-9.]+)$`)
	sumLevelRE  = regexp.MustCompile(`^  +(\d+|idle)  +([0-9.]+)% (\S*) +([0-9.]+)% (\S*)$`)
	sumSerialRE = regexp.MustCompile(`^ +([0-9.]+) s +([0-9.]+)% +([0-9.]+) s +([0-9.]+)%  (\S+)$`)
	sumCommRE   = regexp.MustCompile(`^ +([0-9.]+) s +([0-9.]+)%  (\S+)$`)
)

// parseSummary cuts the output into the groups' sections (a group's
// name begins one, a blank line ends it) and what follows them.
func parseSummary(out string, groups []emit.SummaryGroup) (secs []*sumSection, tail []string) {
	var cur *sumSection
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		switch {
		case l == "":
			cur = nil
			continue
		case cur == nil && slices.ContainsFunc(groups, func(g emit.SummaryGroup) bool { return g.Name == l }):
			cur = &sumSection{name: l, levels: map[string][2]float64{}, bars: map[string][2]string{}}
			secs = append(secs, cur)
			continue
		case cur == nil:
			tail = append(tail, l)
			continue
		}
		cur.lines = append(cur.lines, l)
		f := func(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }
		if m := sumAvgRE.FindStringSubmatch(l); m != nil {
			cur.avg = f(m[1])
		} else if m := sumLevelRE.FindStringSubmatch(l); m != nil {
			cur.levels[m[1]] = [2]float64{f(m[2]), f(m[4])}
			cur.bars[m[1]] = [2]string{m[3], m[5]}
		} else if m := sumSerialRE.FindStringSubmatch(l); m != nil {
			cur.serial = append(cur.serial, strings.Join(m[1:], " "))
		} else if m := sumCommRE.FindStringSubmatch(l); m != nil {
			cur.byComm = append(cur.byComm, strings.Join(m[1:], " "))
		}
	}
	return secs, tail
}

func writeSummary(t *testing.T, groups []emit.SummaryGroup, o emit.SummaryOptions, warnings []string) string {
	t.Helper()
	var b bytes.Buffer
	if err := emit.WriteSummary(&b, groups, o, warnings); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestSummaryKnownGroups(t *testing.T) {
	groups := sumGroups()
	out := writeSummary(t, groups, emit.SummaryOptions{TimeBased: true, TopGroups: 3, IdleSamples: 4, IdleCPU: 4e6,
		Tree: &emit.TreeHint{PID: 7, Groups: 3, Comm: "make", Share: 75}}, []string{"lost 3 records", "two lines\nsecond"})
	secs, tail := parseSummary(out, groups)
	var names []string
	for _, s := range secs {
		names = append(names, s.name)
	}
	if want := []string{"workload a", "process c (pid 9)", "process b (pid 7)"}; !slices.Equal(names, want) {
		t.Fatalf("groups %q, want %q (largest wall first, ties by start; d cut):\n%s", names, want, out)
	}
	a, c, b := secs[0], secs[1], secs[2]
	// Average parallelism is CPU over wall: 3/2, 1/1, 4/1.
	if a.avg != 1.5 || c.avg != 1 || b.avg != 4 {
		t.Errorf("average parallelism %.2f, %.2f, %.2f; want 1.50, 1.00, 4.00", a.avg, c.avg, b.avg)
	}
	// The histogram: shares of the group's wall and of its CPU, '#' bars
	// of 20 cells, rounded.
	wantA := map[string][2]float64{"1": {50, 33.3}, "2": {50, 66.7}}
	if !mapsEqual(a.levels, wantA) || a.bars["1"] != [2]string{"##########", "#######"} || a.bars["2"][1] != "#############" {
		t.Errorf("a's histogram %v %v, want %v", a.levels, a.bars, wantA)
	}
	if !mapsEqual(b.levels, map[string][2]float64{"4": {100, 100}}) || b.bars["4"][0] != strings.Repeat("#", 20) {
		t.Errorf("b's histogram %v %v, want all at 4", b.levels, b.bars)
	}
	// Hot spots in % of the group's wall; by command only when there are
	// two commands or more.
	if want := []string{"0.200 10.0 1.000 50.0 main", "0.800 40.0 0.800 40.0 serial_phase"}; !slices.Equal(a.serial, want) {
		t.Errorf("a's serial functions %q, want %q", a.serial, want)
	}
	if want := []string{"0.700 35.0 app", "0.300 15.0 helper"}; !slices.Equal(a.byComm, want) {
		t.Errorf("a's serial commands %q, want %q", a.byComm, want)
	}
	if len(c.byComm) != 0 || !slices.Equal(c.serial, []string{"0.100 100.0 0.100 100.0 only"}) {
		t.Errorf("c: serial %q, by command %q", c.serial, c.byComm)
	}
	// The span: the split's when there is one, else first to last sample.
	for sec, want := range map[*sumSection][]string{
		a: {"  span: 4.000 s = on CPU 2.000 s (50.0%) + runnable 0.500 s (12.5%) + blocked 1.500 s (37.5%)",
			"  samples: 300   CPU: 3.000 s   wall (on CPU): 2.000 s",
			"  off CPU 50.0% of the span (no thread ran): --off-cpu adds it to the profile at the stacks that waited"},
		b: {"  samples: 10   CPU: 0.400 s   wall (on CPU): 0.100 s   span: 1.000 s"},
	} {
		for _, l := range want {
			if !slices.Contains(sec.lines, l) {
				t.Errorf("%s: no line %q:\n%s", sec.name, l, strings.Join(sec.lines, "\n"))
			}
		}
	}
	wantTail := []string{"... and 1 more groups (CPU 0.050 s, wall 0.050 s): --top=N shows N groups",
		"75% of the CPU time ran in the process tree of make (pid 7, 3 processes): --tree=7 counts it as one group",
		"idle (tid 0, swapper): 4 samples, CPU 0.004 s, in no group above",
		"warning: lost 3 records", "warning: two lines", "  second"}
	if !slices.Equal(tail, wantTail) {
		t.Errorf("after the groups:\n%s\nwant:\n%s", strings.Join(tail, "\n"), strings.Join(wantTail, "\n"))
	}
}

func mapsEqual(a, b map[string][2]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || v != w {
			return false
		}
	}
	return true
}

// TestSummaryBarsAndOptions: Unicode bars in eighths of a cell, counts
// of another event, the off-CPU line when the profile has it, the
// whole-trace note, and no groups at all.
func TestSummaryBarsAndOptions(t *testing.T) {
	groups := sumGroups()
	out := writeSummary(t, groups, emit.SummaryOptions{Unicode: true, Unit: "cycles", OffCPU: true, SplitWhole: true}, nil)
	secs, tail := parseSummary(out, groups)
	if len(secs) != 4 || len(tail) != 0 {
		t.Fatalf("%d groups (want all 4 by default), then %q", len(secs), tail)
	}
	a := secs[0]
	// 33.3% of 20 cells: 6 and 5/8; 66.7%: 13 and 2/8.
	if want := [2]string{strings.Repeat("█", 10), "██████▋"}; a.bars["1"] != want {
		t.Errorf("level 1 bars %q, want %q", a.bars["1"], want)
	}
	if got, want := a.bars["2"][1], strings.Repeat("█", 13)+"▎"; got != want {
		t.Errorf("level 2 CPU bar %q, want %q", got, want)
	}
	for _, l := range []string{"  (the whole trace's span: on a pipe a --time in percent is known only at the end)",
		"  samples: 300   CPU: 3000000000 cycles   wall (on CPU): 2000000000 cycles",
		"  off CPU 50.0% of the span (no thread ran): in the profile under [blocked] and [runnable] leaves"} {
		if !slices.Contains(a.lines, l) {
			t.Errorf("no line %q:\n%s", l, strings.Join(a.lines, "\n"))
		}
	}
	if out := writeSummary(t, nil, emit.SummaryOptions{}, []string{"w"}); out != "no samples\n\nwarning: w\n" {
		t.Errorf("no groups: %q", out)
	}
}
