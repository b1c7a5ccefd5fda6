package emit

import (
	"fmt"
	"sort"

	"github.com/wallfold/wallfold/state"
)

// summaryGatherer gathers the parallelism story of each scope group.
type summaryGatherer struct {
	groups      map[int]*sumGroup
	idleCPU     float64 // idle samples, left out of the groups
	idleSamples int
}

type sumGroup struct {
	comm       string
	key        int
	samples    int
	cpu, wall  float64
	start, end int64
	levels     map[int]*[2]float64
	serial     map[int]float64 // Ref -> wall at parallelism 1
}

func newSummaryGatherer() *summaryGatherer {
	return &summaryGatherer{groups: make(map[int]*sumGroup)}
}

func (g *summaryGatherer) add(c *Collector, w *state.Weighted, wall float64) {
	if w.Parallelism == 0 {
		// The idle task: its CPU time is nobody's work.
		g.idleCPU += float64(w.Period)
		g.idleSamples++
		return
	}
	comm := c.commOf(w.Ref)
	sg := g.groups[w.Group]
	if sg == nil {
		sg = &sumGroup{comm: comm, key: w.Group, start: w.Time,
			levels: map[int]*[2]float64{}, serial: map[int]float64{}}
		g.groups[w.Group] = sg
	}
	sg.samples++
	sg.comm = comm // the latest name: after exec
	sg.cpu += float64(w.Period)
	sg.wall += wall
	if w.Time < sg.start {
		sg.start = w.Time
	}
	if w.Time > sg.end {
		sg.end = w.Time
	}
	lv := sg.levels[w.Parallelism]
	if lv == nil {
		lv = new([2]float64)
		sg.levels[w.Parallelism] = lv
	}
	lv[0] += wall
	lv[1] += float64(w.Period)
	if w.Parallelism == 1 {
		sg.serial[w.Ref] += wall
	}
}

// commOf returns the thread name of a sample reference.
func (c *Collector) commOf(ref int) string {
	if c.prof != nil {
		return c.prof.CommName(c.refs[ref][1])
	}
	return c.stacks.Name(c.stacks.Frames(uint32(ref))[0])
}

// framesOf returns the function names of a reference's stack, root first,
// without the comm root.
func (c *Collector) framesOf(ref int) []string {
	if c.prof != nil {
		return c.prof.StackNames(c.refs[ref][0])
	}
	ids := c.stacks.Frames(uint32(ref))[1:]
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = c.stacks.Name(id)
	}
	return names
}

func (g *summaryGatherer) list(c *Collector, scope state.Scope) []SummaryGroup {
	var out []SummaryGroup
	for _, sg := range g.groups {
		name := "workload (all traced threads)"
		if scope == state.Process {
			name = fmt.Sprintf("process %s (pid %d)", sg.comm, sg.key)
		}
		s := SummaryGroup{Name: name, Samples: sg.samples, CPU: sg.cpu, Wall: sg.wall,
			Start: sg.start, End: sg.end, Levels: sg.levels}
		self := map[string]float64{}
		cum := map[string]float64{}
		// In ref order: float sums must not depend on map order.
		refs := make([]int, 0, len(sg.serial))
		for ref := range sg.serial {
			refs = append(refs, ref)
		}
		sort.Ints(refs)
		for _, ref := range refs {
			w := sg.serial[ref]
			names := c.framesOf(ref)
			if len(names) == 0 {
				continue
			}
			self[names[len(names)-1]] += w
			seen := map[string]bool{}
			for _, n := range names {
				if !seen[n] {
					seen[n] = true
					cum[n] += w
				}
			}
		}
		for n, v := range cum {
			s.Serial = append(s.Serial, FuncWeight{Name: n, Self: self[n], Cum: v})
		}
		sort.Slice(s.Serial, func(i, j int) bool {
			// Inclusive first: the serial phase shows, not only its leaves.
			a, b := s.Serial[i], s.Serial[j]
			if a.Cum != b.Cum {
				return a.Cum > b.Cum
			}
			if a.Self != b.Self {
				return a.Self > b.Self
			}
			return a.Name < b.Name
		})
		out = append(out, s)
	}
	return out
}
