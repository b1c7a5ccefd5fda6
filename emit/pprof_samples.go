package emit

import (
	"cmp"
	"slices"
)

// sampleTable keeps a profile's samples by key: the entries in the
// order they came, in chunks (never copied as they grow), found by an
// open-addressing hash table of their indices. (A Go map of the 36-byte
// keys cost a hash call and two lookups per sample, and page faults as it
// grew, about 6 % of a pprof run's CPU time; its entries would also have
// to be copied out to be sorted.)
type sampleTable struct {
	chunks [][]sampleEntry // of sampleChunk entries, the last one filling
	n      int
	slots  []uint32 // entry index + 1, 0: empty; a power of 2 long, at most half full
}

// sampleChunk is the entries in a chunk (224 KB of them).
const sampleChunk = 4096

func (t *sampleTable) entry(i uint32) *sampleEntry {
	return &t.chunks[i/sampleChunk][i%sampleChunk]
}

// sampleEntry is a sample key and its values.
type sampleEntry struct {
	k sampleKey
	v sampleVal
}

// at returns the values of the sample with key k, a new sample's if
// none; the pointer is good until the next call.
func (t *sampleTable) at(k sampleKey) *sampleVal {
	if 2*t.n >= len(t.slots) {
		t.grow()
	}
	mask := uint64(len(t.slots) - 1)
	for i := k.hash() & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			if t.n%sampleChunk == 0 {
				t.chunks = append(t.chunks, make([]sampleEntry, sampleChunk))
			}
			e := t.entry(uint32(t.n))
			e.k = k
			t.n++
			t.slots[i] = uint32(t.n)
			return &e.v
		}
		if e := t.entry(s - 1); e.k == k {
			return &e.v
		}
	}
}

func (t *sampleTable) grow() {
	t.slots = make([]uint32, max(1024, 2*len(t.slots)))
	mask := uint64(len(t.slots) - 1)
	for j := range t.n {
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

// sorted returns the samples sorted by key, window and stack first (a
// stable order makes the output reproducible); merged: all in window 0,
// samples that differ only by window made one. nStacks bounds the stack
// ids. The table is spent.
func (t *sampleTable) sorted(merged bool, nStacks int) []sampleEntry {
	if t.n == 0 {
		return nil
	}
	es := t.chunks
	es[len(es)-1] = es[len(es)-1][:(t.n-1)%sampleChunk+1]
	lo, hi := es[0][0].k.win, es[0][0].k.win
	for _, c := range es {
		for i := range c {
			if merged {
				c[i].k.win = 0
			}
			lo, hi = min(lo, c[i].k.win), max(hi, c[i].k.win)
		}
	}
	// By stack, then (stable) by window: counting sorts, the ids being
	// dense; then each run of one window and stack by its labels.
	out := make([]sampleEntry, t.n)
	countingSort(out, es, nStacks, func(k *sampleKey) int { return int(k.stack) })
	*t = sampleTable{}
	if lo != hi {
		if n := int(hi) - int(lo) + 1; n <= 4*len(out)+1024 {
			byWin := make([]sampleEntry, len(out))
			countingSort(byWin, [][]sampleEntry{out}, n, func(k *sampleKey) int { return int(k.win - lo) })
			out = byWin
		} else {
			slices.SortStableFunc(out, func(x, y sampleEntry) int { return cmp.Compare(x.k.win, y.k.win) })
		}
	}
	for i := 0; i < len(out); {
		j := i + 1
		for j < len(out) && out[j].k.win == out[i].k.win && out[j].k.stack == out[i].k.stack {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(out[i:j], func(x, y sampleEntry) int { return cmpLabels(x.k, y.k) })
		}
		i = j
	}
	if merged {
		out = mergeEqual(out)
	}
	return out
}

// countingSort puts the entries of src's slices into dst in order of
// key (0 <= key < n), stably.
func countingSort(dst []sampleEntry, src [][]sampleEntry, n int, key func(*sampleKey) int) {
	at := make([]int, n+1)
	for _, c := range src {
		for i := range c {
			at[key(&c[i].k)+1]++
		}
	}
	for i := 1; i <= n; i++ {
		at[i] += at[i-1]
	}
	for _, c := range src {
		for i := range c {
			k := key(&c[i].k)
			dst[at[k]] = c[i]
			at[k]++
		}
	}
}

// mergeEqual makes adjacent samples with the same key one.
func mergeEqual(es []sampleEntry) []sampleEntry {
	out := es[:0]
	for _, e := range es {
		if n := len(out); n > 0 && out[n-1].k == e.k {
			v := &out[n-1].v
			v.n, v.cpu, v.wall = v.n+e.v.n, v.cpu+e.v.cpu, v.wall+e.v.wall
			continue
		}
		out = append(out, e)
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
