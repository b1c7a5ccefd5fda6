package emit

import "unsafe"

// Sorting the folded lines by their stacks' tokens (see ranks): a
// multikey quicksort (Bentley and Sedgewick's three-way radix quicksort)
// partitions on one stack position at a time, so that the long prefixes
// stacks share (comm;runtime.goexit;...) are read once per partition
// rather than once per comparison, as a comparison sort does.

// foldLine is a folded line to sort: its stack's name ids (Stacks.Frames,
// n of them, from a pointer: 16 bytes a line instead of a slice's and a
// weight's 32; 35,000 lines took 180 page faults more) and its id, which
// gives its weight when it is written.
type foldLine struct {
	frames *uint32
	n, id  uint32
}

func newFoldLine(frames []uint32, id uint32) foldLine {
	return foldLine{unsafe.SliceData(frames), uint32(len(frames)), id}
}

// stack is l's name ids.
func (l *foldLine) stack() []uint32 { return unsafe.Slice(l.frames, l.n) }

// key is the sort key of line l at position d: 0 past its end (an
// empty stack sorts first), else 1 + the rank of the token there.
func (r *ranks) key(l *foldLine, d int) uint32 {
	n := int(l.n)
	if d >= n {
		return 0
	}
	id := *(*uint32)(unsafe.Add(unsafe.Pointer(l.frames), d*4)) // d < n
	if d == n-1 {
		return r.end[id] + 1
	}
	return r.semi[id] + 1
}

// sortLines sorts a, whose stacks agree before position d.
func (r *ranks) sortLines(a []foldLine, d int) {
	for len(a) > 1 {
		if len(a) < 12 {
			r.insertionSort(a, d)
			return
		}
		p := r.key(&a[len(a)/2], d)
		x, y := r.key(&a[0], d), r.key(&a[len(a)-1], d)
		p = median3(x, p, y)
		// a[:lt] < p, a[lt:i] == p, a[gt:] > p
		lt, i, gt := 0, 0, len(a)
		for i < gt {
			switch k := r.key(&a[i], d); {
			case k < p:
				a[lt], a[i] = a[i], a[lt]
				lt++
				i++
			case k > p:
				gt--
				a[i], a[gt] = a[gt], a[i]
			default:
				i++
			}
		}
		r.sortLines(a[:lt], d)
		r.sortLines(a[gt:], d)
		// The lines equal at d go on at d+1, unless their stacks end at
		// d (then they are one stack).
		a = a[lt:gt]
		if len(a) == 0 || d >= int(a[0].n)-1 {
			return
		}
		d++
	}
}

func median3(a, b, c uint32) uint32 {
	if a > b {
		a, b = b, a
	}
	if b > c {
		b = c
	}
	return max(a, b)
}

// insertionSort sorts a few lines that agree before position d.
func (r *ranks) insertionSort(a []foldLine, d int) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && r.less(&a[j], &a[j-1], d); j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// less compares two lines that agree before position d.
func (r *ranks) less(a, b *foldLine, d int) bool {
	for {
		ka, kb := r.key(a, d), r.key(b, d)
		if ka != kb {
			return ka < kb
		}
		if ka == 0 || d >= int(a.n)-1 {
			return false // the same stack
		}
		d++
	}
}
