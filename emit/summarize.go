package emit

import (
	"fmt"
	"maps"
	"slices"
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
	rootComm   string          // the name of the group's own process
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
	// the group's own process; without a pid, its main thread (tid = pid)
	if w.PID == w.Group || (w.PID < 0 && w.TID == w.Group) {
		sg.rootComm = comm
	}
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
	splits := map[int]state.Split{}
	for _, sp := range c.trace.Splits() {
		if old, ok := splits[sp.Group]; ok { // a reused pid
			old.Last = sp.Last
			old.OnCPU += sp.OnCPU
			old.Runnable += sp.Runnable
			old.Blocked += sp.Blocked
			old.CPU += sp.CPU
			sp = old
		}
		splits[sp.Group] = sp
	}
	for _, sg := range g.groups {
		name := "workload (all traced threads)"
		switch scope {
		case state.Process:
			name = fmt.Sprintf("process %s (pid %d)", sg.comm, sg.key)
		case state.Tree:
			comm := sg.rootComm
			if comm == "" {
				comm = "?"
			}
			name = fmt.Sprintf("process tree of %s (pid %d, --tree)", comm, sg.key)
		}
		s := SummaryGroup{Name: name, Samples: sg.samples, CPU: sg.cpu, Wall: sg.wall,
			Start: sg.start, End: sg.end, Levels: sg.levels}
		if sp, ok := splits[sg.key]; ok {
			s.Split, s.HasSplit = sp, true
		}
		self := map[string]float64{}
		cum := map[string]float64{}
		byComm := map[string]float64{}
		// In ref order: float sums must not depend on map order.
		for _, ref := range slices.Sorted(maps.Keys(sg.serial)) {
			w := sg.serial[ref]
			byComm[c.commOf(ref)] += w
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
		for n, v := range byComm {
			s.SerialByComm = append(s.SerialByComm, FuncWeight{Name: n, Self: v, Cum: v})
		}
		sort.Slice(s.SerialByComm, func(i, j int) bool {
			a, b := s.SerialByComm[i], s.SerialByComm[j]
			if a.Cum != b.Cum {
				return a.Cum > b.Cum
			}
			return a.Name < b.Name
		})
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

// treeHint finds, in process scope, the process tree that did most of
// the work: the deepest process whose descendants (itself included) took
// at least half of the groups' CPU time, over at least three groups.
func (g *summaryGatherer) treeHint(c *Collector) (hint TreeHint, ok bool) {
	var total, largest float64
	sub := map[int]float64{}
	count := map[int]int{}
	depth := map[int]int{}
	for key, sg := range g.groups {
		total += sg.cpu
		largest = max(largest, sg.cpu)
		p := key
		for n := 0; n < 256; n++ { // a loop of reused pids ends
			sub[p] += sg.cpu
			count[p]++
			pp, ok := c.trace.Parent(p)
			if !ok || pp <= 0 {
				break
			}
			p = pp
		}
	}
	for key := range sub {
		d := 0
		for p := key; d < 256; d++ {
			pp, ok := c.trace.Parent(p)
			if !ok || pp <= 0 {
				break
			}
			p = pp
		}
		depth[key] = d
	}
	if largest >= total/2 {
		return TreeHint{}, false // one process did most: its group says it
	}
	best := -1
	for key, cpu := range sub {
		if cpu < total/2 || count[key] < 3 || key <= 1 {
			continue
		}
		if best < 0 || depth[key] > depth[best] || (depth[key] == depth[best] && (cpu > sub[best] || cpu == sub[best] && key < best)) {
			best = key
		}
	}
	if best < 0 {
		return TreeHint{}, false
	}
	comm := "?"
	if sg := g.groups[best]; sg != nil {
		comm = sg.comm
	}
	return TreeHint{PID: best, Comm: comm, Share: 100 * sub[best] / total, Groups: count[best]}, true
}
