package state

// This file keeps the silence rule honest: silence is evidence that a
// running thread stopped only when the trace shows time passing. A
// thread on a CPU is sampled every period; if it is not, while the other
// CPUs' records go on, it stopped. But when the whole machine (or, in a
// CPU-wide trace, its own CPU) printed nothing at all, the clock itself
// stood still for the trace: a stalled VM, steal time on a vCPU. Records
// then resume, the thread's own among the first, and the switch records
// never said it left (measured: xz's samples stop 10-35 ms at a time,
// 0.18 s in all, with no other record printed meanwhile).
//
// So the tracker keeps the quiet time: the sum, over the gaps between
// consecutive records (of the whole trace, or of each CPU in CPU-wide
// traces) longer than two sampling periods, of their length beyond one. A thread's
// silence less the quiet time in it is what counts against the silence
// limit. A silence that a LOST record explains is the loss rule's (lost.go).

// stallMax bounds how long a quiet silence keeps a thread running (and
// its group's samples waiting): longer, the silence rule decides.
const stallMax = 1_000_000_000 // 1 s

// stallTrack is the trace's quiet time, and each CPU's.
type stallTrack struct {
	quietAll, lastAt int64
	cpuQuiet, cpuAt  []int64
}

// quietMark is where a thread's quiet time is counted from: the quiet
// time when its running gap opened, of its CPU (quietCPU) or of the
// whole trace (-1).
type quietMark struct {
	segQuiet int64
	quietCPU int
}

// excess is the quiet time of a gap between records: while any thread
// runs, a record comes every period (its samples), a little later with
// jitter; a gap over two periods is quiet beyond its first period.
func (t *tracker) excess(gap int64) int64 {
	if p := t.cfg.Gap / silencePeriods; gap > 2*p && p > 0 {
		return gap - p
	}
	return 0
}

// noteRecord counts the quiet time before a record at now (of cpu, -1:
// none printed).
func (t *tracker) noteRecord(now int64, cpu int) {
	if now <= 0 || t.cfg.Gap <= 0 {
		return
	}
	if t.lastAt > 0 {
		t.quietAll += t.excess(now - t.lastAt)
	}
	t.lastAt = now
	if cpu < 0 || cpu >= maxCPU {
		return
	}
	for cpu >= len(t.cpuAt) {
		t.cpuAt = append(t.cpuAt, 0)
		t.cpuQuiet = append(t.cpuQuiet, 0)
	}
	if at := t.cpuAt[cpu]; at > 0 {
		t.cpuQuiet[cpu] += t.excess(now - at)
	}
	t.cpuAt[cpu] = now
}

// quietNow is the quiet time so far of cpu (-1: the whole trace), the
// gap since its latest record included.
func (t *tracker) quietNow(cpu int) int64 {
	if cpu < 0 || cpu >= len(t.cpuAt) {
		return t.quietAll
	}
	if at := t.cpuAt[cpu]; at > 0 {
		return t.cpuQuiet[cpu] + t.excess(t.now-at)
	}
	return t.cpuQuiet[cpu]
}

// markQuiet notes where th's quiet time counts from as its running gap
// opens: its CPU's in a CPU-wide trace (each CPU prints what it runs),
// else the whole trace's.
func (t *tracker) markQuiet(th *thread) {
	th.quietCPU = -1
	if t.stats.CPUWide > 0 && th.cpu >= 0 {
		th.quietCPU = th.cpu
	}
	th.segQuiet = t.quietNow(th.quietCPU)
}

// quietThrough reports whether th's silence since its last sign, up to
// now, is within the silence limit once the quiet time is taken out: it
// is still on its CPU.
func (t *tracker) quietThrough(th *thread, now int64) bool {
	raw := now - th.segTime
	if t.cfg.Gap <= 0 || raw > stallMax || t.rateMode() || t.lossIn(th) {
		return false
	}
	if th.quietCPU >= 0 && th.cpu != th.quietCPU {
		return false // seen on another CPU since: it left the quiet one
	}
	return raw-(t.quietNow(th.quietCPU)-th.segQuiet) <= t.cfg.Gap
}

// lossIn reports a LOST record of th's CPU, then or now (or of no
// printed CPU), since its last sign: the loss rule decides that silence.
func (t *tracker) lossIn(th *thread) bool {
	if t.lostAt == nil {
		return false
	}
	for _, cpu := range [...]int{th.quietCPU, th.cpu, -1} {
		if w, ok := t.lostAt[cpu]; ok && w.at > th.segTime {
			return true
		}
	}
	return false
}

// stalledThrough decides th's silence, longer than the silence limit and
// ended by its own sign at now, as a stall when it was quiet: th ran
// throughout, for the others' samples and for the split (which took it
// as off at the limit).
func (t *tracker) stalledThrough(th *thread, now int64) bool {
	if !t.quietThrough(th, now) {
		return false
	}
	t.stats.Stalls++
	g := th.g
	g.addAt(th.segSeq, parOne, th.segSpin)
	g.addAt(g.seq, -parOne, th.segSpin)
	if th.splitOff {
		t.ranThrough(th, th.segTime, now)
		th.splitOff = false
	}
	return true
}
