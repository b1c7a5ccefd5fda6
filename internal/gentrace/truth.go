package gentrace

import (
	"math/rand/v2"
	"sort"
)

// Scopes: what a sample's parallelism counts, the threads of its process
// or all threads of the workload.
const (
	ScopeProcess  = "process"
	ScopeWorkload = "workload"
)

// Truth is what a perfect parallelism model gets from the samples.
type Truth struct {
	Scope    string             // ScopeProcess or ScopeWorkload
	Wall     float64            // ns
	ByFn     map[string]float64 // leaf function -> wall ns
	ByProc   map[string]float64 // "comm-PID" -> wall ns
	Group    map[string]float64 // scope group -> wall ns
	OnCPU    map[string]int64   // scope group -> time with ≥1 thread on CPU
	NThreads map[string]int     // scope group -> threads
	Span     int64
	// Printed: scope group -> wall from the records as printed, for a
	// skewed style (Sim.AsPrinted); nil otherwise. The caller sets it.
	Printed map[string]float64
}

// GroupOf is th's scope group: its process ("comm-PID"), or "workload".
func (tr Truth) GroupOf(th *Thread) string {
	if tr.Scope == ScopeWorkload {
		return ScopeWorkload
	}
	return th.ProcKey()
}

// Truth sets each sample's parallelism (Rec.Par) in scope and sums the
// weights.
func (s *Sim) Truth(scope string) Truth {
	tr := Truth{Scope: scope, ByFn: map[string]float64{}, ByProc: map[string]float64{},
		Group: map[string]float64{}, OnCPU: map[string]int64{}, NThreads: map[string]int{}}
	steps, nth := s.groupSteps(tr, nil)
	for g, st := range steps {
		tr.OnCPU[g], tr.NThreads[g] = st.busy(), nth[g]
	}
	for i := range s.Recs {
		r := &s.Recs[i]
		tr.Span = max(tr.Span, r.Time)
		if r.Kind != Sample {
			continue
		}
		g := tr.GroupOf(r.Thread)
		r.Par = steps[g].at(r.Time)
		w := float64(Period) / float64(r.Par)
		tr.Wall += w
		tr.ByFn[r.Fn] += w
		tr.ByProc[r.Thread.ProcKey()] += w
		tr.Group[g] += w
	}
	return tr
}

// AsPrinted is each scope group's wall as a perfect model gets it from
// the records as st prints them: every time skewed by its CPU's clock.
// Only an estimate of each CPU's offset could do better; with no skew it
// is the truth's group wall.
func (s *Sim) AsPrinted(tr Truth, st Style) map[string]float64 {
	skew := s.skews(st, rand.New(rand.NewPCG(st.Seed, 7)))
	steps, _ := s.groupSteps(tr, skew)
	wall := map[string]float64{}
	for _, r := range s.Recs {
		if r.Kind == Sample {
			g := tr.GroupOf(r.Thread)
			wall[g] += float64(Period) / float64(max(1, steps[g].at(r.Time+skew[r.CPU])))
		}
	}
	return wall
}

// groupSteps is each scope group's threads on CPU (stepsOf, with skew),
// and its number of threads.
func (s *Sim) groupSteps(tr Truth, skew []int64) (map[string]steps, map[string]int) {
	members := map[string][]*Thread{}
	for _, th := range s.Threads {
		g := tr.GroupOf(th)
		members[g] = append(members[g], th)
	}
	st, nth := map[string]steps{}, map[string]int{}
	for g, ths := range members {
		st[g], nth[g] = stepsOf(ths, skew), len(ths)
	}
	return st, nth
}

// steps is a group's number of threads on CPU as a step function.
type steps struct {
	t []int64
	n []int // running threads from t[i] until t[i+1]
}

// stepsOf counts ths on CPU, each run shifted by its CPU's skew (nil:
// none).
func stepsOf(ths []*Thread, skew []int64) steps {
	type d struct {
		t int64
		v int
	}
	var ds []d
	for _, th := range ths {
		for _, r := range th.Runs {
			var k int64
			if skew != nil {
				k = skew[r.CPU]
			}
			ds = append(ds, d{r.Start + k, 1}, d{r.End + k, -1})
		}
	}
	// Ends before starts at the same instant: [start, end) runs.
	sort.Slice(ds, func(i, j int) bool { return ds[i].t < ds[j].t || ds[i].t == ds[j].t && ds[i].v < ds[j].v })
	var st steps
	n := 0
	for _, x := range ds {
		n += x.v
		if k := len(st.t); k > 0 && st.t[k-1] == x.t {
			st.n[k-1] = n
		} else {
			st.t, st.n = append(st.t, x.t), append(st.n, n)
		}
	}
	return st
}

func (st steps) at(t int64) int {
	i := sort.Search(len(st.t), func(i int) bool { return st.t[i] > t }) - 1
	if i < 0 {
		return 0
	}
	return st.n[i]
}

func (st steps) busy() (d int64) {
	for i := 0; i+1 < len(st.t); i++ {
		if st.n[i] > 0 {
			d += st.t[i+1] - st.t[i]
		}
	}
	return d
}
