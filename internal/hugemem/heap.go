package hugemem

import "sync"

// heapBytes is how much of the Go heap AdviseHeap prepares: about what a
// folded run of a large trace holds at its peak (gb2.txt by
// GODEBUG=gctrace: 11 MB on one CPU, 17 MB with two CPUs' batches), so
// that most of a run's heap lands in it.
const heapBytes = 16 << 20

var heapOnce sync.Once

// AdviseHeap puts the next heapBytes of the Go heap on huge pages, once
// per process, on Linux (elsewhere it does nothing). A run's heap is
// made of tables that grow by copying, so without it nearly every 4 KB
// page it touches costs a fault: on gobuild.txt's samples, 2,600 faults
// fell to about 1,000 and CPU time by 9-17 % (docs/performance.md). Called
// first in main: kong's start allocates 0.5 MB. It costs a collection,
// about 3 ms on an empty input, so it is for a process, not for tests
// that run many conversions.
func AdviseHeap() { heapOnce.Do(adviseHeap) }
