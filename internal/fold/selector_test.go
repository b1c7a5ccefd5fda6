package fold

import (
	"strings"
	"testing"

	"github.com/wallfold/wallfold/parse"
)

func sampleOf(event string, period uint64) *parse.Record {
	return &parse.Record{Kind: parse.KindSample, SampleFields: parse.SampleFields{Event: []byte(event), Period: period}}
}

// The first sample's event is profiled (by its base name: cycles:u and
// cycles are one event), others are signs of life, and sched_switch
// samples are block stacks; the period and the unit come from the first
// profiled sample.
func TestSelectorFirstEvent(t *testing.T) {
	s := newSelector("")
	steps := []struct {
		event  string
		period uint64
		want   verdict
	}{
		{"sched:sched_switch", 1, blockStack},
		{"cycles:u", 5000, profiled},
		{"cycles", 7000, profiled},
		{"cpu-clock", 1000, otherEvent},
		{"sched:sched_switch", 1, blockStack},
		{"cpu-clock", 1000, otherEvent},
	}
	for i, st := range steps {
		if got := s.classify(sampleOf(st.event, st.period)); got != st.want {
			t.Errorf("step %d %s: verdict %d, want %d", i, st.event, got, st.want)
		}
	}
	if string(s.event) != "cycles" || s.period != 5000 || s.timeBased || !s.seen || s.unitNs() {
		t.Errorf("selected %q period %d timeBased %v seen %v", s.event, s.period, s.timeBased, s.seen)
	}
	ws := strings.Join(s.warnings(false), "\n")
	for _, want := range []string{"2 sched:sched_switch samples are block stacks", "using event cycles; skipped other events: cpu-clock (2 samples)"} {
		if !strings.Contains(ws, want) {
			t.Errorf("warnings lack %q:\n%s", want, ws)
		}
	}
	if ws := strings.Join(s.warnings(true), "\n"); strings.Contains(ws, "block stacks") {
		t.Errorf("--off-cpu takes the block stacks, yet: %s", ws)
	}
}

// --event names the profiled event, modifiers and all: then only that
// spelling matches, and a selected sched:sched_switch is CPU samples.
func TestSelectorNamedEvent(t *testing.T) {
	s := newSelector("cycles:u")
	if got := s.classify(sampleOf("cycles", 1)); got != otherEvent {
		t.Errorf("cycles under --event=cycles:u: %d, want otherEvent", got)
	}
	if got := s.classify(sampleOf("cycles:u", 3)); got != profiled || s.period != 3 {
		t.Errorf("cycles:u: %d (period %d), want profiled at 3", got, s.period)
	}
	sw := newSelector("sched:sched_switch")
	if got := sw.classify(sampleOf("sched:sched_switch", 1)); got != profiled || sw.blocks != 0 {
		t.Errorf("selected sched_switch: %d, %d block stacks", got, sw.blocks)
	}
}

// A clock counts ns (cpu-clock, task-clock, with modifiers); the cached
// answer follows the event asked, not the first one.
func TestSelectorClock(t *testing.T) {
	s := newSelector("")
	for _, tt := range []struct {
		event string
		want  bool
	}{{"cpu-clock", true}, {"cpu-clock", true}, {"cycles", false}, {"task-clock:u", true}, {"cycles:ppp", false}} {
		if got := s.clock([]byte(tt.event)); got != tt.want {
			t.Errorf("clock(%s) = %v, want %v", tt.event, got, tt.want)
		}
	}
	if !newSelector("").unitNs() {
		t.Error("no profiled sample yet: the outputs should name ns, the usual unit")
	}
	c := newSelector("")
	c.classify(sampleOf("task-clock", 250000))
	if !c.timeBased || !c.unitNs() {
		t.Error("task-clock is time-based")
	}
}

// The clock of `-e cpu-clock/freq=999/ -e sched:sched_switch -c 1` (a
// stack at every switch-out) is the clock: profiled in ns by default and
// under --event=cpu-clock or its own spelling. Was a bug (fixed): it was
// taken for an event without time, and --off-cpu refused its time.
func TestSelectorClockWithTerms(t *testing.T) {
	for _, named := range []string{"", "cpu-clock", "cpu-clock/freq=999/"} {
		s := newSelector(named)
		for i, st := range []struct {
			event string
			want  verdict
		}{
			{"sched:sched_switch", blockStack},
			{"cpu-clock/freq=999/", profiled},
			{"cpu-clock/freq=999/", profiled},
			{"cycles", otherEvent},
		} {
			if got := s.classify(sampleOf(st.event, 1001001)); got != st.want {
				t.Errorf("--event=%q step %d %s: verdict %d, want %d", named, i, st.event, got, st.want)
			}
		}
		if !s.timeBased || !s.unitNs() || !s.clock([]byte("cpu-clock/freq=999/")) {
			t.Errorf("--event=%q: selected %q, timeBased %v, unit ns %v", named, s.event, s.timeBased, s.unitNs())
		}
	}
}
