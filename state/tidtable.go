package state

// TIDTable maps a thread id to a number (0: none) in 4 bytes a thread:
// pages of a dense array for the tids Linux gives (below tidDense:
// pid_max is at most 2^22), a map for any other. Two million threads'
// names took 218 MB in a map of slices; in one of these, 8 MB. The zero
// TIDTable is empty.
type TIDTable struct {
	pages [][]uint32 // tid>>tidPageBits -> its page (nil: none yet)
	big   map[int]uint32
	n     int // entries
}

const (
	tidPageBits = 12
	tidDense    = 1 << 22
)

// Get returns tid's entry (0: none).
func (t *TIDTable) Get(tid int) uint32 {
	if tid >= 0 && tid < tidDense {
		if p := tid >> tidPageBits; p < len(t.pages) && t.pages[p] != nil {
			return t.pages[p][tid&(1<<tidPageBits-1)]
		}
		return 0
	}
	return t.big[tid]
}

// Set sets tid's entry to v (0: deletes it).
func (t *TIDTable) Set(tid int, v uint32) {
	var slot *uint32
	if tid >= 0 && tid < tidDense {
		p := tid >> tidPageBits
		for len(t.pages) <= p {
			t.pages = append(t.pages, nil)
		}
		if t.pages[p] == nil {
			if v == 0 {
				return
			}
			t.pages[p] = make([]uint32, 1<<tidPageBits)
		}
		slot = &t.pages[p][tid&(1<<tidPageBits-1)]
	} else {
		_, ok := t.big[tid]
		switch {
		case v == 0 && ok:
			delete(t.big, tid)
			t.n--
		case v != 0 && !ok:
			if t.big == nil {
				t.big = make(map[int]uint32)
			}
			t.n++
		}
		if v != 0 {
			t.big[tid] = v
		}
		return
	}
	switch {
	case *slot == 0 && v != 0:
		t.n++
	case *slot != 0 && v == 0:
		t.n--
	}
	*slot = v
}

// Len returns the number of entries.
func (t *TIDTable) Len() int { return t.n }

// Each calls f for every entry, the tids below 2^22 in order first; f
// may Set entries that exist.
func (t *TIDTable) Each(f func(tid int, v uint32)) {
	for p, page := range t.pages {
		for i, v := range page {
			if v != 0 {
				f(p<<tidPageBits|i, v)
			}
		}
	}
	for tid, v := range t.big {
		f(tid, v)
	}
}
