package emit

import "fmt"

// unsampled writes, when a group's switch records show noticeably more
// time on CPU than its samples (per-task recordings of fork-heavy work:
// state.UnsampledTime), how much, why, and what to do.
func (s *summaryPrinter) unsampled(g *SummaryGroup) {
	sp := g.Split
	u := sp.Unsampled
	if !g.HasSplit || !s.o.TimeBased || u.Wall <= 0 || float64(u.Wall) < 0.01*float64(sp.OnCPU) {
		return
	}
	fmt.Fprintf(s.w, "  on CPU by switch records %.3f s, by samples %.3f s: no sample covers %.3f s (CPU %.3f s of %d threads, %d of them never sampled)\n",
		float64(sp.OnCPU)/1e9, g.Wall/1e9, float64(u.Wall)/1e9, float64(u.CPU)/1e9, u.Threads, u.NoSample)
	where := "--off-cpu adds it under [unsampled] leaves"
	if s.o.OffCPU {
		where = "in the profile under [unsampled] leaves"
	}
	fmt.Fprintf(s.w, "    (a per-task recording samples each task from its fork on, a period of its CPU time at a time: its last period, and a task shorter than one, go unsampled; %s; `perf record -a` samples every CPU instead, then --tree=PID)\n", where)
}
