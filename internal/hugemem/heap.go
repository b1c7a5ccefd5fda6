package hugemem

import "sync"

// HeapBytes is how much of the Go heap AdviseHeap prepares: above what a
// folded or svg run of a large trace keeps (4-8 MB by GODEBUG=gctrace),
// so that most of a run's heap lands in it.
const HeapBytes = 16 << 20

var heapOnce sync.Once

// AdviseHeap puts the next HeapBytes of the Go heap on huge pages, once
// per process, on Linux (elsewhere it does nothing). A run's heap is
// made of short-lived tables that grow by copying, so without it nearly
// every 4 KB page it touches costs a fault: on gobuild.txt's samples,
// 2,500 faults fell to 1,300 and CPU time by 8 % (docs/performance.md).
// It costs a collection and about 6 ms on an empty input, so it is for
// the process that converts a trace, not for tests that convert many.
func AdviseHeap() { heapOnce.Do(adviseHeap) }
