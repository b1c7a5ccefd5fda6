package emit

import (
	"fmt"
	"strings"
)

// Labels says which labels pprof samples carry, all of them strings (the
// engines that fleets use, Pyroscope and Parca, keep only string labels).
// Each distinct label set is a series there: pid and tid multiply them.
type Labels struct {
	Comm, Parallelism, State, PID, TID bool
	// Waker: on blocked time a wakeup ended, who woke the thread (a
	// command, or interrupt): as few values as commands.
	Waker bool
}

// DefaultLabels is comm, parallelism, state and waker.
var DefaultLabels = Labels{Comm: true, Parallelism: true, State: true, Waker: true}

var labelNames = []string{"comm", "parallelism", "state", "pid", "tid", "waker"}

func (l *Labels) field(name string) *bool {
	switch name {
	case "comm":
		return &l.Comm
	case "parallelism":
		return &l.Parallelism
	case "state":
		return &l.State
	case "pid":
		return &l.PID
	case "tid":
		return &l.TID
	case "waker":
		return &l.Waker
	}
	return nil
}

// UnmarshalText decodes a comma-separated list of label names (for
// flags); "none" or "" is no label.
func (l *Labels) UnmarshalText(b []byte) error {
	*l = Labels{}
	s := strings.TrimSpace(string(b))
	if s == "" || s == "none" {
		return nil
	}
	for _, name := range strings.Split(s, ",") {
		f := l.field(strings.TrimSpace(name))
		if f == nil {
			return fmt.Errorf("label %q: want a list of %s", name, strings.Join(labelNames, ", "))
		}
		*f = true
	}
	return nil
}

func (l Labels) String() string {
	var names []string
	for _, n := range labelNames {
		if *l.field(n) {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ",")
}

// SafeName makes an event name a sample type name that every engine
// takes: letters, digits and '_' (cpu-cycles: cpu_cycles,
// sched:sched_switch: sched_sched_switch).
func SafeName(event string) string {
	b := []byte(event)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "event"
	}
	return string(b)
}
