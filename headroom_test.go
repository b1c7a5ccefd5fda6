package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
)

// TestBoundHeadroom: with 160 MiB live, the memory limit after a
// collection is the live heap and a half (240 MiB and a little), not
// unlimited (the collector's default, where the heap may double).
func TestBoundHeadroom(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 160 MiB")
	}
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("GOGC", "")
	old := debug.SetMemoryLimit(-1)
	stop := boundHeadroom()
	defer func() {
		stop()
		debug.SetMemoryLimit(old)
	}()
	live := make([][]byte, 160)
	for i := range live {
		live[i] = make([]byte, 1<<20)
	}
	for i := 0; i < 4; i++ {
		runtime.GC() // the hook runs after a collection, in the finalizer goroutine
	}
	limit := debug.SetMemoryLimit(-1)
	runtime.KeepAlive(live)
	if limit == math.MaxInt64 || limit < 230<<20 || limit > 260<<20 {
		t.Errorf("memory limit %d MiB with 160 MiB live, want about 240", limit>>20)
	}
}
