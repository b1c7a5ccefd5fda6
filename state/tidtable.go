package state

// TIDTable maps a thread id to a number (0: none): pages of 4096 tids for
// the tids Linux gives (below tidDense: pid_max is at most 2^22), a map
// for any other. A page whose entries take at most 16 values keeps each
// as a 4-bit index into its values (half a byte a tid), one that takes a
// single value (none set, or every tid of a process, its name) keeps
// that value alone; others 4 bytes a tid. Two million threads' names
// took 218 MB in a map of slices, 8 MB at 4 bytes each, some kilobytes
// now that neighbouring tids share a name and a process. The zero
// TIDTable is empty.
type TIDTable struct {
	pages []tidPage // tid>>tidPageBits -> its page
	big   map[int]uint32
	n     int // entries
}

const (
	tidPageBits = 12
	tidPageSize = 1 << tidPageBits
	tidDense    = 1 << 22
	// tidPacked is how many values a packed page holds (4-bit indices).
	tidPacked = 16
)

// tidPage is one page: raw (4 bytes a tid), packed (vals and 4-bit
// indices into them in idx), or uniform (every tid vals[0], or 0 with no
// vals).
type tidPage struct {
	raw  []uint32
	idx  []uint64
	vals []uint32
	// sets counts the changes since the page was last looked at for
	// fewer values (narrow), so that the look (4096 reads) costs at most
	// one read a change.
	sets int
}

func (p *tidPage) get(i int) uint32 {
	switch {
	case p.raw != nil:
		return p.raw[i]
	case p.idx != nil:
		return p.vals[p.idx[i>>4]>>(i&15*4)&15]
	case p.vals != nil:
		return p.vals[0]
	}
	return 0
}

// set sets entry i to v, widening the page if v is a value it cannot
// hold.
func (p *tidPage) set(i int, v uint32) {
	p.sets++
	if p.raw == nil {
		k := p.find(v)
		if k < 0 && p.sets >= tidPageSize {
			p.narrow() // values no entry has any more make room
			k = p.find(v)
		}
		if k < 0 && len(p.vals) < tidPacked {
			if p.idx == nil && len(p.vals) > 0 {
				p.idx = make([]uint64, tidPageSize/16) // every entry vals[0]
			}
			if p.vals == nil && v != 0 {
				p.vals = append(p.vals, 0) // the entries not set yet
				p.idx = make([]uint64, tidPageSize/16)
			}
			p.vals = append(p.vals, v)
			k = len(p.vals) - 1
		}
		if k >= 0 && p.idx != nil {
			w := &p.idx[i>>4]
			*w = *w&^(15<<(i&15*4)) | uint64(k)<<(i&15*4)
		} else if k < 0 {
			p.widen()
		}
	}
	if p.raw != nil {
		p.raw[i] = v
	}
	if p.sets >= tidPageSize {
		p.narrow()
	}
}

// find returns v's index in the page's values, -1 if none (0 is in an
// empty page).
func (p *tidPage) find(v uint32) int {
	if p.vals == nil && v == 0 {
		return 0
	}
	for k, x := range p.vals {
		if x == v {
			return k
		}
	}
	return -1
}

// widen makes the page raw.
func (p *tidPage) widen() {
	raw := make([]uint32, tidPageSize)
	for i := range raw {
		raw[i] = p.get(i)
	}
	p.raw, p.idx, p.vals = raw, nil, nil
}

// narrow keeps the page in the fewest bytes its entries allow: uniform
// (one value), packed (up to 16), or raw.
func (p *tidPage) narrow() {
	p.sets = 0
	var vals []uint32
	for i := 0; i < tidPageSize; i++ {
		v := p.get(i)
		if !containsVal(vals, v) {
			if len(vals) == tidPacked {
				if p.raw == nil {
					p.widen()
				}
				return
			}
			vals = append(vals, v)
		}
	}
	switch {
	case len(vals) == 1 && vals[0] == 0:
		*p = tidPage{}
	case len(vals) == 1:
		*p = tidPage{vals: vals}
	default:
		idx := make([]uint64, tidPageSize/16)
		for i := 0; i < tidPageSize; i++ {
			k := uint64(indexVal(vals, p.get(i)))
			idx[i>>4] |= k << (i & 15 * 4)
		}
		*p = tidPage{idx: idx, vals: vals}
	}
}

func containsVal(vals []uint32, v uint32) bool { return indexVal(vals, v) >= 0 }

func indexVal(vals []uint32, v uint32) int {
	for k, x := range vals {
		if x == v {
			return k
		}
	}
	return -1
}

// Get returns tid's entry (0: none).
func (t *TIDTable) Get(tid int) uint32 {
	if tid >= 0 && tid < tidDense {
		if p := tid >> tidPageBits; p < len(t.pages) {
			return t.pages[p].get(tid & (tidPageSize - 1))
		}
		return 0
	}
	return t.big[tid]
}

// Set sets tid's entry to v (0: deletes it).
func (t *TIDTable) Set(tid int, v uint32) {
	if tid < 0 || tid >= tidDense {
		t.setBig(tid, v)
		return
	}
	p := tid >> tidPageBits
	if p >= len(t.pages) {
		if v == 0 {
			return
		}
		t.pages = append(t.pages, make([]tidPage, p+1-len(t.pages))...)
	}
	page := &t.pages[p]
	old := page.get(tid & (tidPageSize - 1))
	switch {
	case old == v:
		return
	case old == 0:
		t.n++
	case v == 0:
		t.n--
	}
	page.set(tid&(tidPageSize-1), v)
}

func (t *TIDTable) setBig(tid int, v uint32) {
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
}

// Len returns the number of entries.
func (t *TIDTable) Len() int { return t.n }

// Each calls f for every entry, the tids below 2^22 in order first; f
// may Set entries that exist.
func (t *TIDTable) Each(f func(tid int, v uint32)) {
	for p := range t.pages {
		if page := &t.pages[p]; page.raw == nil && page.idx == nil && page.vals == nil {
			continue
		}
		for i := 0; i < tidPageSize; i++ {
			if v := t.pages[p].get(i); v != 0 {
				f(p<<tidPageBits|i, v)
			}
		}
	}
	for tid, v := range t.big {
		f(tid, v)
	}
}
