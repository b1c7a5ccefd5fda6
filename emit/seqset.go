package emit

import (
	"hash/maphash"
	"unsafe"

	"github.com/wallfold/wallfold/internal/hashindex"
	"github.com/wallfold/wallfold/internal/hugemem"
)

// seqSet interns sequences of ids (stacks of name or location ids) and
// numbers them from 0. It is looked up by a 64-bit hash of the sequence
// in a hashindex.Index: a probe compares 32 bits of the hash kept
// beside each id, and the sequence only where they match; the index
// grows without hashing a sequence again.
//
// Where each sequence is kept is a pointer-free seqLoc, not a slice: the
// collector has nothing to scan in seqs (a slice header per stack was a
// pointer for each of its cycles to follow), nor in the index.
type seqSet struct {
	seqs  []seqLoc        // by id: where each sequence is
	arena idArena         // where the sequences are
	index hashindex.Index // hash -> id+1
	seed  maphash.Seed
}

// seqLoc is where a sequence is: chunk, offset and length in the arena.
type seqLoc struct{ chunk, off, n uint32 }

func newSeqSet() seqSet {
	return seqSet{index: hashindex.New(), seed: maphash.MakeSeed()}
}

// id returns the id of ids, which it keeps (a copy) if new.
func (t *seqSet) id(ids []uint32) uint32 {
	return t.idHash(ids, maphash.Bytes(t.seed, idBytes(ids)))
}

// idHash is id with h the hash of ids (tests: any).
func (t *seqSet) idHash(ids []uint32, h uint64) uint32 {
	p := t.index.Start(h)
	for v := t.index.Next(&p); v != 0; v = t.index.Next(&p) {
		if string(idBytes(t.seq(v-1))) == string(idBytes(ids)) {
			return v - 1
		}
	}
	id := uint32(len(t.seqs))
	t.seqs = append(grown(t.seqs), t.arena.add(ids))
	t.index.Add(p, id+1)
	return id
}

// dropIndex lets the collector have the index: id is not called again.
func (t *seqSet) dropIndex() { t.index = hashindex.Index{} }

// seq returns the sequence with id.
func (t *seqSet) seq(id uint32) []uint32 {
	l := t.seqs[id]
	return t.arena.chunks[l.chunk][l.off : l.off+l.n : l.off+l.n]
}

// idArena keeps sequences of ids in large chunks: no allocation per
// sequence. Past the first chunk, a large trace's, the chunks are huge
// pages where the system gives them (hugemem): 2.3 MB of stacks took 600
// page faults in 4 KB pages.
type idArena struct {
	chunks [][]uint32
	total  int // ids kept
}

const arenaChunk = 1 << 16

func (a *idArena) add(ids []uint32) seqLoc {
	k := len(a.chunks) - 1
	if k < 0 || cap(a.chunks[k])-len(a.chunks[k]) < len(ids) {
		var c []uint32
		if k >= 0 && len(ids) <= hugemem.Size/4 {
			c = hugemem.Uint32s()
		}
		if c == nil {
			c = make([]uint32, 0, max(arenaChunk, len(ids)))
		}
		a.chunks = append(a.chunks, c)
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
