package state

import "testing"

// TestExitedKept: threads forked, sampled once and exited, one every
// 100 µs (10 000 a second). An exited thread is kept the silence limit
// (3 ms here) and reapDelay (0.2 s) after its EXIT, no longer: at the end
// some 2 000 threads are kept (a second's, 10 000, before), the thread
// structs and map entries a fork-heavy trace holds.
func TestExitedKept(t *testing.T) {
	const threads, every = 30_000, 100_000
	m := NewModel(Options{Scope: Process})
	for i := 0; i < threads; i++ {
		at, tid := 1e9+int64(i)*every, 1000+i
		m.Add(&Event{Kind: KindFork, Time: at, PID: 1000, TID: tid, ParentPID: 1000, CPU: -1, Ref: OtherEvent})
		m.Add(new(clockSample(at+10_000, 1000, tid, -1, i)))
		m.Add(&Event{Kind: KindExit, Time: at + 20_000, PID: 1000, TID: tid, CPU: -1, Ref: OtherEvent})
		m.Ready()
	}
	// The tracker's clock is the look-ahead (0.1 s) behind the last
	// record: threads that exited in [now-0.203 s, now] are kept, the
	// records in the window not yet counted.
	kept := len(m.t.threads) + m.t.cold.at.Len()
	t.Logf("%d threads kept", kept)
	want := int((2*lookaheadNs + 3e6) / every)
	if kept > want+100 {
		t.Errorf("%d threads kept, want at most %d (those that exited in the last 0.2 s)", kept, want+100)
	}
	m.Close()
	if n := m.t.counts().Threads; n > want+100 {
		t.Errorf("%d threads counted at the end, want at most %d", n, want+100)
	}
}
