package emit

// Sorting the folded lines by their stacks' tokens (see ranks): a
// multikey quicksort (Bentley and Sedgewick's three-way radix quicksort)
// partitions on one stack position at a time, so that the long prefixes
// stacks share (comm;runtime.goexit;...) are read once per partition
// rather than once per comparison, as a comparison sort does.

// foldLine is a folded line to sort: its stack's name ids and weight.
type foldLine struct {
	frames []uint32
	n      uint64
}

// key is the sort key of line l at position d: 0 past its end (an
// empty stack sorts first), else 1 + the rank of the token there.
func (r *ranks) key(l *foldLine, d int) uint32 {
	switch {
	case d >= len(l.frames):
		return 0
	case d == len(l.frames)-1:
		return r.end[l.frames[d]] + 1
	}
	return r.semi[l.frames[d]] + 1
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
		if len(a) == 0 || d >= len(a[0].frames)-1 {
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
		if ka == 0 || d >= len(a.frames)-1 {
			return false // the same stack
		}
		d++
	}
}
