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

// lostBetween reports a LOST record of th's CPU (or of no printed CPU, as
// per-task traces write them) in (from, to].
func (t *tracker) lostBetween(th *thread, from, to int64) bool {
	if t.lostAt == nil {
		return false
	}
	for _, cpu := range [...]int{th.cpu, -1} {
		if at, ok := t.lostAt[cpu]; ok && at > from && at <= to {
			return true
		}
	}
	return false
}
