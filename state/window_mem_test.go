package state

import (
	"runtime"
	"testing"
	"unsafe"
)

// TestMemoryOfTheWindow: threads seen once each, 10 µs apart, with no
// switch records (scripts/many-threads.sh once): each waits the rate
// estimate's limit (1000 periods) for its next sample, so some 100 000
// threads, their samples and their open gaps are live at any moment.
// What the model holds then, a live thread (the cold store's records
// of the threads that went quiet before aside), measured: 586 bytes
// while the queue and the open-gap lists were slices cut at their head,
// 481 in rings (fifo.go), 492 once the threads stopped by silence were
// forgotten sooner (fewer threads, the rings as large), 455 with the
// thread struct at 256 bytes (TestThreadSize), 433 with rings grown by a
// quarter.
func TestMemoryOfTheWindow(t *testing.T) {
	const threads = 250_000
	base := heapInUse()
	m := NewModel(Options{Scope: Workload})
	for i := 0; i < threads; i++ {
		e := clockSample(100e9+int64(i)*10_000, 1000, 1001+i, -1, i)
		e.Period = 1001001
		m.Add(&e)
		m.Ready()
	}
	live := len(m.t.threads)
	cold := m.t.cold.live + 4*m.t.cold.at.Len() // its records, 4 bytes a tid at most for their places
	perThread := float64(heapInUse()-base-int64(cold)) / float64(live)
	t.Logf("%d live threads: %.0f bytes each", live, perThread)
	// The rate limit is 1000 periods of 1.001 ms: 100 100 threads. A
	// thread stopped by that silence is forgotten at the next record
	// (quiet since its sample), not the forgetAfter later (110 402 live).
	if live < 100_100 || live > 100_200 {
		t.Errorf("%d live threads, want the rate limit's 100 100 (and the one sampled now)", live)
	}
	if perThread > 460 {
		t.Errorf("%.0f bytes a live thread, want at most 460", perThread)
	}
	runtime.KeepAlive(m)
}

// TestThreadSize: a thread struct is 256 bytes (a size class of Go's
// allocator); with each part's small fields padded apart it was 288, 32
// bytes more for each of the 100 000 threads of TestMemoryOfTheWindow.
func TestThreadSize(t *testing.T) {
	if size := unsafe.Sizeof(thread{}); size > 256 {
		t.Errorf("a thread struct is %d bytes, want at most 256", size)
	}
}

// TestCloseRoom: the samples still waiting at Close (the rate limit's
// second of threads seen once) come out in a slice the size they need,
// not append's doubling (131 072 for 100 101 before).
func TestCloseRoom(t *testing.T) {
	m := NewModel(Options{Scope: Workload})
	for i := 0; i < 150_000; i++ {
		e := clockSample(100e9+int64(i)*10_000, 1000, 1001+i, -1, i)
		e.Period = 1001001
		m.Add(&e)
		m.Ready()
	}
	out := m.Close()
	if len(out) < 100_000 || cap(out) > len(out)+len(out)/20 {
		t.Errorf("Close released %d samples in a slice of %d, want 100 000 or more in one at most 5 %% larger", len(out), cap(out))
	}
}

// TestHeldRingShrinks: a ring that held a pipe's look-ahead (a second of
// records, 100 000) gives its memory back as it empties; it kept its
// largest size (12 MB) for the rest of the trace. It halves as records
// come, not as they go: the trace ends with them all going.
func TestHeldRingShrinks(t *testing.T) {
	var r heldRing
	for i := 0; i < 100_000; i++ {
		r.add(lookaheadMax).e.Time = int64(i)
	}
	for i := 0; i < 99_000; i++ {
		if h := r.pop(); h.e.Time != int64(i) {
			t.Fatalf("pop %d: time %d", i, h.e.Time)
		}
	}
	for i := 100_000; i < 100_100; i++ { // the trace goes on
		r.add(lookaheadMax).e.Time = int64(i)
		r.pop()
	}
	if len(r.buf) > 8*r.size+4096 { // heldRingMin
		t.Errorf("a ring of %d for %d records", len(r.buf), r.size)
	}
	if h := r.first(); h.e.Time != 99_100 {
		t.Errorf("first record %d after the pops, want 99 100", h.e.Time)
	}
}

// TestRemadeSmall: a map that held a million threads and holds 100 000
// now is remade at the size of what it holds (maps.Clone kept its tables:
// 28 MB cloned, 2.3 MB remade).
func TestRemadeSmall(t *testing.T) {
	m := map[int]*thread{}
	for i := 0; i < 1_000_000; i++ {
		m[i] = nil
	}
	for i := 0; i < 900_000; i++ {
		delete(m, i)
	}
	base := heapInUse()
	r := remade(m)
	if grew := heapInUse() - base; grew > 6<<20 || len(r) != len(m) {
		t.Errorf("remade %d of %d entries in %d bytes, want at most 6 MiB", len(r), len(m), grew)
	}
	runtime.KeepAlive(m)
	runtime.KeepAlive(r)
}
