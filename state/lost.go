package state

// This file bridges lost records. When a CPU's ring buffer overflows, the
// kernel drops every record of that CPU, samples included, for some
// milliseconds (5-50 ms seen), and perf writes one PERF_RECORD_LOST when
// the ring has room again. A thread running there falls silent for longer
// than the silence limit; if it shows up running again after the LOST,
// with no SWITCH OUT between, it ran through the loss, and the others'
// samples meanwhile must count it.

// lossHold is how long past the silence limit a silent thread's gap stays
// undecided, waiting for a LOST record that would explain it (it comes at
// the end of a loss window). Samples of its group wait that much longer.
const lossHold = 64_000_000 // 64 ms

// lossTrack is what the tracker follows of losses.
type lossTrack struct {
	lostAt  map[int]lossWindow // CPU (-1: not printed) -> its latest LOST record
	cpuLast []int64            // CPU -> its latest record but a LOST
	// ownSign: the sign being taken is the thread's own sample, or its
	// OUT or EXIT on its CPU; signCPU: the CPU it was on before it.
	ownSign bool
	signCPU int
}

// sampleSpacing is a thread's last sample's time, and the mean spacing of
// its samples within the silence limit: its share of time on CPU.
type sampleSpacing struct {
	sampleAt, spacing int64
}

// lossRun is how much of [from, now], a loss it ran through, th ran: a
// thread whose samples came every s > P apart before the loss ran P/s of
// the time (it blocked briefly between them), and so of the loss.
func (t *tracker) lossRun(th *thread, from, now int64) int64 {
	period := t.cfg.Gap / silencePeriods
	if th.spacing > period {
		return int64(float64(now-from) * float64(period) / float64(th.spacing))
	}
	return now - from
}

// lostTime queues th's CPU time between its samples at from and at now,
// bar the period the sample at now stands for, as one pseudo-sample where
// it resumed: its samples in the loss are gone, its time is not.
func (t *tracker) lostTime(th *thread, from, now int64) {
	period := t.cfg.Gap / silencePeriods
	missing := t.lossRun(th, from, now) - period
	if missing <= 0 || th.lastRef < 0 {
		return
	}
	g := th.g
	if th.segSeq >= g.base && th.segSeq < g.seq { // samples of the group in the loss
		g.markLoss(th.segSeq, g.seq)
	}
	g.enqueue(sample{Time: from, PID: th.pid, TID: th.tid, CPU: -1,
		Period: uint64(missing), Ref: th.lastRef, Lost: true})
}

// lossSums are a group's samples released so far and the sum of their
// 1/parallelism, and these sums where a loss's window began.
type lossSums struct {
	relN       int64
	relInv     float64
	lossMark   map[uint64]relSums // seq where a loss began -> sums there
	pseudoMark map[uint64]uint64  // a loss's pseudo-sample's seq -> where it began
	marks      []uint64           // lossMark's seqs not released yet, in order
}

// relSums are a group's released samples and their sum of 1/parallelism
// (where a loss began), and how many pseudo-samples will ask for them.
type relSums struct {
	n    int64
	inv  float64
	refs int
}

// markLoss asks for the sums before the sample from, where a loss began,
// for the pseudo-sample at seq pseudo.
func (g *group) markLoss(from, pseudo uint64) {
	if g.lossMark == nil {
		g.lossMark, g.pseudoMark = make(map[uint64]relSums), make(map[uint64]uint64)
	}
	g.pseudoMark[pseudo] = from
	m, ok := g.lossMark[from]
	m.refs++
	g.lossMark[from] = m
	if !ok { // keep g.marks sorted: released in seq order
		i := len(g.marks)
		g.marks = append(g.marks, from)
		for ; i > 0 && g.marks[i-1] > from; i-- {
			g.marks[i] = g.marks[i-1]
		}
		g.marks[i] = from
	}
}

// releasedSums notes the sums before the sample seq is released, if a
// loss began there.
func (g *group) releasedSums(seq uint64) {
	if seq == g.marks[0] {
		m := g.lossMark[seq]
		m.n, m.inv = g.relN, g.relInv
		g.lossMark[seq] = m
		g.marks = g.marks[1:]
	}
}

// lossParallelism is the parallelism of a thread's time in a loss (the
// pseudo-sample at seq): its samples there would have seen the group's
// threads that its group's samples there saw (each of them counts the lost
// thread, bridged, and itself), so it is their harmonic mean. Without such
// samples it is par, the parallelism where the thread resumed.
func (g *group) lossParallelism(seq uint64, par float64) float64 {
	from, ok := g.pseudoMark[seq]
	if !ok {
		return par
	}
	delete(g.pseudoMark, seq)
	m := g.lossMark[from]
	if m.refs--; m.refs == 0 {
		delete(g.lossMark, from)
	} else {
		g.lossMark[from] = m
	}
	if n := g.relN - m.n; n > 0 {
		return max(1, float64(n)/(g.relInv-m.inv))
	}
	return par
}

// ownStop stops th at its own SWITCH OUT or EXIT, written on cpu (-1:
// not printed): like its sample, it shows th on its CPU then.
func (t *tracker) ownStop(th *thread, now int64, how offHow, cpu int) {
	if cpu < 0 || cpu == th.cpu {
		t.ownSign, t.signCPU = true, th.cpu
	}
	t.stop(th, now, how)
	t.ownSign = false
}

// lossWindow is what a LOST record tells of its CPU's loss: it began
// after the CPU's last record printed before it (after; noTime if none is
// known) and ended at the LOST (at).
type lossWindow struct {
	after, at int64
	n         uint64 // records lost
}

const noTime = -1 << 62

// maxCPU bounds the CPUs whose records are followed (Linux allows 8192):
// a corrupt CPU column must not size a table.
const maxCPU = 1 << 16

// seenOn notes a record of cpu at now.
func (t *tracker) seenOn(cpu int, now int64) {
	if cpu >= maxCPU {
		return
	}
	for cpu >= len(t.cpuLast) {
		t.cpuLast = append(t.cpuLast, noTime)
	}
	t.cpuLast[cpu] = now
}

// lastOn is the time of cpu's latest record (noTime: none, or no CPU).
func (t *tracker) lastOn(cpu int) int64 {
	if cpu < 0 || cpu >= len(t.cpuLast) {
		return noTime
	}
	return t.cpuLast[cpu]
}

// ranThroughLoss reports that th, silent since from, ran through a loss
// of its records: a LOST record of its CPU (or of no printed CPU, as
// per-task traces write them) came in the silence, and th was sampled
// right before the loss and was on that CPU right after it (within the
// silence limit of its start and of the LOST: a thread still running is
// sampled within a period), by a sample, its SWITCH OUT or its EXIT there.
// Switch records are lost too, so less is no evidence: a thread switched
// in before the loss may have blocked in it (its OUT lost), and an IN or
// another task on its CPU after it says nothing of the loss. Without switch records a thread is silent for long anyway (the
// rate estimate), so there the loss's start must be known.
func (t *tracker) ranThroughLoss(th *thread, from, now int64) bool {
	if t.lostAt == nil || !t.ownSign || !th.segBySample {
		return false
	}
	for _, cpu := range [...]int{t.signCPU, -1} {
		w, ok := t.lostAt[cpu]
		if !ok || w.at <= from || w.at > now || now-w.at > t.cfg.Gap {
			continue
		}
		if w.after != noTime && w.after-from > t.cfg.Gap || w.after == noTime && t.rateMode() {
			continue // silent long before the loss began
		}
		if t.lossRun(th, from, now) > int64(w.n+2)*(t.cfg.Gap/silencePeriods) {
			// It would have lost more samples than the LOST says were lost
			// (its CPU may have been idle, printing nothing, before the
			// loss began).
			continue
		}
		return true
	}
	return false
}

// noteSpacing follows the spacing of th's samples at now: the mean, with
// weight 1/4 for the latest, of the spacings within the silence limit
// (longer ones are blocks the switch records tell, or losses).
func (t *tracker) noteSpacing(th *thread, now int64) {
	if d := now - th.sampleAt; th.sampleAt != noTime && d > 0 && d <= t.cfg.Gap {
		if th.spacing == 0 {
			th.spacing = d
		} else {
			th.spacing += (d - th.spacing) / 4
		}
	}
	th.sampleAt = now
}
