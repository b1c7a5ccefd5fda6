package state

import (
	"fmt"
	"strings"
	"testing"
)

// TestColdStoreBound: threads seen once each, far more than the cold
// store's bound holds (set to two chunks here). Its memory stays within
// the bound; the threads dropped are counted and said; the samples'
// parallelism is what it is without a bound (a thread seen once and
// never again reads nothing of its record); a thread whose record was
// dropped and that comes back is new, counted once, and said.
func TestColdStoreBound(t *testing.T) {
	const threads = 40_000 // some 30 bytes a record: 1.2 MB, the bound 512 KiB
	run := func(bound int) (*Model, []Weighted) {
		old := coldBoundChunks
		coldBoundChunks = bound
		defer func() { coldBoundChunks = old }()
		m := NewModel(Options{Scope: Process})
		var out []Weighted
		for i := 0; i < threads; i++ {
			m.Add(new(clockSample(1e9+int64(i)*100_000, 1000, 1000+i, -1, i)))
			out = append(out, m.Ready()...)
			if c := &m.t.cold; len(c.chunks) > bound {
				t.Fatalf("bound %d: %d chunks in the cold store at thread %d", bound, len(c.chunks), i)
			}
		}
		// The first thread comes back: its record was dropped long ago.
		m.Add(new(clockSample(1e9+int64(threads)*100_000, 1000, 1000, -1, threads)))
		out = append(append(out, m.Ready()...), m.Close()...)
		return m, out
	}
	bounded, got := run(2)
	_, want := run(1 << 12)
	if len(got) != len(want) {
		t.Fatalf("%d samples released with the bound, %d without", len(got), len(want))
	}
	for i := range got {
		if got[i].Parallelism != want[i].Parallelism || got[i].TID != want[i].TID {
			t.Fatalf("sample %d: tid %d parallelism %v with the bound, tid %d %v without", i, got[i].TID, got[i].Parallelism, want[i].TID, want[i].Parallelism)
		}
	}
	c := &bounded.t.cold
	if c.dropped < threads/4 || c.returned != 1 {
		t.Errorf("%d records dropped, %d threads came back after: want at least a quarter of %d dropped (the last second, 10 000 threads, is live; the bound keeps some 15 000), 1 back", c.dropped, c.returned, threads)
	}
	if n := bounded.t.counts().Threads; n != threads {
		t.Errorf("%d threads counted, want %d", n, threads)
	}
	said := fmt.Sprintf("%d quiet thread(s) were forgotten whole", c.dropped)
	if ws := strings.Join(bounded.Warnings(), "\n"); !strings.Contains(ws, said) || !strings.Contains(ws, "1 of them came back") {
		t.Errorf("warnings %q, want %q and that 1 came back", ws, said)
	}
	if th := bounded.t.threads[1000]; th == nil || th.firstAt != 1e9+int64(threads)*100_000 {
		t.Errorf("thread 1000 after its return: %+v, want a new thread", th)
	}
}

// TestColdStoreShippedBound: 400 000 threads seen once (14 MB of
// records) keep at most 8 MiB of them, the oldest dropped (the bound was
// 32 MiB: all kept), and some 240 000 threads' records fit in that.
func TestColdStoreShippedBound(t *testing.T) {
	if testing.Short() {
		t.Skip("400 000 threads")
	}
	const threads = 400_000
	m := NewModel(Options{Scope: Workload})
	for i := 0; i < threads; i++ {
		m.Add(new(clockSample(1e9+int64(i)*100_000, 1000, 1000+i, -1, i)))
		m.Ready()
	}
	c := &m.t.cold
	if kept := len(c.chunks) << coldChunkBits; kept > 8<<20 || c.dropped == 0 {
		t.Errorf("%d bytes of records kept, %d dropped: want at most 8 MiB kept, the oldest dropped", kept, c.dropped)
	}
	if kept := c.at.Len() - c.dropped; kept < 230_000 {
		t.Errorf("%d threads' records kept in %d chunks, want some 240 000", kept, len(c.chunks))
	}
}
