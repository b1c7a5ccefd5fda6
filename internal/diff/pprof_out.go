package diff

import (
	"math"
	"strings"

	"github.com/google/pprof/profile"
	"github.com/wallfold/wallfold/emit"
)

// BaseLabel marks the samples of the profile before the change, negated:
// the label go tool pprof -diff_base gives them.
const BaseLabel = "pprof::base"

// Profile is the difference as one pprof profile, made as go tool pprof
// -diff_base makes it: after's samples as they are, before's negated and
// labelled pprof::base=true, so that go tool pprof -top (or -http) on it
// shows each function's change, and -tagignore=pprof::base shows after
// alone. Sample types are wallfold's (cpu and wall, wall the default);
// each stack's root (the command) is the comm label, its frames are
// functions without addresses.
func Profile(d *Diff) *profile.Profile {
	types := emit.SampleTypes(d.After.Event, d.After.TimeBased)[1:]
	pr := &profile.Profile{SampleType: types, DefaultSampleType: types[1].Type,
		PeriodType: types[0], Period: 1,
		Comments: []string{"wallfold diff: " + d.Before.Name + " (pprof::base, negated) -> " + d.After.Name}}
	if d.Scale != (Weights{1, 1}) {
		pr.Comments = append(pr.Comments, "before normalised to after's totals (-n)")
	}
	fns := map[string]*profile.Location{}
	loc := func(name string) *profile.Location {
		if l, ok := fns[name]; ok {
			return l
		}
		fn := &profile.Function{ID: uint64(len(pr.Function) + 1), Name: name, SystemName: name}
		pr.Function = append(pr.Function, fn)
		l := &profile.Location{ID: uint64(len(pr.Location) + 1), Line: []profile.Line{{Function: fn}}}
		pr.Location = append(pr.Location, l)
		fns[name] = l
		return l
	}
	for _, r := range d.Stacks {
		frames := strings.Split(r.Name, ";")
		locs := make([]*profile.Location, 0, len(frames)-1)
		for i := len(frames) - 1; i >= 1; i-- {
			locs = append(locs, loc(frames[i]))
		}
		if len(locs) == 0 {
			locs = append(locs, loc("[no stack]"))
		}
		comm := frames[0]
		if w := rounded(r.After); w != [2]int64{} {
			pr.Sample = append(pr.Sample, &profile.Sample{Location: locs, Value: w[:],
				Label: map[string][]string{"comm": {comm}}})
		}
		if w := rounded(r.Before); w != [2]int64{} {
			pr.Sample = append(pr.Sample, &profile.Sample{Location: locs, Value: []int64{-w[0], -w[1]},
				Label: map[string][]string{"comm": {comm}, BaseLabel: {"true"}}})
		}
	}
	return pr
}

// rounded is a stack's CPU and wall as a sample's values.
func rounded(w Weights) [2]int64 {
	return [2]int64{int64(math.Round(w.CPU)), int64(math.Round(w.Wall))}
}
