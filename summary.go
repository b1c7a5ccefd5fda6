package main

import (
	"fmt"
	"sort"

	"github.com/wallfold/wallfold/emit"
	"github.com/wallfold/wallfold/state"
)

// sumGroup gathers the parallelism story of one scope group.
type sumGroup struct {
	comm       string
	pid        int
	samples    int
	cpu, wall  float64
	start, end int64
	levels     map[int]*[2]float64
	serial     map[int]float64 // Ref -> wall at parallelism 1
}

func (p *pipeline) addSummary(s state.Sample, pid, par int, wall float64) {
	if par == 0 {
		// The idle task: its CPU time is nobody's work.
		p.idleCPU += float64(s.Period)
		p.idleSamples++
		return
	}
	key := 0
	if p.scope == state.Process {
		key = pid
		if key < 0 {
			key = s.TID
		}
	}
	g := p.sum[key]
	if g == nil {
		g = &sumGroup{comm: p.commOf(s.Ref), pid: key, start: s.Time,
			levels: map[int]*[2]float64{}, serial: map[int]float64{}}
		p.sum[key] = g
	}
	g.samples++
	if p.scope == state.Process && g.comm != p.commOf(s.Ref) {
		g.comm = p.commOf(s.Ref) // the latest name: after exec
	}
	g.cpu += float64(s.Period)
	g.wall += wall
	if s.Time < g.start {
		g.start = s.Time
	}
	if s.Time > g.end {
		g.end = s.Time
	}
	lv := g.levels[par]
	if lv == nil {
		lv = new([2]float64)
		g.levels[par] = lv
	}
	lv[0] += wall
	lv[1] += float64(s.Period)
	if par == 1 {
		g.serial[s.Ref] += wall
	}
}

// commOf returns the thread name of a sample reference.
func (p *pipeline) commOf(ref int) string {
	if p.prof != nil {
		return p.prof.CommName(p.refs[ref][1])
	}
	return p.stacks.Name(p.stacks.Frames(uint32(ref))[0])
}

// framesOf returns the function names of a reference's stack, root first,
// without the comm root.
func (p *pipeline) framesOf(ref int) []string {
	if p.prof != nil {
		return p.prof.StackNames(p.refs[ref][0])
	}
	ids := p.stacks.Frames(uint32(ref))[1:]
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = p.stacks.Name(id)
	}
	return names
}

func (p *pipeline) summaryGroups() []emit.SummaryGroup {
	var out []emit.SummaryGroup
	for _, g := range p.sum {
		name := "workload (all traced threads)"
		if p.scope == state.Process {
			name = fmt.Sprintf("process %s (pid %d)", g.comm, g.pid)
		}
		sg := emit.SummaryGroup{Name: name, Samples: g.samples, CPU: g.cpu, Wall: g.wall,
			Start: g.start, End: g.end, Levels: g.levels}
		self := map[string]float64{}
		cum := map[string]float64{}
		// In ref order: float sums must not depend on map order.
		refs := make([]int, 0, len(g.serial))
		for ref := range g.serial {
			refs = append(refs, ref)
		}
		sort.Ints(refs)
		for _, ref := range refs {
			w := g.serial[ref]
			names := p.framesOf(ref)
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
		for n, c := range cum {
			sg.Serial = append(sg.Serial, emit.FuncWeight{Name: n, Self: self[n], Cum: c})
		}
		sort.Slice(sg.Serial, func(i, j int) bool {
			// Inclusive first: the serial phase shows, not only its leaves.
			a, b := sg.Serial[i], sg.Serial[j]
			if a.Cum != b.Cum {
				return a.Cum > b.Cum
			}
			if a.Self != b.Self {
				return a.Self > b.Self
			}
			return a.Name < b.Name
		})
		out = append(out, sg)
	}
	return out
}

// withParFrame returns the stack ref with "[parallelism N]" as its root.
func (p *pipeline) withParFrame(ref uint32, par int) uint32 {
	name := p.stacks.InternName([]byte(fmt.Sprintf("[parallelism %d]", par)))
	k := [2]uint32{name, ref}
	if id, ok := p.parRoot[k]; ok {
		return id
	}
	id := p.stacks.Prepend(name, ref)
	p.parRoot[k] = id
	return id
}
