package main

import (
	"fmt"
	"testing"

	"github.com/wallfold/wallfold/internal/gentrace"
)

// FuzzConservation checks the conservation laws on every trace it
// generates, not only that nothing panics: the fuzzer's numbers make a
// workload (CPUs, processes, threads, their bursts and waits, its span)
// and pick a recording style; the generator says what ran when.
//   - cpu: the --weight=cpu total is the sum of the printed samples'
//     periods;
//   - wall: no group's wall time is over the trace's span, nor, with
//     switch records and no loss, over its time with a thread on CPU by
//     more than a sample (allowing for the style's clock skew).
func FuzzConservation(f *testing.F) {
	f.Add(uint64(1), uint8(2), uint8(1), uint8(3), uint8(50), uint16(2000), uint16(1000), uint8(0))
	f.Add(uint64(7), uint8(4), uint8(3), uint8(9), uint8(200), uint16(300), uint16(5000), uint8(4))
	f.Add(uint64(3), uint8(1), uint8(2), uint8(6), uint8(20), uint16(60000), uint16(10), uint8(9))
	f.Fuzz(func(t *testing.T, seed uint64, cpus, procs, threads, spanMs uint8, runUs, blockUs uint16, style uint8) {
		w := fuzzWorkload(seed, cpus, procs, threads, spanMs, runUs, blockUs)
		v := variants[int(style)%len(variants)]
		st := v.style
		st.Seed = seed
		sim := gentrace.Simulate(w)
		tr := sim.Truth(st.Scope())
		if st.Skew > 0 {
			tr.Printed = sim.AsPrinted(tr, st)
		}
		text := sim.Text(st)
		if cpuIn := acceptedPeriods(text); cpuIn > 0 {
			out, stderr, code := runCLI(t, nil, "--weight=cpu", "--scope="+st.Scope(), traceFile(t, text))
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", v.name, code, stderr)
			}
			if cpu := parseFolded(t, out).total; uint64(cpu) != cpuIn {
				t.Fatalf("%s: cpu total %.0f != sum of the samples' periods %d", v.name, cpu, cpuIn)
			}
		}
		res := runOnText(t, text, st, v.stdin)
		// Without switch records the parallelism is estimated from the
		// samples' density, and across a loss the records are missing: a
		// small group can then go over its time on CPU (found here: +48 %
		// for a process of a 29 ms trace, seed 595, "no switch, loss at a
		// sample"; +22 %, seed 430, "loss at a sample"), and the span
		// alone bounds it.
		exact := st.Switches && st.Loss == gentrace.NoLoss
		if c := compareToTruth(tr, res); exact && c.consStrictBig > 0 {
			t.Fatalf("%s: %d of %d groups over their time on CPU by more than a sample (worst %+.1f %%)", v.name, c.consStrictBig, c.groups, c.consWorst)
		}
		// Each thread's first sample may stand for a period before the
		// first record: a period per thread over the span at most. And
		// a sample stands for a period at the parallelism of its instant:
		// the perfect model's sum over a group's samples (the truth) can
		// itself be over the span (seed 236, "loss windows": 202.7 ms of
		// a process's samples in a 196 ms trace, its threads on CPU 195.7
		// ms); then that sum is the bound.
		slack := float64(gentrace.Period * len(w.Threads))
		for g, wall := range res.byProc {
			if lim := max(float64(tr.Span)*1.001, tr.ByProc[g]) + slack; wall > lim {
				t.Fatalf("%s: group %s has %.0f ns of wall time in a trace of %d ns (the samples' exact sum %.0f ns)", v.name, g, wall, tr.Span, tr.ByProc[g])
			}
		}
	})
}

// fuzzWorkload is a workload of procs processes of threads threads in
// all (at least one each), on cpus CPUs, for spanMs ms: each thread
// runs bursts of about runUs µs between waits of about blockUs µs, from
// a start and to an end drawn from seed.
func fuzzWorkload(seed uint64, cpus, procs, threads, spanMs uint8, runUs, blockUs uint16) gentrace.Config {
	nCPU, nProc := 1+int(cpus%8), 1+int(procs%4)
	nThread := max(nProc, 1+int(threads%12))
	span := int64(10+int(spanMs)) * gentrace.Ms
	c := gentrace.NewConfig("fuzz", nCPU, span, seed)
	x := seed | 1
	next := func(n int64) int64 { // xorshift: the same seed, the same workload
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return int64(x % uint64(n))
	}
	run := gentrace.Dist{Mean: 10_000 + int64(runUs)*1000, Jitter: 0.5}
	if runUs > 60000 {
		run = gentrace.CPUBound
	}
	block := gentrace.Dist{Mean: 10_000 + int64(blockUs)*1000, Jitter: 0.5}
	for i := 0; i < nThread; i++ {
		pid := 1000 + 100*(i%nProc)
		tid := pid + i/nProc
		start, end := int64(0), span
		if i >= nProc { // leaders live throughout; the others may not
			start, end = next(span/2), span/2+next(span/2)
		}
		c.Add(fmt.Sprintf("p%d", i%nProc), pid, tid, start, end,
			gentrace.Phase{Fn: fmt.Sprintf("f%d", i%3), Until: end, Run: run, Block: block})
	}
	return c
}
