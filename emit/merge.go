package emit

import (
	"fmt"
	"maps"
	"slices"
	"sort"
)

// Merge says which of the summary's groups are told as one: none, or
// those whose process (in thread scope: thread) has the same command, as
// perf report --sort comm does (all postgres backends as one). Each group
// keeps its own parallelism; merging only sums what the groups' lines
// say. Folded, svg, top and pprof sum by command already: their root
// frame (label) is the thread's command, unless --pid or --tid split it.
type Merge uint8

const (
	MergeNone Merge = iota
	MergeComm
)

// UnmarshalText decodes "none" or "comm" (for flags).
func (m *Merge) UnmarshalText(b []byte) error {
	switch string(b) {
	case "none", "":
		*m = MergeNone
	case "comm":
		*m = MergeComm
	default:
		return fmt.Errorf("merge %q: want comm or none", b)
	}
	return nil
}

func (m Merge) String() string {
	if m == MergeComm {
		return "comm"
	}
	return "none"
}

// mergeByComm joins the groups with the same Comm into one, which says
// how many it joined (Merged) and their sums; a command of one group
// keeps its group as it was. groupsAre names the groups ("processes",
// "threads").
func mergeByComm(groups []SummaryGroup, groupsAre string) []SummaryGroup {
	byComm := map[string][]int{}
	for i := range groups {
		byComm[groups[i].Comm] = append(byComm[groups[i].Comm], i)
	}
	var out []SummaryGroup
	for _, comm := range slices.Sorted(maps.Keys(byComm)) {
		idx := byComm[comm]
		if len(idx) == 1 {
			out = append(out, groups[idx[0]])
			continue
		}
		m := SummaryGroup{Name: fmt.Sprintf("%s: %d %s merged (--merge=comm)", comm, len(idx), groupsAre),
			Comm: comm, Merged: len(idx), Levels: map[int]*[2]float64{}, Start: 1 << 62}
		serial, byName := map[string]*FuncWeight{}, map[string]*FuncWeight{}
		for _, i := range idx {
			addGroup(&m, &groups[i], serial, byName)
		}
		m.Serial = sortedWeights(serial)
		m.SerialByComm = sortedWeights(byName)
		out = append(out, m)
	}
	return out
}

// addGroup adds g's sums to the merged group m (serial functions and
// commands by name).
func addGroup(m, g *SummaryGroup, serial, byName map[string]*FuncWeight) {
	m.Samples += g.Samples
	m.CPU += g.CPU
	m.Wall += g.Wall
	m.Start, m.End = min(m.Start, g.Start), max(m.End, g.End)
	for p, lv := range g.Levels {
		if m.Levels[p] == nil {
			m.Levels[p] = new([2]float64)
		}
		m.Levels[p][0] += lv[0]
		m.Levels[p][1] += lv[1]
	}
	for _, f := range g.Serial {
		addWeight(serial, f)
	}
	for _, f := range g.SerialByComm {
		addWeight(byName, f)
	}
	m.Spin.CPU += g.Spin.CPU
	m.Spin.Wall += g.Spin.Wall
	m.Spin.Plain += g.Spin.Plain
	m.Wakers = addWakers(m.Wakers, g.Wakers)
	if g.HasSplit {
		sp := &m.Split
		if !m.HasSplit {
			sp.First, sp.Last = g.Split.First, g.Split.Last
		}
		m.HasSplit = true
		m.Spans += g.Split.Span()
		sp.First, sp.Last = min(sp.First, g.Split.First), max(sp.Last, g.Split.Last)
		sp.OnCPU += g.Split.OnCPU
		sp.Runnable += g.Split.Runnable
		sp.Blocked += g.Split.Blocked
		sp.CPU += g.Split.CPU
		sp.Unsampled = sp.Unsampled.Add(g.Split.Unsampled)
	}
}

func addWeight(to map[string]*FuncWeight, f FuncWeight) {
	w := to[f.Name]
	if w == nil {
		w = &FuncWeight{Name: f.Name}
		to[f.Name] = w
	}
	w.Self += f.Self
	w.Cum += f.Cum
}

// sortedWeights lists the weights, inclusive first (as Summarizer.list).
func sortedWeights(m map[string]*FuncWeight) []FuncWeight {
	out := make([]FuncWeight, 0, len(m))
	for _, w := range m {
		out = append(out, *w)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Cum != b.Cum {
			return a.Cum > b.Cum
		}
		if a.Self != b.Self {
			return a.Self > b.Self
		}
		return a.Name < b.Name
	})
	return out
}

// perGroup writes a merged group's span and times divided by its groups:
// the time of one backend, one request path.
func (s *summaryPrinter) perGroup(g *SummaryGroup) {
	if g.Merged < 2 {
		return
	}
	n := float64(g.Merged)
	sp := g.Split
	if g.HasSplit && g.Spans > 0 {
		fmt.Fprintf(s.w, "  per group (sum / %d): span %.3f s = on CPU %.3f s + runnable %.3f s + blocked %.3f s; CPU %s, wall (on CPU) %s\n",
			g.Merged, float64(g.Spans)/n/1e9, float64(sp.OnCPU)/n/1e9, float64(sp.Runnable)/n/1e9, float64(sp.Blocked)/n/1e9,
			s.val(g.CPU/n), s.val(g.Wall/n))
		return
	}
	fmt.Fprintf(s.w, "  per group (sum / %d): CPU %s, wall (on CPU) %s\n", g.Merged, s.val(g.CPU/n), s.val(g.Wall/n))
}
