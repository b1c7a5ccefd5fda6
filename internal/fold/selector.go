package fold

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/wallfold/wallfold/emit"
	"github.com/wallfold/wallfold/parse"
)

// The one place that decides which samples are profiled: the selected
// event (--event, else the first sample's), whether it counts nanoseconds
// (a clock), its period, and which samples are block stacks.

// verdict is what a sample record is to the run.
type verdict uint8

const (
	// profiled: a sample of the selected event, CPU time at its stack.
	profiled verdict = iota
	// otherEvent: a sample of another event: a sign of life only.
	otherEvent
	// blockStack: a sched:sched_switch sample (unless that is the
	// selected event): where its thread left the CPU.
	blockStack
	// wakeup: a sched:sched_wakeup or sched_wakeup_new sample (unless
	// that is the selected event): a thread became runnable.
	wakeup
)

type selector struct {
	event     []byte // the selected event, once known
	seen      bool   // a profiled sample came
	timeBased bool   // the selected event counts ns
	period    int64  // its first sample's period
	others    map[string]int
	blocks    int // block stacks seen
	// The last event name asked of clock (traces mostly have one): a
	// comparison per sample instead of a parse.
	lastEvent []byte
	lastClock bool
	// What classify learnt of the last four event names (a trace has
	// one to four, interleaved: a clock, sched_switch, the two wakeups):
	// reading terms and modifiers anew for each sample would cost more
	// than the comparison.
	known [4]eventKind
	next  int
}

// eventKind is what an event name is to the selection.
type eventKind struct {
	name                  []byte
	sched, wanted, wakeup bool
}

func newSelector(event string) *selector {
	s := &selector{others: make(map[string]int)}
	if event != "" {
		s.event = []byte(event)
	}
	return s
}

// classify says what the sample record rec is.
func (s *selector) classify(rec *parse.Record) verdict {
	if s.event == nil {
		if parse.IsSchedSwitch(rec.Event) {
			s.blocks++
			return blockStack
		}
		if parse.IsSchedWakeup(rec.Event) {
			return wakeup // not the first sample's event: a wakeup
		}
		s.event = append([]byte(nil), parse.EventBase(rec.Event)...)
	}
	k := s.kind(rec.Event)
	if k.sched && !k.wanted {
		s.blocks++
		return blockStack
	}
	if k.wakeup && !k.wanted {
		return wakeup
	}
	if !k.wanted {
		s.others[string(rec.Event)]++
		return otherEvent
	}
	if !s.seen {
		s.seen = true
		s.timeBased = parse.IsClockEvent(rec.Event)
		s.period = int64(rec.Period)
	}
	return profiled
}

// kind says what the event ev is to the selected event (set by now).
func (s *selector) kind(ev []byte) *eventKind {
	for i := range s.known {
		if k := &s.known[i]; k.name != nil && bytes.Equal(ev, k.name) {
			return k
		}
	}
	k := &s.known[s.next]
	s.next = (s.next + 1) % len(s.known)
	k.name = append(k.name[:0], ev...)
	k.sched, k.wanted = parse.IsSchedSwitch(ev), parse.EventMatches(ev, s.event)
	k.wakeup = parse.IsSchedWakeup(ev)
	return k
}

// clock reports a sample's event as one whose period is CPU time in ns
// (the model's silence limit comes from the first sample of any event).
func (s *selector) clock(ev []byte) bool {
	if s.lastEvent == nil || !bytes.Equal(ev, s.lastEvent) {
		s.lastEvent = append(s.lastEvent[:0], ev...)
		s.lastClock = parse.IsClockEvent(ev)
	}
	return s.lastClock
}

// unitNs reports weights in ns, as the outputs name them: a clock, or no
// profiled sample at all (the usual names).
func (s *selector) unitNs() bool { return s.timeBased || !s.seen }

// format writes a weight of the profiled event for a message.
func (s *selector) format(x float64) string { return emit.FormatWeight(x, s.unitNs(), string(s.event)) }

// warnings says which samples were not profiled.
func (s *selector) warnings(offCPU bool) []string {
	var ws []string
	if s.blocks > 0 && !offCPU {
		ws = append(ws, fmt.Sprintf("%d sched:sched_switch samples are block stacks (where threads went off CPU), not CPU samples: --off-cpu charges the wait to them", s.blocks))
	}
	if len(s.others) == 0 {
		return ws
	}
	names := make([]string, 0, len(s.others))
	for ev, n := range s.others {
		names = append(names, fmt.Sprintf("%s (%d samples)", ev, n))
	}
	sort.Strings(names)
	return append(ws, fmt.Sprintf("using event %s; skipped other events: %s (choose with --event)", s.event, strings.Join(names, ", ")))
}
