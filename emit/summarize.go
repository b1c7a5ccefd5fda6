package emit

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"

	"github.com/wallfold/wallfold/state"
)

// Summarizer gathers the parallelism story of each scope group from the
// samples on CPU, for WriteSummary (the Summary format, or --summary
// beside another).
type Summarizer struct {
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
	serial     map[uint32]float64 // Ref -> wall at parallelism 1
	rootComm   string             // the name of the group's own process
	pid        int                // the latest sample's process
	spin       SpinWeight
}

// NewSummarizer returns an empty Summarizer.
func NewSummarizer() *Summarizer {
	return &Summarizer{groups: make(map[int]*sumGroup)}
}

// Add takes a sample on CPU; names tells its thread's name, as the
// output shows it (Rooted).
func (g *Summarizer) Add(w *Sample, names Namer) {
	if w.Parallelism == 0 {
		// The idle task: its CPU time is nobody's work.
		g.idleCPU += float64(w.Period)
		g.idleSamples++
		return
	}
	ref := w.Ref
	if rt, ok := names.(Rooted); ok {
		ref = rt.Rooted(ref, w.PID, w.TID)
	}
	comm := names.Comm(ref)
	sg := g.groups[w.Group]
	if sg == nil {
		sg = &sumGroup{comm: comm, key: w.Group, start: w.Time,
			levels: map[int]*[2]float64{}, serial: map[uint32]float64{}}
		g.groups[w.Group] = sg
	}
	sg.samples++
	sg.comm = comm // the latest name: after exec
	sg.pid = w.PID
	// the group's own process; without a pid, its main thread (tid = pid)
	if w.PID == w.Group || (w.PID < 0 && w.TID == w.Group) {
		sg.rootComm = comm
	}
	sg.cpu += float64(w.Period)
	sg.wall += w.Wall
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
	lv[0] += w.Wall
	lv[1] += float64(w.Period)
	if w.Spin {
		sg.spin.CPU += float64(w.Period)
		sg.spin.Wall += w.Wall
		sg.spin.Plain += float64(w.Period) / float64(max(w.Parallelism, 1))
	}
	if w.Parallelism == 1 {
		sg.serial[ref] += w.Wall
	}
}

// Name takes a share of off-CPU time (--off-cpu): a group whose threads
// were never sampled on CPU (a thread that only waited, in thread scope)
// is still told, by the name of its stack, with its split.
func (g *Summarizer) Name(w *Sample, names Namer) {
	if w.State != state.Blocked && w.State != state.Runnable || g.groups[w.Group] != nil {
		return
	}
	comm := names.Comm(w.Ref)
	sg := &sumGroup{comm: comm, key: w.Group, pid: w.PID, start: w.Time, end: w.Time,
		levels: map[int]*[2]float64{}, serial: map[uint32]float64{}}
	if w.PID == w.Group {
		sg.rootComm = comm
	}
	g.groups[w.Group] = sg
}

// WriteTo writes the summary of the groups, then end's warnings.
func (g *Summarizer) WriteTo(w io.Writer, names Namer, end *End) error {
	o := end.Summary
	o.IdleSamples, o.IdleCPU = g.idleSamples, g.idleCPU
	if end.Trace.Scope == state.Process && o.Merge == MergeNone {
		if h, ok := g.treeHint(end.Trace.Parents); ok {
			o.Tree = &h
		}
	}
	o.Thread = end.Trace.Scope == state.Thread
	groups := g.list(names, &end.Trace)
	if o.Merge == MergeComm {
		are := "processes"
		if o.Thread {
			are = "threads"
		}
		groups = mergeByComm(groups, are)
	}
	return WriteSummary(w, groups, o, end.Warnings)
}

func (g *Summarizer) list(names Namer, tr *state.Result) []SummaryGroup {
	var out []SummaryGroup
	splits := map[int]state.Split{}
	for _, sp := range tr.Splits {
		if old, ok := splits[sp.Group]; ok { // a reused pid
			old.Last = sp.Last
			old.OnCPU += sp.OnCPU
			old.Runnable += sp.Runnable
			old.Blocked += sp.Blocked
			old.CPU += sp.CPU
			old.Unsampled = old.Unsampled.Add(sp.Unsampled)
			old.Before += sp.Before
			sp = old
		}
		splits[sp.Group] = sp
	}
	for _, sg := range g.groups {
		name := "workload (all traced threads)"
		comm := sg.comm
		switch tr.Scope {
		case state.Process:
			name = fmt.Sprintf("process %s (pid %d)", sg.comm, sg.key)
			if sg.rootComm != "" {
				comm = sg.rootComm // the process's, not a named thread's
			}
		case state.Thread:
			name = fmt.Sprintf("thread %s (tid %d, pid %d)", sg.comm, sg.key, sg.pid)
		case state.Tree:
			root := sg.rootComm
			if root == "" {
				root = "?"
			}
			name = fmt.Sprintf("process tree of %s (pid %d, --tree)", root, sg.key)
		}
		s := SummaryGroup{Name: name, Samples: sg.samples, CPU: sg.cpu, Wall: sg.wall,
			Start: sg.start, End: sg.end, Levels: sg.levels, Spin: sg.spin, Comm: comm}
		if sp, ok := splits[sg.key]; ok {
			s.Split, s.HasSplit = sp, true
		}
		s.Wakers = wakersOf(tr.Wakers, sg.key)
		self := map[string]float64{}
		cum := map[string]float64{}
		byComm := map[string]float64{}
		// In ref order: float sums must not depend on map order.
		for _, ref := range slices.Sorted(maps.Keys(sg.serial)) {
			w := sg.serial[ref]
			byComm[names.Comm(ref)] += w
			frames := names.Frames(ref)
			if len(frames) == 0 {
				continue
			}
			self[frames[len(frames)-1]] += w
			seen := map[string]bool{}
			for _, n := range frames {
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
func (g *Summarizer) treeHint(parents map[int]int) (hint TreeHint, ok bool) {
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
			pp, ok := parents[p]
			if !ok || pp <= 0 {
				break
			}
			p = pp
		}
	}
	for key := range sub {
		d := 0
		for p := key; d < 256; d++ {
			pp, ok := parents[p]
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

// summaryWriter is the Summary format: stacks for the names, the story
// for the output.
type summaryWriter struct {
	*stackWriter
	sum *Summarizer
}

func (w *summaryWriter) Add(s *Sample) {
	if s.State == state.OnCPU {
		w.sum.Add(s, w)
	} else {
		w.sum.Name(s, w)
	}
}

func (w *summaryWriter) WriteTo(out io.Writer, end *End) error { return w.sum.WriteTo(out, w, end) }
