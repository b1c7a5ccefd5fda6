// Package hugemem hands out blocks of memory that Linux backs with huge
// pages (2 MB), for the largest pointer-free tables a run fills: the frame
// table's line text (parse) and the stacks' ids (emit). Each 4 KB page a
// run touches first costs a page fault, and on a virtualized guest these
// dominate what a run's memory costs: 12 µs per 4 KB page, against 110 µs
// for a whole 2 MB page (measured on this project's machine, a PVM guest).
//
// The Go heap takes huge pages only in one piece prepared ahead
// (AdviseHeap): the runtime maps it in pieces of its own, and zeroes
// reused memory before a caller could advise it. So the tables' blocks
// are mapped apart from it, and never returned: the tables live as long
// as a run, and their bytes are aliased (map keys, frames' fields) where
// the collector would not see into memory it does not own. A process
// may take at most MaxBytes; after that, and on other systems, Bytes
// returns nil and callers allocate as usual. Alloc hands out pieces of
// shared blocks, for tables smaller than a block (a hash index, the
// frame table's entries, a profile's chunks), also never returned.
package hugemem

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// Size is a block's size: one huge page.
const Size = 2 << 20

// MaxBytes bounds the blocks a process takes (a test binary runs many
// conversions: its first ones use blocks, later ones the heap).
const MaxBytes = 256 << 20

var taken atomic.Int64

// Bytes returns a zeroed block of Size bytes, at length 0, or nil when
// the process has taken MaxBytes or the system will not map it.
func Bytes() []byte {
	if taken.Add(Size) > MaxBytes {
		taken.Add(-Size)
		return nil
	}
	b := mapHuge()
	if b == nil {
		taken.Add(-Size)
	}
	return b
}

// Uint32s is Bytes as Size/4 uint32s.
func Uint32s() []uint32 {
	b := Bytes()
	if b == nil {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(b))), Size/4)[:0]
}

// pieces is the block Alloc carves: what is left of it.
var pieces struct {
	sync.Mutex
	left []byte
}

// pieceAlign keeps every piece on its own cache lines.
const pieceAlign = 64

// Alloc returns n zeroed bytes (n <= Size) at a multiple of 64, carved
// from a shared block (a new one when what is left is too small: the
// rest of the old one is not used), or nil when Bytes gives no block.
// Tables whose pieces Alloc gives are not returned, like Bytes'.
func Alloc(n int) []byte {
	if n <= 0 || n > Size {
		return nil
	}
	pieces.Lock()
	defer pieces.Unlock()
	if len(pieces.left) < n {
		b := Bytes()
		if b == nil {
			return nil
		}
		pieces.left = b[:Size]
	}
	b := pieces.left[:n:n]
	k := min(len(pieces.left), (n+pieceAlign-1)&^(pieceAlign-1))
	pieces.left = pieces.left[k:]
	return b
}

// Slice is Alloc as n zero values of T. The collector does not look
// into the piece: what pointers in T point to must be kept alive
// elsewhere.
func Slice[T any](n int) []T {
	var v T
	b := Alloc(n * int(unsafe.Sizeof(v)))
	if b == nil {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// Make is Slice, or n zero values in the Go heap when Slice has none:
// for a table piece that may be in either (what pointers in T point to
// is kept alive elsewhere, as for Slice).
func Make[T any](n int) []T {
	if s := Slice[T](n); s != nil {
		return s
	}
	return make([]T, n)
}
