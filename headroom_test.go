package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
)

// TestBoundHeadroom: with 160 MiB live, and with 64 MiB, the memory
// limit after a collection is the live heap and a half (240 MiB, 96 MiB,
// and a little), not unlimited (the collector's default, where the heap
// may double), nor the floor (it was 128 MiB).
func TestBoundHeadroom(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 160 MiB")
	}
	for _, mib := range []int{160, 64} {
		limit := headroomWith(t, mib)
		if want := int64(mib) * 3 / 2; limit == math.MaxInt64 || limit < (want-10)<<20 || limit > (want+20)<<20 {
			t.Errorf("memory limit %d MiB with %d MiB live, want about %d", limit>>20, mib, want)
		}
	}
}

// headroomWith returns the memory limit boundHeadroom sets with mib MiB
// live.
func headroomWith(t *testing.T, mib int) int64 {
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("GOGC", "")
	old := debug.SetMemoryLimit(-1)
	stop := boundHeadroom()
	defer func() {
		stop()
		debug.SetMemoryLimit(old)
	}()
	live := make([][]byte, mib)
	for i := range live {
		live[i] = make([]byte, 1<<20)
	}
	for i := 0; i < 4; i++ {
		runtime.GC() // the hook runs after a collection, in the finalizer goroutine
	}
	limit := debug.SetMemoryLimit(-1)
	runtime.KeepAlive(live)
	return limit
}
