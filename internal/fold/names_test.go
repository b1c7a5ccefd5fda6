package fold

import (
	"runtime"
	"strconv"
	"testing"

	"github.com/wallfold/wallfold/parse"
)

// head is a record's prefix: comm, tid (and pid -1), cpu, time in µs.
func head(kind parse.Kind, comm string, tid, cpu int, us int64) *parse.Record {
	return &parse.Record{Kind: kind, Comm: []byte(comm), PID: -1, TID: tid, HasTID: true, CPU: cpu, Time: us * 1000, HasTime: true}
}

func task(kind parse.Kind, comm string, tid, cpu int, us int64, subject, parent int) *parse.Record {
	r := head(kind, comm, tid, cpu, us)
	r.SubjectPID, r.SubjectTID, r.ParentPID, r.ParentTID = subject, subject, parent, parent
	return r
}

// TestThreadNames: the names records get, in the orders perf 7 prints
// them (build.perf7.txt: fork, exec, samples, EXIT, ":TID" sample and
// switch-out; a non-leader thread's ":-1  -1" after its EXIT).
func TestThreadNames(t *testing.T) {
	n := newThreadNames()
	comm := func(r *parse.Record) string { n.fix(r); return string(r.Comm) }
	steps := []struct {
		rec  *parse.Record
		want string
	}{
		{head(parse.KindSample, ":500", 500, 0, 1), ":500"}, // nothing known: perf's name stays
		{task(parse.KindFork, "sh", 100, 0, 10, 200, 100), "sh"},
		{head(parse.KindSwitchCPUWide, "sh", 200, 1, 11), "sh"},
		{func() *parse.Record {
			r := task(parse.KindComm, "true", 200, 1, 12, 200, 200)
			r.NewComm = []byte("true")
			return r
		}(), "true"},
		{head(parse.KindSample, "true", 200, 1, 13), "true"},
		{task(parse.KindExit, "true", 200, 1, 14, 200, 100), "true"},
		{head(parse.KindSample, ":200", 200, 1, 15), "true"},
		{head(parse.KindSwitchCPUWide, ":200", 200, 1, 16), "true"},
		{head(parse.KindSample, ":201", 200, 1, 17), ":201"}, // not this thread's placeholder
		// A thread of process 300 exits; its last records carry -1.
		{head(parse.KindSample, "worker", 301, 0, 20), "worker"},
		{task(parse.KindExit, "worker", 301, 0, 21, 301, 300), "worker"},
		{head(parse.KindSample, ":-1", -1, 0, 22), "worker"},
		{head(parse.KindSwitchCPUWide, ":-1", -1, 0, 23), "worker"},
		// CPU 0 runs another thread, alive: ":-1" is not its.
		{head(parse.KindSwitchCPUWide, "make", 400, 0, 24), "make"},
		{head(parse.KindSample, ":-1", -1, 0, 25), ":-1"},
		{head(parse.KindSample, ":-1", -1, 3, 26), ":-1"}, // a CPU with no record
		// The exited tid 200 reused: the new thread has its parent's name.
		{task(parse.KindFork, "make", 400, 0, 30, 200, 400), "make"},
		{task(parse.KindExit, "make", 200, 0, 31, 200, 400), "make"},
		{head(parse.KindSample, ":200", 200, 0, 32), "make"},
		// Synthesized FORK at time 0: the comm is the subject's placeholder.
		{task(parse.KindFork, ":600", 0, 0, 0, 600, 1), ":600"},
		{head(parse.KindSample, ":600", 600, 0, 33), ":600"},
	}
	for i, s := range steps {
		if got := comm(s.rec); got != s.want {
			t.Errorf("step %d (%v %s tid %d): comm %q, want %q", i, s.rec.Kind, s.rec.Comm, s.rec.TID, got, s.want)
		}
	}
}

// TestThreadNamesBounded: threads that exited long ago are forgotten, so
// that the table does not grow with a long trace's threads.
func TestThreadNamesBounded(t *testing.T) {
	n := newThreadNames()
	const threads = 200000
	for i := 0; i < threads; i++ {
		tid := 1000 + i
		us := int64(i) * 1000 // a thread a millisecond
		n.fix(head(parse.KindSample, "cc1", tid, 0, us))
		n.fix(task(parse.KindExit, "cc1", tid, 0, us+1, tid, 1))
	}
	// 10 s of threads at most, and the table doubles before it prunes.
	if max := 2 * int(keepAfterExit/1e6); n.byTID.Len() > max {
		t.Errorf("%d threads kept, want at most %d", n.byTID.Len(), max)
	}
	last := 1000 + threads - 1
	r := head(parse.KindSample, ":"+strconv.Itoa(last), last, 0, int64(threads)*1000)
	if n.fix(r); string(r.Comm) != "cc1" {
		t.Errorf("the last thread: %q", r.Comm)
	}
}

// TestThreadNamesNoAlloc: a record of a known thread costs no allocation.
func TestThreadNamesNoAlloc(t *testing.T) {
	n := newThreadNames()
	a := head(parse.KindSample, "cc1", 10, 0, 1)
	b := head(parse.KindSample, "as", 11, 1, 2)
	n.fix(a)
	n.fix(b)
	if allocs := testing.AllocsPerRun(1000, func() { n.fix(a); n.fix(b) }); allocs != 0 {
		t.Errorf("%v allocations per two records", allocs)
	}
}

// BenchmarkThreadNames: the per-record cost, records of 3 and of 200
// threads in turn.
func BenchmarkThreadNames(b *testing.B) {
	for _, threads := range []int{3, 200} {
		b.Run(strconv.Itoa(threads), func(b *testing.B) {
			n := newThreadNames()
			recs := make([]*parse.Record, threads)
			for i := range recs {
				recs[i] = head(parse.KindSample, "worker-"+strconv.Itoa(i%7), 100+i, i%2, int64(i))
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				n.fix(recs[i%threads])
			}
		})
	}
}

// TestThreadNamesMemoryPerThread: threads seen once each, under a few
// names, cost a few bytes each (the name's index), not a copy or a slice
// of the name: two million threads' names took 218 MB.
func TestThreadNamesMemoryPerThread(t *testing.T) {
	const threads = 1 << 18
	recs := []*parse.Record{head(parse.KindSample, "worker", 0, 0, 0), head(parse.KindSample, "cc1", 0, 1, 0)}
	before := heapInUse()
	n := newThreadNames()
	for i := 0; i < threads; i++ {
		r := recs[i%2]
		r.TID, r.Time = 1000+i, int64(i)*1000
		n.fix(r)
	}
	grew := heapInUse() - before
	if perThread := float64(grew) / threads; perThread > 16 {
		t.Errorf("%.1f bytes a thread (heap %d bytes more for %d threads), want at most 16", perThread, grew, threads)
	}
	r := head(parse.KindSample, ":"+strconv.Itoa(1000+threads-1), 1000+threads-1, 0, threads*1000)
	if n.fix(r); string(r.Comm) != "cc1" {
		t.Errorf("the last thread: %q", r.Comm)
	}
	runtime.KeepAlive(&n)
}

// heapInUse is the heap in use after a collection.
func heapInUse() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapInuse)
}
