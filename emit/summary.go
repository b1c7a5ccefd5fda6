package emit

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/wallfold/wallfold/state"
)

// SummaryGroup is the parallelism story of one scope group: the whole
// workload, or one process.
type SummaryGroup struct {
	Name       string
	Samples    int
	CPU, Wall  float64 // in period units
	Start, End int64   // ns, first and last sample
	// Levels maps a parallelism to the wall and cpu weight spent at it.
	Levels map[int]*[2]float64
	// Serial are the functions that ran at parallelism 1, by wall weight;
	// SerialByComm the same by thread name (Self = Cum).
	Serial       []FuncWeight
	SerialByComm []FuncWeight
	// Split is how the group's span divided (HasSplit: the model said).
	Split    state.Split
	HasSplit bool
	// Spin is the group's spin-wait samples (state.Weighted.Spin).
	Spin SpinWeight
	// Comm is the command of the group's process (thread scope: thread),
	// what --merge=comm joins groups by.
	Comm string
	// Merged is how many groups this one joins (--merge=comm; 0: one),
	// Spans the sum of their spans (Split sums their parts).
	Merged int
	Spans  int64
	// Wakers: whose wakeups ended its blocked time, the most first.
	Wakers []state.WakerTime
}

// span is the group's span: with Merged, the sum of its groups'.
func (g *SummaryGroup) span() int64 {
	if g.Merged > 1 {
		return g.Spans
	}
	return g.Split.Span()
}

// SpinWeight is what spin-wait samples weigh: CPU, wall with the spin
// rule, and Plain, the wall they would weigh counted as work.
type SpinWeight struct{ CPU, Wall, Plain float64 }

// TreeHint names the process tree that did most of a system-wide trace's
// work (process scope): --tree makes it one group.
type TreeHint struct {
	PID, Groups int
	Comm        string
	Share       float64 // % of the groups' CPU time
}

// FuncWeight is a function's self and cumulative (inclusive) weight.
type FuncWeight struct {
	Name      string
	Self, Cum float64
}

// SummaryOptions says how to print.
type SummaryOptions struct {
	TimeBased bool   // weights are nanoseconds: print seconds
	Unit      string // for other events, e.g. "cycles"
	Unicode   bool   // block bars (a terminal) or '#'
	TopN      int    // serial functions per group (0: 10)
	TopGroups int    // groups in full (0: 4)
	// Idle samples (the idle task, tid 0) are counted in no group.
	IdleSamples int
	IdleCPU     float64
	Tree        *TreeHint
	OffCPU      bool // the profile has the off-CPU shares (--off-cpu)
	// SplitWhole: the splits are the whole trace's, though --time cut
	// the rest (a window in percent on a pipe).
	SplitWhole bool
	// Merge joins groups (Summarizer.WriteTo); Thread says each group
	// is a thread (thread scope): its parallelism is 1, not shown.
	Merge  Merge
	Thread bool
	Wakers *WakerNames // names the groups' wakers
}

// WriteSummary prints the groups, largest wall first, then the warnings.
func WriteSummary(w io.Writer, groups []SummaryGroup, o SummaryOptions, warnings []string) error {
	// Ties (small processes with equal wall) in a fixed order: the
	// groups come from a map.
	sort.SliceStable(groups, func(i, j int) bool {
		a, b := groups[i], groups[j]
		if a.Wall != b.Wall {
			return a.Wall > b.Wall
		}
		if a.Start != b.Start {
			return a.Start < b.Start
		}
		return a.Name < b.Name
	})
	if o.TopN == 0 {
		o.TopN = 10
	}
	if o.TopGroups <= 0 {
		o.TopGroups = 4
	}
	sw := &summaryPrinter{w: bufio.NewWriter(w), o: o}
	if len(groups) == 0 {
		fmt.Fprintln(sw.w, "no samples")
	}
	for gi := range groups {
		if gi == o.TopGroups {
			sw.rest(groups[gi:])
			break
		}
		if gi > 0 {
			fmt.Fprintln(sw.w)
		}
		g := &groups[gi]
		sw.totals(g)
		if !o.Thread { // a thread's parallelism is 1
			sw.levels(g)
		}
		sw.serial(g)
	}
	sw.notes(warnings)
	return sw.w.Flush()
}

// summaryPrinter writes a summary's parts.
type summaryPrinter struct {
	w *bufio.Writer
	o SummaryOptions
}

// val formats a weight: seconds, or a count of the event's unit.
func (s *summaryPrinter) val(x float64) string { return FormatWeight(x, s.o.TimeBased, s.o.Unit) }

// rest writes one line for the groups not shown in full.
func (s *summaryPrinter) rest(groups []SummaryGroup) {
	var cpu, wall float64
	var sum state.Split
	var spans int64
	for _, r := range groups {
		cpu += r.CPU
		wall += r.Wall
		if r.HasSplit {
			spans += r.span()
			sum.OnCPU += r.Split.OnCPU
			sum.Runnable += r.Split.Runnable
			sum.Blocked += r.Split.Blocked
		}
	}
	split := ""
	if spans > 0 { // thousands of threads: where their time went
		split = fmt.Sprintf("; spans %.3f s = on CPU %.3f s + runnable %.3f s + blocked %.3f s",
			float64(spans)/1e9, float64(sum.OnCPU)/1e9, float64(sum.Runnable)/1e9, float64(sum.Blocked)/1e9)
	}
	fmt.Fprintf(s.w, "\n... and %d more groups (CPU %s, wall %s%s): --top=N shows N groups\n", len(groups), s.val(cpu), s.val(wall), split)
}

// totals writes a group's name, span, samples and weights, average
// parallelism and time off CPU.
func (s *summaryPrinter) totals(g *SummaryGroup) {
	bw, o, val := s.w, s.o, s.val
	fmt.Fprintf(bw, "%s\n", g.Name)
	if sp := g.Split; g.HasSplit && g.span() > 0 {
		span := float64(g.span())
		pct := func(x int64) float64 { return 100 * float64(x) / span }
		if o.SplitWhole {
			fmt.Fprintf(bw, "  (the whole trace's span: on a pipe a --time in percent is known only at the end)\n")
		}
		label := "span"
		if g.Merged > 1 {
			label = fmt.Sprintf("span (sum of %d)", g.Merged)
		}
		fmt.Fprintf(bw, "  %s: %.3f s = on CPU %.3f s (%.1f%%) + runnable %.3f s (%.1f%%) + blocked %.3f s (%.1f%%)\n",
			label, span/1e9, float64(sp.OnCPU)/1e9, pct(sp.OnCPU), float64(sp.Runnable)/1e9, pct(sp.Runnable),
			float64(sp.Blocked)/1e9, pct(sp.Blocked))
	}
	s.perGroup(g)
	if g.HasSplit && g.span() > 0 {
		// the span is on the line above: the samples' own first to last
		// would be a second, slightly shorter span
		fmt.Fprintf(bw, "  samples: %d   CPU: %s   wall (on CPU): %s\n", g.Samples, val(g.CPU), val(g.Wall))
	} else {
		fmt.Fprintf(bw, "  samples: %d   CPU: %s   wall (on CPU): %s   span: %.3f s\n",
			g.Samples, val(g.CPU), val(g.Wall), float64(g.End-g.Start)/1e9)
	}
	s.unsampled(g)
	s.wakers(g)
	if !o.Thread {
		avg := 0.0
		if g.Wall > 0 {
			avg = g.CPU / g.Wall
		}
		fmt.Fprintf(bw, "  average parallelism while on CPU: %.2f\n", avg)
	}
	if sp := g.Spin; sp.CPU > 0 {
		fmt.Fprintf(bw, "  spin-waits: CPU %s (%.1f%%) of threads spinning while they wait: wall %s, %s counted as work (--spin=none)\n",
			val(sp.CPU), share(sp.CPU, g.CPU), val(sp.Wall), val(sp.Plain))
	}
	if sp := g.Split; g.HasSplit && g.span() > 0 && float64(sp.Runnable+sp.Blocked) > 0.1*float64(g.span()) {
		where := "--off-cpu adds it to the profile at the stacks that waited"
		if o.OffCPU {
			where = "in the profile under [blocked] and [runnable] leaves"
		}
		fmt.Fprintf(bw, "  off CPU %.1f%% of the span (no thread ran): %s\n",
			100*float64(sp.Runnable+sp.Blocked)/float64(g.span()), where)
	}
}

// levels writes a group's wall and cpu shares by parallelism, as bars.
func (s *summaryPrinter) levels(g *SummaryGroup) {
	bw, o := s.w, s.o
	levels := slices.Sorted(maps.Keys(g.Levels))
	fmt.Fprintf(bw, "  %11s  %-29s %s\n", "parallelism", "wall", "cpu")
	for _, p := range levels {
		lv := g.Levels[p]
		ws, cs := share(lv[0], g.Wall), share(lv[1], g.CPU)
		label := fmt.Sprint(p)
		if p == 0 {
			label = "idle"
		}
		fmt.Fprintf(bw, "  %11s  %5.1f%% %s  %5.1f%% %s\n", label, ws, pad(bar(ws, 20, o.Unicode), 20), cs, bar(cs, 20, o.Unicode))
	}
}

// serial writes the functions and commands of a group that ran at
// parallelism 1.
func (s *summaryPrinter) serial(g *SummaryGroup) {
	bw, o, val := s.w, s.o, s.val
	if len(g.Serial) > 0 {
		if o.Thread {
			fmt.Fprintf(bw, "  on CPU, top by time (total = inclusive):\n")
		} else {
			fmt.Fprintf(bw, "  serial (parallelism 1), top by wall time (total = inclusive):\n")
		}
		fmt.Fprintf(bw, "    %12s %6s %12s %6s  %s\n", "self", "self%", "total", "total%", "function")
		for i, f := range g.Serial {
			if i == o.TopN {
				break
			}
			fmt.Fprintf(bw, "    %12s %5.1f%% %12s %5.1f%%  %s\n", val(f.Self), share(f.Self, g.Wall), val(f.Cum), share(f.Cum, g.Wall), f.Name)
		}
	}
	if len(g.SerialByComm) > 1 {
		fmt.Fprintf(bw, "  serial by command:\n")
		for i, f := range g.SerialByComm {
			if i == o.TopN {
				break
			}
			fmt.Fprintf(bw, "    %12s %5.1f%%  %s\n", val(f.Cum), share(f.Cum, g.Wall), f.Name)
		}
	}
}

// notes writes what follows the groups: the process tree hint, the idle
// samples and the warnings.
func (s *summaryPrinter) notes(warnings []string) {
	bw, o := s.w, s.o
	if h := o.Tree; h != nil {
		fmt.Fprintf(bw, "\n%.0f%% of the CPU time ran in the process tree of %s (pid %d, %d processes): --tree=%d counts it as one group\n",
			h.Share, h.Comm, h.PID, h.Groups, h.PID)
	}
	if o.IdleSamples > 0 {
		fmt.Fprintf(bw, "\nidle (tid 0, swapper): %d samples, CPU %s, in no group above\n", o.IdleSamples, s.val(o.IdleCPU))
	}
	if len(warnings) > 0 {
		fmt.Fprintln(bw)
		for _, wn := range warnings {
			fmt.Fprintf(bw, "warning: %s\n", strings.ReplaceAll(wn, "\n", "\n  "))
		}
	}
}

func share(x, of float64) float64 {
	if of == 0 {
		return 0
	}
	return 100 * x / of
}

// bar draws pct (0..100) in width cells; Unicode bars have eighths.
func bar(pct float64, width int, unicode bool) string {
	cells := pct / 100 * float64(width)
	if !unicode {
		return strings.Repeat("#", int(cells+0.5))
	}
	full := int(cells)
	rest := int((cells - float64(full)) * 8)
	s := strings.Repeat("█", full)
	if rest > 0 && full < width {
		s += string([]rune("▏▎▍▌▋▊▉")[rest-1])
	}
	return s
}

// pad pads s with spaces to width runes.
func pad(s string, width int) string {
	n := len([]rune(s))
	if n >= width {
		return s
	}
	return s + strings.Repeat(" ", width-n)
}
