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

// lostTime queues th's CPU time between its samples at from and at now,
// bar the period the sample at now stands for, as one pseudo-sample where
// it resumed: its samples in the loss are gone, its time is not.
func (t *tracker) lostTime(th *thread, from, now int64) {
	missing := now - from - t.cfg.Gap/silencePeriods
	if missing <= 0 || th.lastRef < 0 {
		return
	}
	g := th.g
	g.q = append(g.q, pending{s: sample{Time: from, PID: th.pid, TID: th.tid, CPU: -1,
		Period: uint64(missing), Ref: th.lastRef, Lost: true}, diff: g.tail})
	g.tail = 0
	g.seq++
}

// ranThroughLoss reports that th, silent since from, ran through a loss
// of its records: a LOST record of its CPU (or of no printed CPU, as
// per-task traces write them) came in the silence, and th was sampled
// right before it and right after it (within the silence limit of the
// LOST: a thread still running when records resumed is sampled within a
// period). Switch records are lost too, so less is no evidence: a thread
// switched in before the loss may have blocked in it (its OUT lost), and
// an IN, an OUT or another task on its CPU after it says nothing of the
// loss.
func (t *tracker) ranThroughLoss(th *thread, from, now int64) bool {
	if t.lostAt == nil || !t.ownSign || !th.segBySample {
		return false
	}
	for _, cpu := range [...]int{t.signCPU, -1} {
		if at, ok := t.lostAt[cpu]; ok && at > from && at <= now && now-at <= t.cfg.Gap {
			return true
		}
	}
	return false
}
