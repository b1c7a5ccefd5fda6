package emit

import (
	"runtime"
	"testing"
	"unsafe"

	"github.com/wallfold/wallfold/internal/hugemem"
)

// TestChunkListHuge: a list with huge pages keeps its values, its first
// chunk on the heap and the next ones cut from hugemem's shared blocks
// (on Linux): right after what was cut before them, or at the start of
// a new block.
func TestChunkListHuge(t *testing.T) {
	a, b := chunkList[sampleEntry]{huge: true}, chunkList[location]{huge: true}
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
	size := chunkLen * unsafe.Sizeof(sampleEntry{})
	next := addr(unsafe.Pointer(b.at(chunkLen)))
	if next != first+size && next%hugemem.Size != 0 {
		t.Errorf("the other list's second chunk at %#x: neither after the first list's (%#x) nor a new block", next, first+size)
	}
	page := first &^ (hugemem.Size - 1)
	if heap := addr(unsafe.Pointer(a.at(0))); heap >= page && heap < page+hugemem.Size {
		t.Errorf("first chunk at %#x, in the huge page", heap)
	}
}

// TestSampleSlotsHuge: a sample table finds each of 40,000 samples
// again after its slots grew, and its large slots are cut from a huge
// page that holds chunks of its entries, or start a block (on Linux).
func TestSampleSlotsHuge(t *testing.T) {
	s := sampleTable{entries: chunkList[sampleEntry]{huge: true}}
	const n = 40000
	for i := range n {
		s.at(sampleKey{stack: uint32(i), pid: int32(i % 7)}).n = int64(i)
	}
	for i := range n {
		if v := s.at(sampleKey{stack: uint32(i), pid: int32(i % 7)}); v.n != int64(i) {
			t.Fatalf("sample %d: n %d", i, v.n)
		}
	}
	if s.entries.n != n || len(s.slots) != 1<<17 {
		t.Fatalf("%d entries, %d slots; want %d, %d", s.entries.n, len(s.slots), n, 1<<17)
	}
	if runtime.GOOS != "linux" {
		return
	}
	page := func(p unsafe.Pointer) uintptr { return uintptr(p) &^ (hugemem.Size - 1) }
	slots := page(unsafe.Pointer(&s.slots[0]))
	if uintptr(unsafe.Pointer(&s.slots[0])) == slots {
		return // at the start of a block of its own
	}
	for i := uint32(chunkLen); i < n; i += chunkLen {
		if page(unsafe.Pointer(s.entry(i))) == slots {
			return
		}
	}
	t.Errorf("slots in the page at %#x, with no chunk of entries", slots)
}

// TestStackSumsChunks: numbers added to stacks either side of a chunk's
// end, in several chunks, read back as an independent map of them says,
// each stack's K numbers apart from its neighbours'; a stack past every
// chunk has none.
func TestStackSumsChunks(t *testing.T) {
	s := &StackSums{K: 3}
	want := map[[2]int]float64{}
	for _, id := range []int{0, 1, sumsChunk - 1, sumsChunk, sumsChunk + 1, 3*sumsChunk + 7} {
		for k := range s.K {
			v := float64(id*10 + k + 1)
			s.Add(uint32(id), k, v)
			s.Add(uint32(id), k, v/2)
			want[[2]int{id, k}] += v + v/2
		}
	}
	for id := range 4 * sumsChunk {
		got := s.of(uint32(id))
		if len(got) != s.K {
			t.Fatalf("stack %d: %d numbers, want %d", id, len(got), s.K)
		}
		for k, v := range got {
			if v != want[[2]int{id, k}] {
				t.Fatalf("stack %d number %d: %v, want %v", id, k, v, want[[2]int{id, k}])
			}
		}
	}
	if got := s.of(4 * sumsChunk); got != nil {
		t.Errorf("a stack past the chunks: %v, want nil", got)
	}
}
