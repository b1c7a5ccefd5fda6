package hugemem

import (
	"syscall"
	"unsafe"
)

// madvHugepage is MADV_HUGEPAGE (the syscall package lacks it).
const madvHugepage = 14

// mapHuge maps Size bytes at a multiple of Size (twice that is mapped and
// the ends unmapped), advised for a huge page: its first touch then
// faults in all 2 MB at once when transparent huge pages are "always" or
// "madvise" (else 4 KB pages, as the heap's). The ends go by a raw
// munmap: the syscall package's takes back whole mappings only.
func mapHuge() []byte {
	b, err := syscall.Mmap(-1, 0, 2*Size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	off := int(-p % Size)
	if off > 0 {
		syscall.Syscall(syscall.SYS_MUNMAP, p, uintptr(off), 0)
	}
	if off < Size {
		syscall.Syscall(syscall.SYS_MUNMAP, p+uintptr(off)+Size, uintptr(Size-off), 0)
	}
	b = b[off : off+Size : off+Size]
	syscall.Madvise(b, madvHugepage) // advice: without it, 4 KB pages
	return b[:0]
}
