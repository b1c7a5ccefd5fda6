package emit_test

import (
	"slices"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/wallfold/wallfold/emit"
	"github.com/wallfold/wallfold/parse"
)

// TestPprofSampleOrderWithWakers: samples that differ only by their waker
// come out in one order, run after run (the samples are kept in a map, so
// an order that ignores the waker is the map's, which Go varies).
func TestPprofSampleOrderWithWakers(t *testing.T) {
	order := func() []string {
		p := emit.NewProfile(emit.NameOptions{}, emit.Labels{Comm: true, State: true, Waker: true})
		st := p.Stack(parse.NewStack([]parse.Frame{pframe("401010", "read", "/bin/app")}), false)
		comm := p.Comm([]byte("app"))
		for _, waker := range []string{"make", "interrupt", "sh", "cc1"} {
			p.AddOffWoken(0, st, comm, 7, 7, "blocked", waker, 1e6)
		}
		var got []string
		p.BuildEach(func(int32) emit.Meta { return emit.Meta{Event: "cpu-clock", TimeBased: true} }, true,
			func(_ int32, pr *profile.Profile) error {
				for _, s := range pr.Sample {
					got = append(got, s.Label["waker"][0])
				}
				return nil
			})
		return got
	}
	first := order()
	if len(first) != 4 {
		t.Fatalf("wakers %q: want 4 samples", first)
	}
	for range 30 {
		if got := order(); !slices.Equal(got, first) {
			t.Fatalf("sample order by waker %q, then %q", first, got)
		}
	}
}
