package emit

import (
	"cmp"
	"slices"
)

// sampleTable keeps a profile's samples by key: the entries in the
// order they came, found by an open-addressing hash table of their
// indices. (A Go map of the 36-byte keys cost a hash call and two
// lookups per sample, and page faults as it grew, about 6 % of a pprof
// run's CPU time; its entries would also have to be copied out to be
// sorted.)
type sampleTable struct {
	es    []sampleEntry
	slots []uint32 // index + 1 in es, 0: empty; a power of 2 long, at most half full
}

// sampleEntry is a sample key and its values.
type sampleEntry struct {
	k sampleKey
	v sampleVal
}

// at returns the values of the sample with key k, a new sample's if
// none; the pointer is good until the next call.
func (t *sampleTable) at(k sampleKey) *sampleVal {
	if 2*len(t.es) >= len(t.slots) {
		t.grow()
	}
	mask := uint64(len(t.slots) - 1)
	for i := k.hash() & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			t.es = append(t.es, sampleEntry{k: k})
			t.slots[i] = uint32(len(t.es))
			return &t.es[len(t.es)-1].v
		}
		if e := &t.es[s-1]; e.k == k {
			return &e.v
		}
	}
}

func (t *sampleTable) grow() {
	t.slots = make([]uint32, max(1024, 2*len(t.slots)))
	mask := uint64(len(t.slots) - 1)
	for j := range t.es {
		i := t.es[j].k.hash() & mask
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
	es := t.es
	*t = sampleTable{}
	if len(es) == 0 {
		return nil
	}
	lo, hi := es[0].k.win, es[0].k.win
	for i := range es {
		if merged {
			es[i].k.win = 0
		}
		lo, hi = min(lo, es[i].k.win), max(hi, es[i].k.win)
	}
	// By stack, then (stable) by window: counting sorts, the ids being
	// dense; then each run of one window and stack by its labels.
	out := make([]sampleEntry, len(es))
	countingSort(out, es, nStacks, func(k *sampleKey) int { return int(k.stack) })
	if lo != hi {
		if n := int(hi) - int(lo) + 1; n <= 4*len(es)+1024 {
			countingSort(es, out, n, func(k *sampleKey) int { return int(k.win - lo) })
			es, out = out, es
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

// countingSort puts src's entries into dst in order of key (0 <= key <
// n), stably.
func countingSort(dst, src []sampleEntry, n int, key func(*sampleKey) int) {
	at := make([]int, n+1)
	for i := range src {
		at[key(&src[i].k)+1]++
	}
	for i := 1; i <= n; i++ {
		at[i] += at[i-1]
	}
	for i := range src {
		k := key(&src[i].k)
		dst[at[k]] = src[i]
		at[k]++
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
