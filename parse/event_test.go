package parse

import "testing"

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
