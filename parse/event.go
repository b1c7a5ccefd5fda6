package parse

import (
	"bytes"
	"strings"
)

// MaxPeriod bounds a sample's period (2^40 ns is 18 minutes): beyond it
// the line is corrupt, and sums of periods could overflow. Such a sample
// is a syntax error.
const MaxPeriod = 1 << 40

// eventModifiers are the letters perf appends after a ':' to an event
// name (cycles:u, cpu-clock:uhH, cycles:ppp), or after the closing '/'
// of its terms (cpu-clock/freq=999/u).
const eventModifiers = "ukhHGIpPSDWeb"

// samplingTerms are the terms of `-e NAME/TERMS/` that say how an event
// is sampled, not which event it is (perf's config terms): with only
// these, cpu-clock/freq=999/ is still cpu-clock. Other terms
// (cpu/event=0x3c/, msr/tsc/) name the event: such a name is kept whole.
var samplingTerms = []string{"period", "freq", "call-graph", "stack-size", "max-stack",
	"inherit", "no-inherit", "overwrite", "no-overwrite", "time", "branch_type", "nr",
	"percore", "aux-output", "aux-action", "aux-sample-size", "driver-config", "metric-id", "cpu"}

// EventBase strips perf's event modifiers ("cycles:u" -> "cycles",
// "cpu-clock:uhH" -> "cpu-clock") and sampling terms
// ("cpu-clock/freq=999/" -> "cpu-clock", "software/cpu-clock,period=1/u"
// -> "cpu-clock") but keeps tracepoint names ("sched:sched_switch") and
// events named by their terms ("cpu/event=0x3c/u") whole.
func EventBase(ev []byte) []byte {
	ev = stripModifiers(ev)
	slash := bytes.IndexByte(ev, '/')
	if slash < 0 {
		return ev
	}
	end := bytes.LastIndexByte(ev, '/')
	if end == slash || !modifiersOnly(ev[end+1:]) {
		return ev
	}
	name, terms := ev[:slash], ev[slash+1:end]
	if string(name) == "software" {
		// perf 7's PMU spelling of a software event: software/cpu-clock/
		event, rest, _ := bytes.Cut(terms, []byte(","))
		if len(event) > 0 && bytes.IndexByte(event, '=') < 0 && samplingOnly(rest) {
			return event
		}
		return ev
	}
	if len(name) == 0 || !samplingOnly(terms) {
		return ev
	}
	return name
}

// stripModifiers removes a trailing ":MODIFIERS".
func stripModifiers(ev []byte) []byte {
	i := bytes.LastIndexByte(ev, ':')
	if i < 0 || !modifiersOnly(ev[i+1:]) {
		return ev
	}
	return ev[:i]
}

func modifiersOnly(b []byte) bool {
	for _, c := range b {
		if strings.IndexByte(eventModifiers, c) < 0 {
			return false
		}
	}
	return true
}

// samplingOnly reports comma-separated terms that are all sampling
// terms (none: true).
func samplingOnly(terms []byte) bool {
	for len(terms) > 0 {
		var term []byte
		term, terms, _ = bytes.Cut(terms, []byte(","))
		key, _, _ := bytes.Cut(term, []byte("="))
		if !isSamplingTerm(key) {
			return false
		}
	}
	return true
}

func isSamplingTerm(key []byte) bool {
	for _, t := range samplingTerms {
		if string(key) == t {
			return true
		}
	}
	return false
}

// EventMatches compares a sample's event with a selected one: exactly when
// the selection names modifiers or terms, else by base name, as inferno
// does ("cycles" matches "cycles:u", "cpu-clock" cpu-clock/freq=999/).
func EventMatches(ev, want []byte) bool {
	return bytes.Equal(ev, want) || bytes.Equal(EventBase(ev), want)
}

// IsClockEvent reports events whose period is time in nanoseconds: the
// software clocks, whatever their modifiers and sampling terms.
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
