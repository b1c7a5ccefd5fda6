package fold

import (
	"fmt"
	"sort"

	"github.com/wallfold/wallfold/internal/record"
	"github.com/wallfold/wallfold/parse"
	"github.com/wallfold/wallfold/state"
)

// With --off-cpu, a thread's time off CPU is charged at the stack of the
// sched:sched_switch sample taken where it left its CPU; without one, at
// its last CPU sample (a guess). perf's -F applies to the tracepoint too
// when it has no period of its own, and then only a few switch-outs get a
// sample; perf script -F +pid prints none of their callchains. The
// coverage counts, per thread, its switch-outs (switch records) and its
// sched_switch samples with a callchain, and per group once the model has
// named the thread's group: only threads whose off-CPU time the profile
// holds count (in a system-wide trace, not the rest of the machine).

// coverageMin is the share of a group's switch-outs that must have a
// stack for the profile to be mostly where threads blocked.
const coverageMin = 0.9

// coverageAll: with this share of all switch-outs stacked, the recording
// had one at each; a group's few without come from exits or losses, and
// warning of them (with a recipe already followed) would mislead.
const coverageAll = 0.99

// coverageMinOuts: a group with fewer switch-outs is not judged alone
// (a thread that exits may leave a switch record without its sample).
const coverageMinOuts = 20

// switchCount is one thread's switch-outs and block stacks.
type switchCount struct {
	outs, sampled, stacks int // switch-outs; sched_switch samples; with a callchain
	group                 int
	grouped               bool // its off-CPU time is in the profile
}

// switchCoverage counts, for --off-cpu, which switch-outs have a stack.
type switchCoverage struct {
	on     bool
	index  map[int]int32 // tid -> counts
	counts []switchCount
}

func newSwitchCoverage(offCPU bool) switchCoverage {
	return switchCoverage{on: offCPU, index: make(map[int]int32)}
}

// of returns tid's counts.
func (c *switchCoverage) of(tid int) *switchCount {
	i, ok := c.index[tid]
	if !ok {
		i = int32(len(c.counts))
		c.index[tid] = i
		c.counts = append(c.counts, switchCount{})
	}
	return &c.counts[i]
}

// switchOut notes a switch record: the line's thread leaving its CPU.
func (c *switchCoverage) switchOut(rec *parse.Record) {
	if c.on && rec.Out && rec.TID > 0 {
		c.of(rec.TID).outs++
	}
}

// blockStack notes a sched:sched_switch sample (its thread is the one
// leaving the CPU).
func (c *switchCoverage) blockStack(rec *parse.Record) {
	if !c.on || rec.TID <= 0 {
		return
	}
	n := c.of(rec.TID)
	n.sampled++
	if rec.Stack.Len() > 0 {
		n.stacks++
	}
}

// charged notes an off-CPU share the profile takes: its thread is of
// its group's workload.
func (c *switchCoverage) charged(w *state.Weighted) {
	if !c.on || w.TID <= 0 {
		return
	}
	n := c.of(w.TID)
	n.group, n.grouped = w.Group, true
}

// groupCoverage is a group's switch-outs and those with a stack.
type groupCoverage struct {
	group, outs, sampled, stacks int
}

// low: too few of the group's switch-outs have a stack (of) or a sample.
func (g groupCoverage) low(of int) bool {
	return g.outs >= coverageMinOuts && float64(of) < coverageMin*float64(g.outs)
}

func (g *groupCoverage) add(n *switchCount) {
	g.outs += n.outs
	g.sampled += n.sampled
	g.stacks += n.stacks
}

// warning says, once, how many switch-outs of the profiled threads have
// a stack, when a group has too few or the samples carry no callchain
// ("": none to give).
func (c *switchCoverage) warning() string {
	if !c.on {
		return ""
	}
	by := map[int]*groupCoverage{}
	var all groupCoverage
	for i := range c.counts {
		n := &c.counts[i]
		if !n.grouped {
			continue
		}
		g := by[n.group]
		if g == nil {
			g = &groupCoverage{group: n.group}
			by[n.group] = g
		}
		g.add(n)
		all.add(n)
	}
	var low []groupCoverage
	unsampled := false // the recording, not perf script, lacks the samples
	for _, g := range by {
		if g.low(g.stacks) {
			low = append(low, *g)
		}
		unsampled = unsampled || g.low(g.sampled)
	}
	if len(low) == 0 && all.sampled == all.stacks {
		return ""
	}
	if all.sampled == all.stacks && float64(all.stacks) >= coverageAll*float64(all.outs) {
		return "" // recorded at every switch-out: a few without (exits, losses) move nothing
	}
	sort.Slice(low, func(i, j int) bool { return lowerShare(low[i], low[j]) })
	return c.message(all, low, len(by), unsampled)
}

// lowerShare orders groups by their share of switch-outs with a stack.
func lowerShare(a, b groupCoverage) bool {
	x, y := float64(a.stacks)*float64(b.outs), float64(b.stacks)*float64(a.outs)
	if x != y {
		return x < y
	}
	return a.group < b.group
}

// message: the coverage, and what fixes it: the recording (a sample at
// every switch-out), or perf script's fields (the callchains).
func (c *switchCoverage) message(all groupCoverage, low []groupCoverage, groups int, unsampled bool) string {
	msg := fmt.Sprintf("off-CPU stacks: %d of %d switch-outs (%.1f %%) have a sched_switch stack; the rest are charged at the thread's last CPU sample", all.stacks, all.outs, percent(all.stacks, all.outs))
	if groups > 1 && len(low) > 0 {
		msg += fmt.Sprintf(" (%d of %d groups under %.0f %%, the lowest %d of %d in group %d)", len(low), groups, 100*coverageMin, low[0].stacks, low[0].outs, low[0].group)
	}
	if bare := all.sampled - all.stacks; bare > 0 {
		msg += fmt.Sprintf("; %d of %d sched:sched_switch samples carry no callchain: record with -g, and keep tracepoint stacks in perf script with -F %s (-F +pid alone drops them)", bare, all.sampled, record.ScriptFields)
	}
	if unsampled {
		msg += "; record a stack at every switch-out with " + record.OffCPURecipe
	}
	return msg
}

func percent(part, whole int) float64 {
	if whole == 0 {
		return 0
	}
	return 100 * float64(part) / float64(whole)
}
