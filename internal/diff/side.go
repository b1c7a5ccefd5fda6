package diff

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/wallfold/wallfold/emit"
	"github.com/wallfold/wallfold/internal/fold"
)

// Weights are wall and CPU time (nanoseconds), or for an event that
// counts no time its count divided by the parallelism and its count.
type Weights struct{ Wall, CPU float64 }

func (w Weights) add(o Weights) Weights { return Weights{w.Wall + o.Wall, w.CPU + o.CPU} }
func (w Weights) sub(o Weights) Weights { return Weights{w.Wall - o.Wall, w.CPU - o.CPU} }

// Parallelism is CPU over wall: the average number of the group's
// threads on a CPU while this time passed; 0 without wall time.
func (w Weights) Parallelism() float64 {
	if w.Wall <= 0 {
		return 0
	}
	return w.CPU / w.Wall
}

// Side is one profile of a comparison: the weights of each stack, keyed
// by its folded form, root;...;leaf, the root the command.
type Side struct {
	Name   string // the file, for messages
	Stacks map[string]Weights
	// Event is the profiled event; TimeBased: weights in nanoseconds.
	Event     string
	TimeBased bool
}

// NewSide returns an empty side.
func NewSide(name, event string, timeBased bool) *Side {
	return &Side{Name: name, Stacks: make(map[string]Weights), Event: event, TimeBased: timeBased}
}

// Add adds weights to a stack.
func (s *Side) Add(stack string, w Weights) { s.Stacks[stack] = s.Stacks[stack].add(w) }

// Total is the sum over all stacks.
func (s *Side) Total() Weights {
	var t Weights
	for _, w := range s.Stacks {
		t = t.add(w)
	}
	return t
}

// FromStacks is the side of a run that read a trace into folded stacks:
// the same float sums its folded lines are rounded from.
func FromStacks(name string, st fold.StackTotals) *Side {
	s := NewSide(name, st.Event, st.TimeBased)
	t := st.Totals
	var b strings.Builder
	for id := range t.Wall {
		if t.N[id] == 0 && t.Wall[id] == 0 {
			continue
		}
		frames := st.Stacks.Frames(uint32(id))
		if len(frames) == 0 {
			continue
		}
		b.Reset()
		for i, f := range frames {
			if i > 0 {
				b.WriteByte(';')
			}
			b.WriteString(st.Stacks.Name(f))
		}
		s.Add(b.String(), Weights{t.Wall[id], float64(t.CPU[id])})
	}
	return s
}

// compatible says why two sides cannot be compared: weights of different
// units.
func compatible(before, after *Side) error {
	switch {
	case before.TimeBased != after.TimeBased:
		return fmt.Errorf("%s counts %s, %s counts %s: compare profiles of the same event (record both with -e cpu-clock, the default)",
			before.Name, unitName(before), after.Name, unitName(after))
	case !before.TimeBased && emit.SafeName(before.Event) != emit.SafeName(after.Event):
		return fmt.Errorf("%s counts %s, %s counts %s: compare profiles of the same event", before.Name, unitName(before), after.Name, unitName(after))
	}
	return nil
}

func unitName(s *Side) string {
	if s.TimeBased {
		return "time (" + s.Event + ")"
	}
	return "events " + s.Event
}

// Focus keeps the stacks with a frame that re matches (as go tool pprof
// -focus): the sides' totals are then those of the stacks kept.
func (s *Side) Focus(re *regexp.Regexp) {
	for stack := range s.Stacks {
		keep := false
		for _, f := range strings.Split(stack, ";") {
			if re.MatchString(f) {
				keep = true
				break
			}
		}
		if !keep {
			delete(s.Stacks, stack)
		}
	}
}
