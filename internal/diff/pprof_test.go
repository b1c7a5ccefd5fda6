package diff

import (
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/wallfold/wallfold/emit"
)

// stackOf is a sample's stack as folded names, root (comm) first.
func stackOf(s *profile.Sample) string {
	var names []string
	for i := len(s.Location) - 1; i >= 0; i-- {
		for j := len(s.Location[i].Line) - 1; j >= 0; j-- {
			names = append(names, s.Location[i].Line[j].Function.Name)
		}
	}
	return s.Label["comm"][0] + ";" + strings.Join(names, ";")
}

// The difference profile, written and parsed back: after's samples as
// they are, before's negated and labelled pprof::base, stack by stack.
func TestProfileNegatesBefore(t *testing.T) {
	before := side("b", map[string]Weights{"p;f;g": {10, 20}, "p;f": {5, 5}})
	after := side("a", map[string]Weights{"p;f;g": {3, 6}, "q;h": {1, 1}})
	d, err := Compare(before, after, false)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := emit.WritePprof(&buf, Profile(d)); err != nil {
		t.Fatal(err)
	}
	pr, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if pr.DefaultSampleType != "wall" || pr.SampleType[0].Type != "cpu" || pr.SampleType[1].Type != "wall" {
		t.Fatalf("sample types %v default %q", pr.SampleType, pr.DefaultSampleType)
	}
	got := map[string]Weights{}
	for _, s := range pr.Sample {
		k := stackOf(s)
		if s.Label[BaseLabel] != nil {
			k = "base " + k
		}
		got[k] = got[k].add(Weights{float64(s.Value[1]), float64(s.Value[0])})
	}
	want := map[string]Weights{
		"base p;f;g": {-10, -20}, "base p;f": {-5, -5},
		"p;f;g": {3, 6}, "q;h": {1, 1},
	}
	if len(got) != len(want) {
		t.Errorf("samples %v, want %v", got, want)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %v, want %v", k, got[k], w)
		}
	}
}

// A wallfold profile read back: stacks rooted at the comm label, inlined
// frames (extra Lines, the innermost first) in their order.
func TestFromProfile(t *testing.T) {
	fn := func(id uint64, name string) *profile.Function { return &profile.Function{ID: id, Name: name} }
	main, inl, leaf := fn(1, "main"), fn(2, "inlined"), fn(3, "leaf")
	outer := &profile.Location{ID: 1, Line: []profile.Line{{Function: inl}, {Function: main}}}
	inner := &profile.Location{ID: 2, Line: []profile.Line{{Function: leaf}}}
	pr := &profile.Profile{
		SampleType: emit.SampleTypes("cpu-clock", true),
		Function:   []*profile.Function{main, inl, leaf},
		Location:   []*profile.Location{outer, inner},
		Sample: []*profile.Sample{
			{Location: []*profile.Location{inner, outer}, Value: []int64{3, 3000, 1500}, Label: map[string][]string{"comm": {"job"}, "parallelism": {"2"}}},
			{Location: []*profile.Location{inner, outer}, Value: []int64{1, 1000, 1000}, Label: map[string][]string{"comm": {"job"}, "parallelism": {"1"}}},
			{Location: []*profile.Location{outer}, Value: []int64{1, 1000, 250}},
		},
	}
	s, err := FromProfile("x.pb.gz", pr)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Weights{"job;main;inlined;leaf": {2500, 4000}, noComm + ";main;inlined": {250, 1000}}
	if len(s.Stacks) != len(want) || !s.TimeBased {
		t.Errorf("stacks %v time-based %v", s.Stacks, s.TimeBased)
	}
	for k, w := range want {
		if s.Stacks[k] != w {
			t.Errorf("%s: %v, want %v", k, s.Stacks[k], w)
		}
	}
	// Another event: its count and count/parallelism.
	pr.SampleType = emit.SampleTypes("cycles:u", false)
	if s, err := FromProfile("c.pb.gz", pr); err != nil || s.TimeBased || s.Event != "cycles_u" {
		t.Errorf("cycles: %v, %+v", err, s)
	}
	// A difference is no side.
	pr.Sample[0].Label[BaseLabel] = []string{"true"}
	if _, err := FromProfile("diff.pb.gz", pr); err == nil || !strings.Contains(err.Error(), "a difference") {
		t.Errorf("a difference profile: %v", err)
	}
	delete(pr.Sample[0].Label, BaseLabel)
	// A CPU profile of Go's has no wall.
	pr.SampleType = []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}}
	for _, smp := range pr.Sample {
		smp.Value = smp.Value[:2]
	}
	if _, err := FromProfile("go.pprof", pr); err == nil || !strings.Contains(err.Error(), "not wallfold's") {
		t.Errorf("Go CPU profile: %v", err)
	}
}

// A profile's bytes (un-gzipped) are told from perf script text.
func TestLooksLikeProfile(t *testing.T) {
	var gz bytes.Buffer
	if err := emit.WritePprof(&gz, &profile.Profile{SampleType: emit.SampleTypes("cpu-clock", true)}); err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(&gz)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(zr)
	if !LooksLikeProfile(raw) {
		t.Errorf("a profile %q taken for text", raw)
	}
	text := "\nsteps  8378 22584.139844:    1001001    cpu-clock/freq=999/: \n\t            11a6 work+0x1d (/tmp/steps)\r\n"
	if LooksLikeProfile([]byte(text)) {
		t.Error("perf script text taken for a profile")
	}
}
