package gentrace

import (
	"bytes"
	"testing"
)

// TestSanity checks the generator itself on a workload that preempts,
// waits and migrates: samples match each thread's CPU time, the truth
// conserves wall, and those scheduling events happen.
func TestSanity(t *testing.T) {
	sim := Simulate(Migrations(64, 3))
	var cpu, sampled int64
	for _, th := range sim.Threads {
		var run int64
		for _, r := range th.Runs {
			run += r.End - r.Start
		}
		if run != th.CPUTime || th.CPUTime-int64(th.Samples)*Period < 0 || th.CPUTime-int64(th.Samples)*Period > Period {
			t.Errorf("tid %d: %d samples for %d ns of CPU (runs %d ns)", th.TID, th.Samples, th.CPUTime, run)
		}
		cpu += th.CPUTime
		sampled += int64(th.Samples) * Period
	}
	// At most one period per thread is short of its CPU time.
	if sampled > cpu || cpu-sampled > int64(len(sim.Threads))*Period {
		t.Errorf("sampled %d ns of %d ns of CPU", sampled, cpu)
	}
	wl := sim.Truth(ScopeWorkload)
	if wl.Wall > float64(wl.Span) || wl.Wall > float64(wl.OnCPU[ScopeWorkload])*1.01 {
		t.Errorf("workload truth wall %.0f ns over span %d or time on CPU %d", wl.Wall, wl.Span, wl.OnCPU[ScopeWorkload])
	}
	pr := sim.Truth(ScopeProcess)
	for g, w := range pr.Group {
		if w > 1.01*float64(pr.OnCPU[g])+float64(Period*pr.NThreads[g]) {
			t.Errorf("process %s truth wall %.0f ns over its time on CPU %d", g, w, pr.OnCPU[g])
		}
	}
	// Preemptions, waits for a CPU (a CPU handed from one thread to a
	// waiting one) and migrations happen.
	var preempt, handover, migrate int
	last := map[*Thread]int{}
	for _, r := range sim.Recs {
		if r.Kind == Switch && r.Preempt && r.Thread != nil {
			preempt++
		}
		if r.Kind == Switch && r.Thread != nil && r.In != nil {
			handover++
		}
		if r.Kind == Switch && r.In != nil {
			if c, ok := last[r.In]; ok && c != r.CPU {
				migrate++
			}
			last[r.In] = r.CPU
		}
	}
	if preempt == 0 || handover == 0 || migrate < 1000 {
		t.Errorf("%d preemptions, %d handovers, %d migrations", preempt, handover, migrate)
	}
}

// TestTextSamples checks the writer: without a loss every sample is
// printed once, in every style; with one, some are not and a
// PERF_RECORD_LOST says so. The same seeds give the same text.
func TestTextSamples(t *testing.T) {
	sim, again := Simulate(LockContention(64, 3)), Simulate(LockContention(64, 3))
	var samples int
	for _, r := range sim.Recs {
		if r.Kind == Sample {
			samples++
		}
	}
	for _, st := range []Style{
		{SystemWide: true, Switches: true, TaskEvents: true, PIDCol: true},
		{Switches: true, TaskEvents: true},
		{SystemWide: true, Skew: 10_000},
		{SystemWide: true, Switches: true, Loss: LossAtRecord},
		{SystemWide: true, TaskEvents: true, PIDCol: true, Loss: LossAtSample},
	} {
		text := sim.Text(st)
		printed := bytes.Count(text, []byte(" cpu-clock: \n"))
		lost := bytes.Count(text, []byte("PERF_RECORD_LOST lost "))
		if st.Loss == NoLoss && (printed != samples || lost != 0) || st.Loss != NoLoss && (printed >= samples || lost == 0) {
			t.Errorf("%+v: %d of %d samples printed, %d LOST records", st, printed, samples, lost)
		}
		if !bytes.Equal(again.Text(st), text) {
			t.Errorf("%+v: another run of the same seeds prints other text", st)
		}
	}
}
