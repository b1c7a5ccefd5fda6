package hugemem

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// escape holds TestAdviseHeap's early object.
var escape *[64]byte

// TestAdviseHeap: AdviseHeap's object is freed again, a large allocation
// after it reuses that range, and the kernel holds that range advised
// for huge pages ("hg" in its mapping's VmFlags, /proc/self/smaps), while
// the heap's first mapping (where a small object made before lives) is
// not.
func TestAdviseHeap(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage"); err != nil {
		t.Skip("no transparent huge pages on this kernel:", err)
	}
	early := new([64]byte)
	escape = early // on the heap, not on a stack that may move
	AdviseHeap()
	AdviseHeap() // once per process
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	if m.HeapAlloc >= heapBytes {
		t.Errorf("after AdviseHeap: %d bytes of heap in use, want its %d freed", m.HeapAlloc, heapBytes)
	}
	big := make([]byte, heapBytes/2)
	// its last byte: its start may take a few free pages below the range
	if flags := vmFlags(t, uintptr(unsafe.Pointer(&big[len(big)-1]))); !strings.Contains(flags, " hg") {
		t.Errorf("a %d MB object after AdviseHeap: VmFlags%s, want hg", len(big)>>20, flags)
	}
	if flags := vmFlags(t, uintptr(unsafe.Pointer(early))); strings.Contains(flags, " hg") {
		t.Errorf("an object made before: VmFlags%s, want no hg", flags)
	}
	runtime.KeepAlive(big)
	runtime.KeepAlive(early)
}

// vmFlags is the VmFlags line (after its colon) of the mapping that holds
// addr in /proc/self/smaps.
func vmFlags(t *testing.T, addr uintptr) string {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	in := false
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := s.Text()
		if lo, hi, ok := mappingRange(line); ok {
			in = lo <= addr && addr < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimPrefix(line, "VmFlags:")
		}
	}
	t.Fatalf("%#x: no mapping in /proc/self/smaps (%v)", addr, s.Err())
	return ""
}

// mappingRange reads a mapping's first line: "lo-hi perms ...".
func mappingRange(line string) (lo, hi uintptr, ok bool) {
	span, _, found := strings.Cut(line, " ")
	a, b, dash := strings.Cut(span, "-")
	if !found || !dash {
		return 0, 0, false
	}
	l, err1 := strconv.ParseUint(a, 16, 64)
	h, err2 := strconv.ParseUint(b, 16, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return uintptr(l), uintptr(h), true
}
