package parse

import "bytes"

// MaxPeriod bounds a sample's period (2^40 ns is 18 minutes): beyond it
// the line is corrupt, and sums of periods could overflow. Such a sample
// is a syntax error.
const MaxPeriod = 1 << 40

// eventModifiers are the letters perf appends after a ':' to an event
// name (cycles:u, cpu-clock:uhH, cycles:ppp).
const eventModifiers = "ukhHGIpPSDWeb"

// EventBase strips perf's event modifiers ("cycles:u" -> "cycles",
// "cpu-clock:uhH" -> "cpu-clock") but keeps tracepoint names whole
// ("sched:sched_switch").
func EventBase(ev []byte) []byte {
	i := bytes.LastIndexByte(ev, ':')
	if i < 0 {
		return ev
	}
	for _, c := range ev[i+1:] {
		if bytes.IndexByte([]byte(eventModifiers), c) < 0 {
			return ev
		}
	}
	return ev[:i]
}

// EventMatches compares a sample's event with a selected one: exactly when
// the selection names modifiers, else by base name, as inferno does
// ("cycles" matches "cycles:u").
func EventMatches(ev, want []byte) bool {
	return bytes.Equal(ev, want) || bytes.Equal(EventBase(ev), want)
}

// IsClockEvent reports events whose period is time in nanoseconds.
func IsClockEvent(ev []byte) bool {
	b := EventBase(ev)
	return string(b) == "cpu-clock" || string(b) == "task-clock"
}

// IsSchedSwitch reports the sched:sched_switch tracepoint: its samples
// are taken where a task leaves its CPU (the callchain is where it
// blocked), not where CPU time went.
func IsSchedSwitch(ev []byte) bool {
	return string(EventBase(ev)) == "sched:sched_switch"
}
