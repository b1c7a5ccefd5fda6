package emit

import "github.com/wallfold/wallfold/internal/hugemem"

// chunkList is a list of values in chunks of chunkLen: it grows without
// copying, and holds at most one chunk more than it needs. A slice grown
// by doubling had copies as large as its contents in memory new to the
// process (a page fault per 4 KB): the Locations of an 86 MB trace were
// 950 KB of slice, 1.9 MB allocated on the way, against 455 KB of
// chunks. A value's address stays the same as the list grows.
//
// A list's first chunk is the heap's (most traces need no more); later
// ones are cut from huge pages (hugemem) when huge is set, which T must
// then hold no pointers for.
type chunkList[T any] struct {
	chunks [][]T
	n      int
	huge   bool
}

// chunkLen is the values in a chunk (a power of 2).
const chunkLen = 4096

// at returns the value at index i.
func (l *chunkList[T]) at(i uint32) *T { return &l.chunks[i/chunkLen][i%chunkLen] }

// add appends v and returns its index.
func (l *chunkList[T]) add(v T) uint32 {
	if l.n%chunkLen == 0 {
		l.chunks = append(l.chunks, l.newChunk())
	}
	i := l.n
	l.chunks[i/chunkLen][i%chunkLen] = v
	l.n++
	return uint32(i)
}

func (l *chunkList[T]) newChunk() []T {
	if len(l.chunks) > 0 && l.huge {
		return hugemem.Make[T](chunkLen)
	}
	return make([]T, chunkLen)
}
