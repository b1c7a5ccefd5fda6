package emit

import (
	"runtime"
	"testing"
	"unsafe"

	"github.com/wallfold/wallfold/internal/hugemem"
)

// TestChunkListHuge: a list with huge pages keeps its values, its first
// chunk on the heap and the next ones cut one after another from one
// huge page (on Linux), shared with the other lists.
func TestChunkListHuge(t *testing.T) {
	huge := &hugeChunks{}
	a, b := chunkList[sampleEntry]{huge: huge}, chunkList[location]{huge: huge}
	for i := range 3 * chunkLen {
		a.add(sampleEntry{k: sampleKey{stack: uint32(i)}})
		b.add(location{addr: uint64(i)})
	}
	for i := range uint32(3 * chunkLen) {
		if a.at(i).k.stack != i || b.at(i).addr != uint64(i) {
			t.Fatalf("value %d: %d, %d", i, a.at(i).k.stack, b.at(i).addr)
		}
	}
	if runtime.GOOS != "linux" {
		return
	}
	addr := func(p unsafe.Pointer) uintptr { return uintptr(p) }
	first := addr(unsafe.Pointer(a.at(chunkLen)))
	if first%hugemem.Size != 0 {
		t.Errorf("second chunk at %#x: not at a huge page's start", first)
	}
	size := chunkLen * unsafe.Sizeof(sampleEntry{})
	if next := addr(unsafe.Pointer(b.at(chunkLen))); next != first+size {
		t.Errorf("the other list's second chunk at %#x, want %#x (after the first list's)", next, first+size)
	}
	if heap := addr(unsafe.Pointer(a.at(0))); heap >= first && heap < first+hugemem.Size {
		t.Errorf("first chunk at %#x, in the huge page", heap)
	}
}
