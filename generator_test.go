package main

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wallfold/wallfold/internal/gentrace"
)

// wallfold judged end to end against the generator's truth
// (internal/gentrace): the CLI reads each generated trace as a user's
// would, so every layer between the text and the folded output counts.

// traceFile writes text to a temporary file.
func traceFile(t testing.TB, text []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "gen.txt")
	if err := os.WriteFile(p, text, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// answer is wallfold's answer on a generated trace, in ns.
type answer struct {
	wall         float64
	byFn, byProc map[string]float64 // leaf function, root frame "comm-PID"
	stderr       string
}

// runOnText runs wallfold --weight=wall --pid in the style's scope, on a
// file or on stdin.
func runOnText(t *testing.T, text []byte, st gentrace.Style, stdin bool) answer {
	t.Helper()
	args := []string{"--weight=wall", "--scope=" + st.Scope(), "--pid"}
	in := bytes.NewReader(nil)
	if stdin {
		in.Reset(text)
	} else {
		args = append(args, traceFile(t, text))
	}
	var out, errs bytes.Buffer
	if code := run(args, in, &out, &errs); code != 0 {
		t.Fatalf("wallfold %v: exit %d: %s", args, code, errs.String())
	}
	res := answer{byFn: map[string]float64{}, byProc: map[string]float64{}, stderr: errs.String()}
	for stack, n := range parseFolded(t, out.String()).lines {
		fr := strings.Split(stack, ";")
		if len(fr) > 2 && fr[len(fr)-1] == "[lost]" {
			fr = fr[:len(fr)-1] // time whose samples were lost, in the function it ran
		}
		res.wall += float64(n)
		res.byFn[fr[len(fr)-1]] += float64(n)
		res.byProc[fr[0]] += float64(n)
	}
	return res
}

// truthError is wallfold's error against the truth.
type truthError struct {
	truthWall, wall float64 // s
	wallErr         float64 // % of the true wall
	shareErr        float64 // max over functions, points of %
	procErr         float64 // max over processes with ≥ 10 ms of true wall, %
	consBad, groups int     // groups over conservedLimit
	consStrict      int     // groups over it without the as-printed term
	consStrictBig   int     // and by more than one sample
	consWorst       float64 // max over groups of wall / time on CPU − 1, %
}

// conservedLimit is the most wall a group may have: its time with a thread
// on CPU, +1 %, + one period per thread, or the exact model's own wall if
// its sampling noise is larger (small groups: a process of 2 threads
// living 50 ms can be 6 % over), +0.1 % for the rounding of folded
// weights. A group the truth does not know (comm-?) has none. With clock
// skew, the exact model reading the records as printed may be over that
// by a sample (a sibling's sample printed just before an IN it truly came
// after): that is the most the records support.
func conservedLimit(tr gentrace.Truth, g string) float64 {
	return max(1.01*float64(tr.OnCPU[g])+float64(gentrace.Period*tr.NThreads[g]), 1.001*tr.Group[g], 1.001*tr.Printed[g])
}

func compareToTruth(tr gentrace.Truth, res answer) truthError {
	c := truthError{truthWall: tr.Wall / 1e9, wall: res.wall / 1e9, wallErr: 100 * (res.wall - tr.Wall) / tr.Wall}
	fns := map[string]bool{}
	for f := range tr.ByFn {
		fns[f] = true
	}
	for f := range res.byFn {
		fns[f] = true
	}
	for f := range fns {
		c.shareErr = max(c.shareErr, math.Abs(100*res.byFn[f]/res.wall-100*tr.ByFn[f]/tr.Wall))
	}
	for p, w := range tr.ByProc {
		if w >= 10*gentrace.Period {
			c.procErr = max(c.procErr, 100*math.Abs(res.byProc[p]-w)/w)
		}
	}
	groups := res.byProc
	if tr.Scope == gentrace.ScopeWorkload {
		groups = map[string]float64{gentrace.ScopeWorkload: res.wall}
	}
	strict := tr
	strict.Printed = nil
	for g, w := range groups {
		on := float64(tr.OnCPU[g])
		c.groups++
		if w > conservedLimit(tr, g) {
			c.consBad++
		}
		if lim := conservedLimit(strict, g); w > lim {
			c.consStrict++
			if w > lim+gentrace.Period {
				c.consStrictBig++
			}
		}
		if on > 0 {
			c.consWorst = max(c.consWorst, 100*(w/on-1))
		}
	}
	return c
}

// variants: the recording styles the measurement runs, the first two
// with every record present.
var variants = []struct {
	name  string
	style gentrace.Style
	stdin bool
}{
	{"all, CPU-wide", gentrace.Style{SystemWide: true, Switches: true, TaskEvents: true, PIDCol: true}, false},
	{"all, per-task", gentrace.Style{Switches: true, TaskEvents: true}, false},
	{"no switch, per-task", gentrace.Style{TaskEvents: true}, false},
	{"no switch, CPU-wide", gentrace.Style{SystemWide: true, TaskEvents: true, PIDCol: true}, false},
	{"skew ±10µs", gentrace.Style{SystemWide: true, Switches: true, TaskEvents: true, PIDCol: true, Skew: 10_000}, false},
	{"loss windows", gentrace.Style{SystemWide: true, Switches: true, TaskEvents: true, PIDCol: true, Loss: gentrace.LossAtRecord}, false},
	{"loss at a sample", gentrace.Style{SystemWide: true, Switches: true, TaskEvents: true, PIDCol: true, Loss: gentrace.LossAtSample}, false},
	{"no switch, loss", gentrace.Style{SystemWide: true, TaskEvents: true, PIDCol: true, Loss: gentrace.LossAtRecord}, false},
	{"no switch, loss at a sample", gentrace.Style{SystemWide: true, TaskEvents: true, PIDCol: true, Loss: gentrace.LossAtSample}, false},
	{"late pids, file", gentrace.Style{SystemWide: true, Switches: true}, false},
	{"late pids, stdin", gentrace.Style{SystemWide: true, Switches: true}, true},
}

// variantLimit is what a variant must meet against the truth (issue 13's
// targets, where they hold today): wall error in %, share error in
// points (0: not asserted), and conservation.
type variantLimit struct {
	wall, share float64
	conserved   bool
	proc        float64 // each process's wall error in % (0: not asserted)
}

// variantLimits: the variants with records missing or late that are
// asserted. "loss at a sample" is the worst case: a worker that runs
// 50 µs every 20 ms has one sample in 400 ms, and a loss that starts at it
// takes it; its 50 µs of CPU in the loss are all any reading of the
// records can give back (1.8 points on the pool), so its shares have a
// looser limit.
var variantLimits = map[string]variantLimit{
	"no switch, per-task":         {wall: 10, share: 2, conserved: true},
	"no switch, CPU-wide":         {wall: 10, share: 2, conserved: true},
	"skew ±10µs":                  {wall: 1, conserved: true},
	"loss windows":                {wall: 4, share: 1.5, conserved: true},
	"loss at a sample":            {wall: 4, share: 2.5, conserved: true},
	"no switch, loss":             {wall: 10, share: 2, conserved: true},
	"no switch, loss at a sample": {wall: 10, share: 2.5, conserved: true},
	"late pids, file":             {wall: 2, share: 1, proc: 2},
	"late pids, stdin":            {wall: 2, share: 1, proc: 2},
}

// bigVariants: each workload runs every variant at 64 CPUs, and these
// at 256 too (CPU-wide ones: the point of many CPUs), a few for time.
var bigVariants = map[string][]string{
	"lock":    {"all, CPU-wide", "skew ±10µs", "loss windows", "loss at a sample", "no switch, loss"},
	"migrate": {"all, CPU-wide", "skew ±10µs"},
}

// TestGeneratorMeasure prints wallfold's errors against the truth for each
// workload and recording style, one subtest per workload and CPU count. It
// asserts, with every record present, shares within 0.5 points, wall
// within 1 % and conservation, and for the variants in variantLimits
// their limits.
func TestGeneratorMeasure(t *testing.T) {
	var b strings.Builder
	fmt.Fprintf(&b, "%-8s %4s %-27s %9s %9s %7s %7s %8s %9s %6s %8s\n",
		"workload", "cpus", "variant", "truth s", "wallfold", "wall%", "share", "proc%", "cons bad", "strict", "worst%")
	for _, w := range gentrace.Workloads {
		t.Run(w.Name+"/64", func(t *testing.T) { measureWorkload(t, &b, w, 64, nil) })
		if big := bigVariants[w.Name]; big != nil {
			t.Run(w.Name+"/256", func(t *testing.T) { measureWorkload(t, &b, w, 256, big) })
		}
	}
	t.Logf("wallfold --weight=wall against the simulation's truth (wall%%: total error; share: max error of a function's share of wall, points; "+
		"proc%%: max error of a process's wall, processes with ≥ 10 ms; cons bad: groups over their time on CPU (conservedLimit); strict: the same, without what a perfect model reads from skewed records as printed (none may be over by more than a sample); worst%%: max wall / time on CPU − 1)\n%s", b.String())
}

// measureWorkload writes the rows of one workload at cpus CPUs, of the
// variants named in only (all if nil), and asserts the every-record ones.
func measureWorkload(t *testing.T, b *strings.Builder, w gentrace.Workload, cpus int, only []string) {
	start := time.Now()
	sim := gentrace.Simulate(w.Make(cpus, 13))
	truths := map[string]gentrace.Truth{}
	for i, v := range variants {
		if only != nil && !slices.Contains(only, v.name) {
			continue
		}
		st := v.style
		st.Seed = 5
		tr, ok := truths[st.Scope()]
		if !ok {
			tr = sim.Truth(st.Scope())
			truths[st.Scope()] = tr
		}
		if st.Skew > 0 {
			tr.Printed = sim.AsPrinted(tr, st)
		}
		res := runOnText(t, sim.Text(st), st, v.stdin)
		// A skew is told where the records show it (a thread that moves
		// to another CPU, or is forked, within the skew), never without.
		if warned := strings.Contains(res.stderr, "perf record -k mono"); warned && st.Skew == 0 || !warned && st.Skew > 0 && w.Name != "pool" {
			t.Errorf("%s: skew warning %v: %s", v.name, warned, res.stderr)
		}
		c := compareToTruth(tr, res)
		fmt.Fprintf(b, "%-8s %4d %-27s %9.4f %9.4f %+7.2f %7.2f %8.1f %4d/%-4d %6d %8.1f\n",
			w.Name, cpus, v.name, c.truthWall, c.wall, c.wallErr, c.shareErr, c.procErr, c.consBad, c.groups, c.consStrict, c.consWorst)
		lim, ok := variantLimits[v.name]
		if i <= 1 {
			lim, ok = variantLimit{wall: 1, share: 0.5, conserved: true}, true
		}
		if ok {
			checkLimit(t, v.name, lim, c)
		}
	}
	fmt.Fprintf(b, "         (%s at %d CPUs: %d threads, %d records, %v)\n", w.Name, cpus, len(sim.Threads), len(sim.Recs), time.Since(start).Round(time.Millisecond))
}

// checkLimit asserts a variant's limit on one measurement.
func checkLimit(t *testing.T, name string, lim variantLimit, c truthError) {
	t.Helper()
	if math.Abs(c.wallErr) > lim.wall || (lim.share > 0 && c.shareErr > lim.share) {
		t.Errorf("%s: wall %+.2f %% (limit %.0f %%), shares %.2f points off (limit %.1f)", name, c.wallErr, lim.wall, c.shareErr, lim.share)
	}
	if lim.proc > 0 && c.procErr > lim.proc {
		t.Errorf("%s: a process's wall %.1f %% off (limit %.0f %%)", name, c.procErr, lim.proc)
	}
	if c.consStrictBig > 0 {
		t.Errorf("%s: %d groups over their time on CPU by more than a sample, even allowing for skew", name, c.consStrictBig)
	}
	if lim.conserved && c.consBad > 0 {
		t.Errorf("%s: %d of %d groups over their time on CPU (worst %+.1f %%)", name, c.consBad, c.groups, c.consWorst)
	}
}

// TestGeneratorSanity checks that wallfold reads the generator's text
// whole: every sample (the CPU profile is their periods' sum), and no
// line skipped in any variant. The generator's own sanity is checked in
// its package.
func TestGeneratorSanity(t *testing.T) {
	sim := gentrace.Simulate(gentrace.Migrations(64, 3))
	var sampled int64
	for _, th := range sim.Threads {
		sampled += int64(th.Samples) * gentrace.Period
	}
	out, _, _ := wallfold(t, "--weight=cpu", traceFile(t, sim.Text(variants[0].style)))
	if got := parseFolded(t, out).total; got != float64(sampled) {
		t.Errorf("--weight=cpu total %.0f ns, samples %d ns", got, sampled)
	}
	for _, v := range variants {
		res := runOnText(t, sim.Text(v.style), v.style, v.stdin)
		if strings.Contains(res.stderr, "skipped") {
			t.Errorf("%s: %s", v.name, res.stderr)
		}
	}
}

// seeds is how many seeds TestGeneratorSeeds runs; under -short it runs
// only when this is given (make test-long).
var seeds = flag.Int("gen.seeds", 4, "seeds of TestGeneratorSeeds (under -short: run only if given)")

// seedsGiven says whether -gen.seeds is on the command line.
func seedsGiven() (given bool) {
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "gen.seeds" })
	return given
}

// TestGeneratorSeeds runs the variants with records missing, late or out
// of order on other simulations and writer seeds than TestGeneratorMeasure
// picks, and asserts variantLimits on each, so that a limit met is not one
// seed's luck. Conservation under loss windows is counted, not asserted:
// a thread switched in during a loss on a CPU it had not run on shows up
// only at its first sample after it, and its siblings' samples in the
// loss, released by then, missed it (at 8 seeds, 3 groups of about
// 13,900 in the build, each by at most a sample).
func TestGeneratorSeeds(t *testing.T) {
	if testing.Short() && !seedsGiven() {
		t.Skip("the seed sweep is long: -gen.seeds=N runs it under -short (make test-long)")
	}
	var b strings.Builder
	names := []string{"no switch, CPU-wide", "skew ±10µs", "loss windows", "loss at a sample", "no switch, loss", "no switch, loss at a sample", "late pids, stdin"}
	for _, w := range gentrace.Workloads {
		for _, cpus := range []int{64, 256} {
			if cpus == 256 && w.Name != "lock" {
				continue
			}
			for _, v := range variants {
				if slices.Contains(names, v.name) {
					sweepSeeds(t, &b, w, cpus, v.name, v.style, v.stdin)
				}
			}
		}
	}
	t.Logf("over %d seeds:\n%s", *seeds, b.String())
}

// sweepSeeds asserts one variant's limit on one workload over the seeds
// and writes its worst row.
func sweepSeeds(t *testing.T, b *strings.Builder, w gentrace.Workload, cpus int, name string, style gentrace.Style, stdin bool) {
	lim := variantLimits[name]
	var worstWall, worstShare, worstProc float64
	bad, groups := 0, 0
	for seed := 1; seed <= *seeds; seed++ {
		sim := gentrace.Simulate(w.Make(cpus, uint64(7*seed+1)))
		st := style
		st.Seed = uint64(seed)
		tr := sim.Truth(st.Scope())
		if st.Skew > 0 {
			tr.Printed = sim.AsPrinted(tr, st)
		}
		c := compareToTruth(tr, runOnText(t, sim.Text(st), st, stdin))
		worstWall, worstShare, worstProc = max(worstWall, math.Abs(c.wallErr)), max(worstShare, c.shareErr), max(worstProc, c.procErr)
		bad, groups = bad+c.consBad, groups+c.groups
		if math.Abs(c.wallErr) > lim.wall || lim.share > 0 && c.shareErr > lim.share || lim.proc > 0 && c.procErr > lim.proc {
			t.Errorf("%s/%d %s seed %d: wall %+.2f %% (limit %.0f), shares %.2f points (limit %.1f), a process %.1f %% (limit %.0f)",
				w.Name, cpus, name, seed, c.wallErr, lim.wall, c.shareErr, lim.share, c.procErr, lim.proc)
		}
		if lim.conserved && !strings.Contains(name, "loss") && c.consBad > 0 || c.consStrictBig > 0 {
			t.Errorf("%s/%d %s seed %d: %d of %d groups over their time on CPU", w.Name, cpus, name, seed, c.consBad, c.groups)
		}
	}
	fmt.Fprintf(b, "%-8s %4d %-27s worst wall %5.2f %%  share %5.2f  process %5.1f %%  over their time on CPU %d/%d\n",
		w.Name, cpus, name, worstWall, worstShare, worstProc, bad, groups)
}
