package state

import "testing"

// benchEvents is a per-task trace of 8 threads of one process sharing 2
// CPUs: each runs 3 ms at a time (a SWITCH IN, a sample per ms, a SWITCH
// OUT), about n events in all, with FORKs and EXITs at the ends. With
// cpus, each record names its CPU (as perf record -a prints them).
func benchEvents(n int, cpus bool) []Event {
	const period = 1001001
	var evs []Event
	for tid := 101; tid <= 108; tid++ {
		evs = append(evs, Event{Kind: KindFork, PID: 100, TID: tid})
	}
	now := int64(1e9)
	ref := 0
	for len(evs) < n {
		for slot := 0; slot < 4; slot++ {
			a, b := 101+2*slot, 102+2*slot
			cpuA, cpuB := -1, -1
			if cpus {
				cpuA, cpuB = 0, 1
			}
			cpuOf := map[int]int{a: cpuA, b: cpuB}
			evs = append(evs, Event{Kind: KindSwitch, Time: now, PID: 100, TID: a, CPU: cpuA},
				Event{Kind: KindSwitch, Time: now + 1000, PID: 100, TID: b, CPU: cpuB})
			for i := int64(1); i <= 3; i++ {
				for _, tid := range []int{a, b} {
					ref++
					evs = append(evs, Event{Kind: KindSample, Clock: true, HasPeriod: true, HasTime: true,
						Time: now + i*period + int64(tid), PID: 100, TID: tid, CPU: cpuOf[tid], Period: period, Ref: ref})
				}
			}
			now += 3*period + 2000
			evs = append(evs, Event{Kind: KindSwitch, Out: true, Time: now, PID: 100, TID: a, CPU: cpuA},
				Event{Kind: KindSwitch, Out: true, Time: now + 1000, PID: 100, TID: b, CPU: cpuB})
		}
	}
	for tid := 101; tid <= 108; tid++ {
		evs = append(evs, Event{Kind: KindExit, Time: now, PID: 100, TID: tid})
	}
	return evs
}

// BenchmarkModel is the model alone, per event (a record of perf script
// text is about 100 bytes in a per-task trace with -g: divide by that to
// compare with the reader's MB/s).
func BenchmarkModel(b *testing.B) {
	for _, c := range []struct {
		name  string
		scope Scope
		cpus  bool
	}{{"auto", Auto, false}, {"process", Process, false}, {"auto-cpus", Auto, true}} {
		scope := c.scope
		b.Run(c.name, func(b *testing.B) {
			evs := benchEvents(100000, c.cpus)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				m := NewModel(Options{Scope: scope})
				released := 0
				for _, e := range evs {
					m.Add(&e) // a copy: Add may change it
					released += len(m.Ready())
				}
				released += len(m.Close())
				if released == 0 {
					b.Fatal("nothing released")
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/event")
		})
	}
}
