package emit

import (
	"hash/maphash"
	"slices"
	"unsafe"
)

// seqSet interns sequences of ids (stacks of name or location ids) and
// numbers them from 0. It is looked up by a 64-bit hash of the sequence
// (the map's keys are then 8 bytes, cheap to rehash as it grows, instead
// of the sequence's hundreds of bytes); sequences with the same hash are
// chained and told apart by comparing them.
//
// Where each sequence is kept is a pointer-free seqLoc, not a slice: the
// collector has nothing to scan in seqs (a slice header per stack was a
// pointer for each of its cycles to follow).
type seqSet struct {
	seqs  []seqLoc // by id: where each sequence is
	arena idArena  // where the sequences are
	head  map[uint64]uint32
	next  []uint32 // by id: the id+1 of the next sequence with its hash, 0: none
	seed  maphash.Seed
}

// seqLoc is where a sequence is: chunk, offset and length in the arena.
type seqLoc struct{ chunk, off, n uint32 }

func newSeqSet() seqSet {
	return seqSet{head: make(map[uint64]uint32), seed: maphash.MakeSeed()}
}

// id returns the id of ids, which it keeps (a copy) if new.
func (t *seqSet) id(ids []uint32) uint32 {
	return t.idHash(ids, maphash.Bytes(t.seed, idBytes(ids)))
}

// idHash is id with h the hash of ids (tests: any).
func (t *seqSet) idHash(ids []uint32, h uint64) uint32 {
	first := t.head[h]
	for i := first; i != 0; i = t.next[i-1] {
		if slices.Equal(t.seq(i-1), ids) {
			return i - 1
		}
	}
	id := uint32(len(t.seqs))
	t.seqs = append(grown(t.seqs), t.arena.add(ids))
	t.next = append(grown(t.next), first)
	t.head[h] = id + 1
	return id
}

// seq returns the sequence with id.
func (t *seqSet) seq(id uint32) []uint32 {
	l := t.seqs[id]
	return t.arena.chunks[l.chunk][l.off : l.off+l.n : l.off+l.n]
}

// idArena keeps sequences of ids in large chunks: no allocation per
// sequence.
type idArena struct {
	chunks [][]uint32
	total  int // ids kept
}

const arenaChunk = 1 << 16

func (a *idArena) add(ids []uint32) seqLoc {
	k := len(a.chunks) - 1
	if k < 0 || cap(a.chunks[k])-len(a.chunks[k]) < len(ids) {
		a.chunks = append(a.chunks, make([]uint32, 0, max(arenaChunk, len(ids))))
		k++
	}
	c := a.chunks[k]
	n := len(c)
	a.chunks[k] = append(c, ids...)
	a.total += len(ids)
	return seqLoc{uint32(k), uint32(n), uint32(len(ids))}
}

// idBytes is ids' memory as bytes, without a copy.
func idBytes(ids []uint32) []byte {
	if len(ids) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&ids[0])), len(ids)*4)
}
