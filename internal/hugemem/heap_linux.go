package hugemem

import (
	"runtime"
	"syscall"
	"unsafe"
)

// adviseHeap maps heapBytes of Go heap at once, by allocating one object
// that large (fresh from the system, so untouched), advises that range
// for huge pages, and frees it again with a collection, so the run's
// allocations reuse it (the runtime takes the lowest free pages first).
// The runtime maps its heap in pieces of its own and advises none of
// them; later pieces, past this one, stay on 4 KB pages.
func adviseHeap() {
	b := make([]byte, heapBytes)
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	syscall.Syscall(syscall.SYS_MADVISE, p, heapBytes, madvHugepage)
	runtime.KeepAlive(b)
	b = nil
	runtime.GC()
}
