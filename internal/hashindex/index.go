// Package hashindex finds values by a 64-bit hash of their keys, for
// tables that keep their keys themselves (parse's frame table, emit's
// stack sets) and need only "which values may have this key?".
//
// It is open addressing with linear probing over one array of 8-byte
// slots, each 32 bits of the key's hash (its tag) beside the value: a
// lookup reads one slot or a few neighbours, usually in one cache line,
// and the caller compares a key only where the tag matched (Go's
// map[string] compared a string's length and pointer in one place and
// its bytes in another, after hashing it). The index doubles without
// hashing any key again: the tag says where a slot goes. The slots hold
// no pointers, so the collector does not scan them.
package hashindex

import "github.com/wallfold/wallfold/internal/hugemem"

// Index maps hashes to non-zero uint32 values. Start, Next and Add are
// its whole use: walk the values whose tag matches a hash; if none is
// the key's, add the key's value where the walk stopped.
type Index struct {
	slots []uint64 // tag<<32 | value; 0: empty
	n     int      // values held
	huge  bool     // NewHuge's
}

// Probe is a walk through the slots where a hash's values may be.
type Probe struct{ i, tag uint32 }

// minSlots is an empty index's size: 8 KB.
const minSlots = 1 << 10

// New returns an empty index.
func New() Index { return Index{slots: make([]uint64, minSlots)} }

// NewHuge returns an empty index whose slots, from hugeFrom bytes up to
// a huge page's 2 MB, are pieces of huge pages (hugemem.Alloc), where the
// system gives them: for an index that lives as long as a run and is
// read at random, a slot's first touch costs a page fault per 4 KB
// otherwise (~300 for the frame table's and the stack set's of a go
// build trace) and its reads a TLB miss. Those pieces are never
// returned: the sizes an index grows through take at most twice its last.
func NewHuge() Index { return Index{slots: make([]uint64, minSlots), huge: true} }

// hugeFrom is the size from which NewHuge's slots are in huge pages.
const hugeFrom = 64 << 10

// Len is the number of values held.
func (x *Index) Len() int { return x.n }

// Start begins the walk for hash h. The tag is h's high half, and its
// low bits (as many as the index has slots) are the first slot.
func (x *Index) Start(h uint64) Probe {
	tag := uint32(h >> 32)
	return Probe{tag & uint32(len(x.slots)-1), tag}
}

// Next returns the next value on p's walk whose slot has p's tag (a
// value that may be the key's: the caller compares), or 0 at the first
// empty slot, where p then stays for Add.
func (x *Index) Next(p *Probe) uint32 {
	mask := uint32(len(x.slots) - 1)
	for {
		s := x.slots[p.i&mask]
		if s == 0 {
			return 0
		}
		p.i = (p.i + 1) & mask
		if uint32(s>>32) == p.tag {
			return uint32(s)
		}
	}
}

// Add puts v (non-zero) in the empty slot where p's walk ended (Next
// returned 0), with no Add since. It keeps at least a quarter of the
// slots empty, so that walks stay short.
func (x *Index) Add(p Probe, v uint32) {
	x.slots[p.i] = uint64(p.tag)<<32 | uint64(v)
	x.n++
	if x.n > len(x.slots)/4*3 {
		x.grow()
	}
}

// grow doubles the slots, each put where its tag says in the new size.
func (x *Index) grow() {
	slots := x.newSlots(2 * len(x.slots))
	mask := uint32(len(slots) - 1)
	for _, s := range x.slots {
		if s == 0 {
			continue
		}
		i := uint32(s>>32) & mask
		for slots[i] != 0 {
			i = (i + 1) & mask
		}
		slots[i] = s
	}
	x.slots = slots
}

// newSlots returns n empty slots.
func (x *Index) newSlots(n int) []uint64 {
	if x.huge && n*8 >= hugeFrom {
		return hugemem.Make[uint64](n)
	}
	return make([]uint64, n)
}
