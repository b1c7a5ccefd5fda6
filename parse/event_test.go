package parse

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestEventNames(t *testing.T) {
	for _, tt := range []struct {
		ev, base string
		clock    bool
	}{
		{"cpu-clock", "cpu-clock", true},
		{"cpu-clock:uhH", "cpu-clock", true},
		{"task-clock:u", "task-clock", true},
		{"cycles:u", "cycles", false},
		{"cycles:ppp", "cycles", false},
		{"sched:sched_switch", "sched:sched_switch", false},
		{"cpu/event=0x3c/u", "cpu/event=0x3c/u", false},
		{"cpu-clock/freq=999/", "cpu-clock", true},
		{"cpu-clock/freq=999/u", "cpu-clock", true},
		{"task-clock/period=500000,call-graph=dwarf,stack-size=8192/k", "task-clock", true},
		{"software/cpu-clock/", "cpu-clock", true},
		{"software/task-clock,period=100000/", "task-clock", true},
		{"software/config=1/", "software/config=1/", false},
		{"cycles/period=100000/", "cycles", false},
		{"msr/tsc/", "msr/tsc/", false},
		{"power/energy-pkg/", "power/energy-pkg/", false},
		{"cpu-clock/foo=1/", "cpu-clock/foo=1/", false},
		{"cpu-clock/freq=999/x", "cpu-clock/freq=999/x", false},
		{"sched:sched_switch/call-graph=fp/", "sched:sched_switch", false},
		{"probe_x:y", "probe_x:y", false},
	} {
		if got := string(EventBase([]byte(tt.ev))); got != tt.base {
			t.Errorf("EventBase(%q) = %q, want %q", tt.ev, got, tt.base)
		}
		if got := IsClockEvent([]byte(tt.ev)); got != tt.clock {
			t.Errorf("IsClockEvent(%q) = %v", tt.ev, got)
		}
	}
	for _, tt := range []struct {
		ev, want string
		match    bool
	}{
		{"cycles:u", "cycles", true},
		{"cycles:u", "cycles:u", true},
		{"cycles", "cycles:u", false},
		{"cycles:k", "cycles:u", false},
		{"sched:sched_switch", "sched", false},
		{"cpu-clock/freq=999/", "cpu-clock", true},
		{"cpu-clock/freq=999/", "cpu-clock/freq=999/", true},
		{"cpu-clock/period=1000000/", "cpu-clock/freq=999/", false},
	} {
		if got := EventMatches([]byte(tt.ev), []byte(tt.want)); got != tt.match {
			t.Errorf("EventMatches(%q, %q) = %v", tt.ev, tt.want, got)
		}
	}
}

func TestIsSchedSwitch(t *testing.T) {
	for ev, want := range map[string]bool{
		"sched:sched_switch": true, "sched:sched_switch:k": true,
		"sched:sched_wakeup": false, "cpu-clock": false, "sched_switch": false,
	} {
		if got := IsSchedSwitch([]byte(ev)); got != want {
			t.Errorf("IsSchedSwitch(%q) = %v", ev, got)
		}
	}
}

// Samples recorded with each spelling of the clocks (perf 6.1 and 7.2,
// testdata/clocks.txt, the perf record line above each): all are time
// in ns, the sched_switch samples of `-c 1` are block stacks. Was a bug
// (fixed): cpu-clock/freq=999/, the clock of the recipe that gives every
// switch-out a stack, was taken for another event without time.
func TestClockSpellingsRecorded(t *testing.T) {
	want := map[string]int{ // event as printed -> samples in the file
		"cpu-clock/freq=999/": 2, "cpu-clock/period=1000000/": 2, "cpu-clock:u": 2,
		"task-clock:ppp": 2, "cpu-clock/freq=999/u": 2, "cpu-clock/freq=999,call-graph=fp/": 2,
		"task-clock/period=500000/k": 2, "cpu-clock:uhH": 2, "software/cpu-clock/": 1,
		"sched:sched_switch": 2,
	}
	f, err := os.Open(filepath.Join("testdata", "clocks.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := map[string]int{}
	r := NewSequentialReader(f, "clocks.txt")
	for r.Scan() {
		rec := r.Record()
		if rec.Kind != KindSample {
			continue
		}
		ev := string(rec.Event)
		got[ev]++
		if sw := ev == "sched:sched_switch"; IsClockEvent(rec.Event) == sw || IsSchedSwitch(rec.Event) != sw {
			t.Errorf("line %d: %s: clock %v, sched_switch %v", rec.Line, ev, IsClockEvent(rec.Event), IsSchedSwitch(rec.Event))
		}
		if len(rec.Stack.Frames()) == 0 {
			t.Errorf("line %d: %s: no frames", rec.Line, ev)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("samples by event %v, want %v", got, want)
	}
}
