package emit

import (
	"cmp"
	"slices"

	"github.com/wallfold/wallfold/internal/hugemem"
)

// sampleTable keeps a profile's samples by key: the entries in the
// order they came, in chunks (never copied as they grow), found by an
// open-addressing hash table of their indices. (A Go map of the 36-byte
// keys cost a hash call and two lookups per sample, and page faults as it
// grew, about 6 % of a pprof run's CPU time; its entries would also have
// to be copied out to be sorted.)
type sampleTable struct {
	entries chunkList[sampleEntry] // chunks of 224 KB
	slots   []uint32               // entry index + 1, 0: empty; a power of 2 long, at most half full
}

func (t *sampleTable) entry(i uint32) *sampleEntry { return t.entries.at(i) }

// hugeSlots is the fewest slots cut from huge pages (256 KB).
const hugeSlots = 1 << 16

// sampleEntry is a sample key and its values.
type sampleEntry struct {
	k sampleKey
	v sampleVal
}

// at returns the values of the sample with key k, a new sample's if
// none; the pointer is good until the next call.
func (t *sampleTable) at(k sampleKey) *sampleVal {
	if 2*t.entries.n >= len(t.slots) {
		t.grow()
	}
	mask := uint64(len(t.slots) - 1)
	for i := k.hash() & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			j := t.entries.add(sampleEntry{k: k})
			t.slots[i] = j + 1
			return &t.entry(j).v
		}
		if e := t.entry(s - 1); e.k == k {
			return &e.v
		}
	}
}

// grow doubles the slots. Large ones are cut from huge pages (the slots
// were 1 MB allocated on the way to 512 KB on an 86 MB trace, 246 page
// faults), where they are not given back: those of a small table come
// from the heap.
func (t *sampleTable) grow() {
	n := max(1024, 2*len(t.slots))
	if n >= hugeSlots {
		t.slots = hugemem.Make[uint32](n)
	} else {
		t.slots = make([]uint32, n)
	}
	mask := uint64(len(t.slots) - 1)
	for j := range t.entries.n {
		i := t.entry(uint32(j)).k.hash() & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = uint32(j + 1)
	}
}

// hash mixes every field of k (the finalizer of MurmurHash3 over their
// sum with odd multipliers).
func (k sampleKey) hash() uint64 {
	h := uint64(uint32(k.win))<<32 | uint64(k.stack)
	h += (uint64(k.comm)<<32 | uint64(uint32(k.pid))) * 0x9e3779b97f4a7c15
	h += (uint64(uint32(k.tid))<<32 | uint64(uint32(k.par))) * 0xc2b2ae3d27d4eb4f
	h += (uint64(k.state)<<32 | uint64(k.waker)) * 0x165667b19e3779f9
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
}

// sorted returns the indices of the samples sorted by key, window and
// stack first (a stable order makes the output reproducible); merged:
// all in window 0, samples that differ only by window made one (the
// first's values their sum). nStacks bounds the stack ids. The entries
// are sorted by index, not moved: a sorted copy of them was 2 MB of
// fresh memory on an 86 MB trace, 499 page faults. Only the entries are
// kept: at is not called again.
func (t *sampleTable) sorted(merged bool, nStacks int) []uint32 {
	t.slots = nil
	n := t.entries.n
	if n == 0 {
		return nil
	}
	cs := t.entries.chunks
	cs[len(cs)-1] = cs[len(cs)-1][:(n-1)%chunkLen+1]
	lo, hi := cs[0][0].k.win, cs[0][0].k.win
	for _, c := range cs {
		for i := range c {
			lo, hi = min(lo, c[i].k.win), max(hi, c[i].k.win)
		}
	}
	// Only keys of different windows can become equal.
	merge := merged && lo != hi
	if merged {
		for _, c := range cs {
			for i := range c {
				c[i].k.win = 0
			}
		}
		lo, hi = 0, 0
	}
	// By stack, then (stable) by window: counting sorts, the ids being
	// dense; then each run of one window and stack by its labels.
	out := t.countingSort(nil, nStacks, func(k *sampleKey) int { return int(k.stack) })
	if lo != hi {
		if n := int(hi) - int(lo) + 1; n <= 4*len(out)+1024 {
			out = t.countingSort(out, n, func(k *sampleKey) int { return int(k.win - lo) })
		} else {
			slices.SortStableFunc(out, func(x, y uint32) int { return cmp.Compare(t.entry(x).k.win, t.entry(y).k.win) })
		}
	}
	for i := 0; i < len(out); {
		k := &t.entry(out[i]).k
		j := i + 1
		for j < len(out) && t.entry(out[j]).k.win == k.win && t.entry(out[j]).k.stack == k.stack {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(out[i:j], func(x, y uint32) int { return cmpLabels(t.entry(x).k, t.entry(y).k) })
		}
		i = j
	}
	if merge {
		out = t.mergeEqual(out)
	}
	return out
}

// countingSort returns the indices of the entries (in order: src, or
// all by index when src is nil) ordered by key (0 <= key < n), stably.
func (t *sampleTable) countingSort(src []uint32, n int, key func(*sampleKey) int) []uint32 {
	at := make([]uint32, n+1)
	each := func(f func(i uint32, k *sampleKey)) {
		if src != nil {
			for _, i := range src {
				f(i, &t.entry(i).k)
			}
			return
		}
		i := uint32(0)
		for _, c := range t.entries.chunks {
			for j := range c {
				f(i, &c[j].k)
				i++
			}
		}
	}
	each(func(_ uint32, k *sampleKey) { at[key(k)+1]++ })
	for i := 1; i <= n; i++ {
		at[i] += at[i-1]
	}
	dst := make([]uint32, t.entries.n)
	each(func(i uint32, k *sampleKey) {
		x := key(k)
		dst[at[x]] = i
		at[x]++
	})
	return dst
}

// mergeEqual makes samples with the same key, adjacent in order, one.
func (t *sampleTable) mergeEqual(order []uint32) []uint32 {
	out := order[:0]
	for _, i := range order {
		e := t.entry(i)
		if n := len(out); n > 0 && t.entry(out[n-1]).k == e.k {
			v := &t.entry(out[n-1]).v
			v.n, v.cpu, v.wall = v.n+e.v.n, v.cpu+e.v.cpu, v.wall+e.v.wall
			continue
		}
		out = append(out, i)
	}
	return out
}

// cmpLabels orders sample keys of one window and stack by their labels.
func cmpLabels(a, b sampleKey) int {
	if c := cmp.Compare(a.comm, b.comm); c != 0 {
		return c
	}
	if c := cmp.Compare(a.pid, b.pid); c != 0 {
		return c
	}
	if c := cmp.Compare(a.tid, b.tid); c != 0 {
		return c
	}
	if c := cmp.Compare(a.par, b.par); c != 0 {
		return c
	}
	if c := cmp.Compare(a.state, b.state); c != 0 {
		return c
	}
	return cmp.Compare(a.waker, b.waker)
}
