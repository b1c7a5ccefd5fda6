package main

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// Measurement of wallfold against the generator's truth (gen_test.go).

// ---- comparison with wallfold ----

// genResult is wallfold's answer on a generated trace, in ns.
type genResult struct {
	wall         float64
	byFn, byProc map[string]float64 // leaf function, root frame "comm-PID"
	stderr       string
}

// genRun runs wallfold --weight=wall --pid in the style's scope, on a file
// or on stdin.
func genRun(t *testing.T, text []byte, st genStyle, stdin bool) genResult {
	t.Helper()
	args := []string{"--weight=wall", "--scope=" + st.scope(), "--pid"}
	in := bytes.NewReader(nil)
	if stdin {
		in.Reset(text)
	} else {
		args = append(args, genFile(t, text))
	}
	var out, errs bytes.Buffer
	if code := run(args, in, &out, &errs); code != 0 {
		t.Fatalf("wallfold %v: exit %d: %s", args, code, errs.String())
	}
	res := genResult{byFn: map[string]float64{}, byProc: map[string]float64{}, stderr: errs.String()}
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

// genCompare is wallfold's error against the truth.
type genCompare struct {
	truthWall, wall float64 // s
	wallErr         float64 // % of the true wall
	shareErr        float64 // max over functions, points of %
	procErr         float64 // max over processes with ≥ 10 ms of true wall, %
	consBad, groups int     // groups over genConserved's limit
	consStrict      int     // groups over it without the as-printed term
	consStrictBig   int     // and by more than one sample
	consWorst       float64 // max over groups of wall / time on CPU − 1, %
}

// genConserved is the most wall a group may have: its time with a thread on
// CPU, +1 %, + one period per thread, or the exact model's own wall if its
// sampling noise is larger (small groups: a process of 2 threads living
// 50 ms can be 6 % over), +0.1 % for the rounding of folded weights. A
// group the truth does not know (comm-?) has none. With clock skew, the
// exact model reading the records as printed may be over that by a
// sample (a sibling's sample printed just before an IN it truly came
// after): that is the most the records support.
func genConserved(tr genTruth, g string) float64 {
	return max(1.01*float64(tr.onCPU[g])+float64(genPeriod*tr.nth[g]), 1.001*tr.group[g], 1.001*tr.printed[g])
}

func (tr genTruth) withoutPrinted() genTruth {
	tr.printed = nil
	return tr
}

func genCompareTo(tr genTruth, res genResult) genCompare {
	c := genCompare{truthWall: tr.wall / 1e9, wall: res.wall / 1e9, wallErr: 100 * (res.wall - tr.wall) / tr.wall}
	fns := map[string]bool{}
	for f := range tr.byFn {
		fns[f] = true
	}
	for f := range res.byFn {
		fns[f] = true
	}
	for f := range fns {
		c.shareErr = max(c.shareErr, math.Abs(100*res.byFn[f]/res.wall-100*tr.byFn[f]/tr.wall))
	}
	for p, w := range tr.byProc {
		if w >= 10*genPeriod {
			c.procErr = max(c.procErr, 100*math.Abs(res.byProc[p]-w)/w)
		}
	}
	groups := res.byProc
	if tr.scope == "workload" {
		groups = map[string]float64{"workload": res.wall}
	}
	for g, w := range groups {
		on := float64(tr.onCPU[g])
		c.groups++
		if w > genConserved(tr, g) {
			c.consBad++
		}
		if lim := genConserved(tr.withoutPrinted(), g); w > lim {
			c.consStrict++
			if w > lim+genPeriod {
				c.consStrictBig++
			}
		}
		if on > 0 {
			c.consWorst = max(c.consWorst, 100*(w/on-1))
		}
	}
	return c
}

// genVariants: the recording styles the measurement runs, the first two
// with every record present.
var genVariants = []struct {
	name  string
	style genStyle
	stdin bool
}{
	{"all, CPU-wide", genStyle{systemWide: true, switches: true, taskEvents: true, pidCol: true}, false},
	{"all, per-task", genStyle{switches: true, taskEvents: true}, false},
	{"no switch, per-task", genStyle{taskEvents: true}, false},
	{"no switch, CPU-wide", genStyle{systemWide: true, taskEvents: true, pidCol: true}, false},
	{"skew ±10µs", genStyle{systemWide: true, switches: true, taskEvents: true, pidCol: true, skew: 10_000}, false},
	{"loss windows", genStyle{systemWide: true, switches: true, taskEvents: true, pidCol: true, loss: genLossAtRecord}, false},
	{"loss at a sample", genStyle{systemWide: true, switches: true, taskEvents: true, pidCol: true, loss: genLossAtSample}, false},
	{"no switch, loss", genStyle{systemWide: true, taskEvents: true, pidCol: true, loss: genLossAtRecord}, false},
	{"no switch, loss at a sample", genStyle{systemWide: true, taskEvents: true, pidCol: true, loss: genLossAtSample}, false},
	{"late pids, file", genStyle{systemWide: true, switches: true}, false},
	{"late pids, stdin", genStyle{systemWide: true, switches: true}, true},
}

// genLimit is what a variant must meet against the truth (issue 13's
// targets, where they hold today): wall error in %, share error in
// points (0: not asserted), and conservation.
type genLimit struct {
	wall, share float64
	conserved   bool
	proc        float64 // each process's wall error in % (0: not asserted)
}

// genLimits: the variants with records missing or late that are asserted.
// "loss at a sample" is the worst case: a worker that runs 50 µs every
// 20 ms has one sample in 400 ms, and a loss that starts at it takes it;
// its 50 µs of CPU in the loss are all any reading of the records can give
// back (1.8 points on the pool), so its shares have a looser limit.
var genLimits = map[string]genLimit{
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

// genWorkloads: all variants at 64 CPUs; at 256 CPUs those named in big
// (CPU-wide ones: the point of many CPUs), a few for time.
var genWorkloads = []struct {
	name string
	make func(cpus int, seed uint64) genConfig
	big  []string
}{
	{"lock", genLockContention, []string{"all, CPU-wide", "skew ±10µs", "loss windows", "loss at a sample", "no switch, loss"}},
	{"pool", genIdlePool, nil},
	{"build", genShortProcs, nil},
	{"migrate", genMigrations, []string{"all, CPU-wide", "skew ±10µs"}},
}

// TestGeneratorMeasure prints wallfold's errors against the truth for each
// workload and recording style, one subtest per workload and CPU count. It
// asserts, with every record present, shares within 0.5 points, wall
// within 1 % and conservation, and for the variants in genLimits their
// limits.
func TestGeneratorMeasure(t *testing.T) {
	var b strings.Builder
	fmt.Fprintf(&b, "%-8s %4s %-27s %9s %9s %7s %7s %8s %9s %6s %8s\n",
		"workload", "cpus", "variant", "truth s", "wallfold", "wall%", "share", "proc%", "cons bad", "strict", "worst%")
	for _, w := range genWorkloads {
		t.Run(w.name+"/64", func(t *testing.T) { genMeasure(t, &b, w.name, w.make, 64, nil) })
		if w.big != nil {
			t.Run(w.name+"/256", func(t *testing.T) { genMeasure(t, &b, w.name, w.make, 256, w.big) })
		}
	}
	t.Logf("wallfold --weight=wall against the simulation's truth (wall%%: total error; share: max error of a function's share of wall, points; "+
		"proc%%: max error of a process's wall, processes with ≥ 10 ms; cons bad: groups over their time on CPU (genConserved); strict: the same, without what a perfect model reads from skewed records as printed (none may be over by more than a sample); worst%%: max wall / time on CPU − 1)\n%s", b.String())
}

// genMeasure writes the rows of one workload at cpus CPUs, of the
// variants named in only (all if nil), and asserts the every-record ones.
func genMeasure(t *testing.T, b *strings.Builder, name string, mk func(int, uint64) genConfig, cpus int, only []string) {
	start := time.Now()
	sim := genSimulate(mk(cpus, 13))
	truths := map[string]genTruth{}
	for i, v := range genVariants {
		if only != nil && !slices.Contains(only, v.name) {
			continue
		}
		st := v.style
		st.seed = 5
		tr, ok := truths[st.scope()]
		if !ok {
			tr = sim.truth(st.scope())
			truths[st.scope()] = tr
		}
		if st.skew > 0 {
			tr.printed = sim.asPrinted(tr, st)
		}
		res := genRun(t, sim.genWrite(st), st, v.stdin)
		// A skew is told where the records show it (a thread that moves
		// to another CPU, or is forked, within the skew), never without.
		if warned := strings.Contains(res.stderr, "perf record -k mono"); warned && st.skew == 0 || !warned && st.skew > 0 && name != "pool" {
			t.Errorf("%s: skew warning %v: %s", v.name, warned, res.stderr)
		}
		c := genCompareTo(tr, res)
		fmt.Fprintf(b, "%-8s %4d %-27s %9.4f %9.4f %+7.2f %7.2f %8.1f %4d/%-4d %6d %8.1f\n",
			name, cpus, v.name, c.truthWall, c.wall, c.wallErr, c.shareErr, c.procErr, c.consBad, c.groups, c.consStrict, c.consWorst)
		lim, ok := genLimits[v.name]
		if i <= 1 {
			lim, ok = genLimit{wall: 1, share: 0.5, conserved: true}, true
		}
		if !ok {
			continue
		}
		if math.Abs(c.wallErr) > lim.wall || (lim.share > 0 && c.shareErr > lim.share) {
			t.Errorf("%s: wall %+.2f %% (limit %.0f %%), shares %.2f points off (limit %.1f)", v.name, c.wallErr, lim.wall, c.shareErr, lim.share)
		}
		if lim.proc > 0 && c.procErr > lim.proc {
			t.Errorf("%s: a process's wall %.1f %% off (limit %.0f %%)", v.name, c.procErr, lim.proc)
		}
		if c.consStrictBig > 0 {
			t.Errorf("%s: %d groups over their time on CPU by more than a sample, even allowing for skew", v.name, c.consStrictBig)
		}
		if lim.conserved && c.consBad > 0 {
			t.Errorf("%s: %d of %d groups over their time on CPU (worst %+.1f %%)", v.name, c.consBad, c.groups, c.consWorst)
		}
	}
	fmt.Fprintf(b, "         (%s at %d CPUs: %d threads, %d records, %v)\n", name, cpus, len(sim.threads), len(sim.recs), time.Since(start).Round(time.Millisecond))
}

// TestGeneratorSanity checks the generator itself: samples match each
// thread's CPU time, the truth conserves wall, the text parses cleanly.
func TestGeneratorSanity(t *testing.T) {
	sim := genSimulate(genMigrations(64, 3))
	var cpu, sampled int64
	for _, th := range sim.threads {
		var run int64
		for _, iv := range th.intervals {
			run += iv[1] - iv[0]
		}
		if run != th.cpuTime || th.cpuTime-int64(th.samples)*genPeriod < 0 || th.cpuTime-int64(th.samples)*genPeriod > genPeriod {
			t.Errorf("tid %d: %d samples for %d ns of CPU (intervals %d ns)", th.tid, th.samples, th.cpuTime, run)
		}
		cpu += th.cpuTime
		sampled += int64(th.samples) * genPeriod
	}
	// At most one period per thread is short of its CPU time.
	if sampled > cpu || cpu-sampled > int64(len(sim.threads))*genPeriod {
		t.Errorf("sampled %d ns of %d ns of CPU", sampled, cpu)
	}
	wl := sim.truth("workload")
	if wl.wall > float64(wl.span) || wl.wall > float64(wl.onCPU["workload"])*1.01 {
		t.Errorf("workload truth wall %.0f ns over span %d or time on CPU %d", wl.wall, wl.span, wl.onCPU["workload"])
	}
	pr := sim.truth("process")
	for g, w := range pr.group {
		if w > 1.01*float64(pr.onCPU[g])+float64(genPeriod*pr.nth[g]) {
			t.Errorf("process %s truth wall %.0f ns over its time on CPU %d", g, w, pr.onCPU[g])
		}
	}
	// Preemptions, waits for a CPU (a CPU handed from one thread to a
	// waiting one) and migrations happen.
	var preempt, handover, migrate int
	last := map[*genThread]int{}
	for _, r := range sim.recs {
		if r.kind == genSwitch && r.preempt && r.th != nil {
			preempt++
		}
		if r.kind == genSwitch && r.th != nil && r.in != nil {
			handover++
		}
		if r.kind == genSwitch && r.in != nil {
			if c, ok := last[r.in]; ok && c != r.cpu {
				migrate++
			}
			last[r.in] = r.cpu
		}
	}
	if preempt == 0 || handover == 0 || migrate < 1000 {
		t.Errorf("%d preemptions, %d handovers, %d migrations", preempt, handover, migrate)
	}
	// Every sample is in the text: the CPU profile is their periods' sum.
	out, _, _ := wallfold(t, "--weight=cpu", genFile(t, sim.genWrite(genVariants[0].style)))
	if got := parseFolded(t, out).total; got != float64(sampled) {
		t.Errorf("--weight=cpu total %.0f ns, samples %d ns", got, sampled)
	}
	for _, v := range genVariants {
		res := genRun(t, sim.genWrite(v.style), v.style, v.stdin)
		if strings.Contains(res.stderr, "skipped") {
			t.Errorf("%s: %s", v.name, res.stderr)
		}
	}
}

// genSeeds is how many seeds TestGeneratorSeeds runs (go test -run
// TestGeneratorSeeds -args -gen.seeds=8 for a wider look).
var genSeeds = flag.Int("gen.seeds", 4, "seeds of TestGeneratorSeeds")

// TestGeneratorSeeds runs the variants with records missing, late or out
// of order on other simulations and writer seeds than TestGeneratorMeasure
// picks, and asserts genLimits on each, so that a limit met is not one
// seed's luck. Conservation under loss windows is counted, not asserted:
// a thread switched in during a loss on a CPU it had not run on shows up
// only at its first sample after it, and its siblings' samples in the
// loss, released by then, missed it (1 group of about 13,800 over 8
// seeds, by one sample).
func TestGeneratorSeeds(t *testing.T) {
	var b strings.Builder
	variants := []string{"no switch, CPU-wide", "skew ±10µs", "loss windows", "loss at a sample", "no switch, loss", "no switch, loss at a sample", "late pids, stdin"}
	for _, w := range genWorkloads {
		for _, cpus := range []int{64, 256} {
			if cpus == 256 && w.name != "lock" {
				continue
			}
			for _, v := range genVariants {
				if !slices.Contains(variants, v.name) {
					continue
				}
				lim := genLimits[v.name]
				var worstWall, worstShare, worstProc float64
				bad, groups := 0, 0
				for seed := 1; seed <= *genSeeds; seed++ {
					sim := genSimulate(w.make(cpus, uint64(7*seed+1)))
					st := v.style
					st.seed = uint64(seed)
					tr := sim.truth(st.scope())
					if st.skew > 0 {
						tr.printed = sim.asPrinted(tr, st)
					}
					c := genCompareTo(tr, genRun(t, sim.genWrite(st), st, v.stdin))
					worstWall, worstShare, worstProc = max(worstWall, math.Abs(c.wallErr)), max(worstShare, c.shareErr), max(worstProc, c.procErr)
					bad, groups = bad+c.consBad, groups+c.groups
					if math.Abs(c.wallErr) > lim.wall || lim.share > 0 && c.shareErr > lim.share || lim.proc > 0 && c.procErr > lim.proc {
						t.Errorf("%s/%d %s seed %d: wall %+.2f %% (limit %.0f), shares %.2f points (limit %.1f), a process %.1f %% (limit %.0f)",
							w.name, cpus, v.name, seed, c.wallErr, lim.wall, c.shareErr, lim.share, c.procErr, lim.proc)
					}
					if lim.conserved && !strings.Contains(v.name, "loss") && c.consBad > 0 || c.consStrictBig > 0 {
						t.Errorf("%s/%d %s seed %d: %d of %d groups over their time on CPU", w.name, cpus, v.name, seed, c.consBad, c.groups)
					}
				}
				fmt.Fprintf(&b, "%-8s %4d %-27s worst wall %5.2f %%  share %5.2f  process %5.1f %%  over their time on CPU %d/%d\n",
					w.name, cpus, v.name, worstWall, worstShare, worstProc, bad, groups)
			}
		}
	}
	t.Logf("over %d seeds:\n%s", *genSeeds, b.String())
}
