package emit

import (
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Weight selects what a folded line counts.
type Weight uint8

const (
	// Wall is the sum of period/parallelism: the wall-clock profile.
	Wall Weight = iota
	// CPU is the plain sum of periods: the ordinary CPU profile.
	CPU
)

// Totals accumulates the weights of each stack id.
type Totals struct {
	CPU  []uint64
	Wall []float64
	N    []uint64 // samples
}

// Add adds one sample of stack id.
func (t *Totals) Add(id uint32, period uint64, wall float64) {
	for int(id) >= len(t.CPU) {
		t.CPU = append(grown(t.CPU), 0)
		t.Wall = append(grown(t.Wall), 0)
		t.N = append(grown(t.N), 0)
	}
	t.CPU[id] += period
	t.Wall[id] += wall
	t.N[id]++
}

// WriteFolded writes one line per stack, "root;...;leaf WEIGHT", sorted as
// inferno sorts them (bytewise). Wall weights are rounded once, here;
// stacks whose weight rounds to 0 are left out.
//
// The lines are neither built nor kept as strings: stacks are sorted by
// their names' ranks (sortLines), or by comparing their frame names as
// the joined lines would compare (cmpJoined), and written name by name.
func WriteFolded(w io.Writer, s *Stacks, t *Totals, weight Weight) error {
	lines := make([]foldLine, 0, len(t.CPU))
	for id := range t.CPU {
		if _, ok := t.weight(uint32(id), weight); ok {
			lines = append(lines, newFoldLine(s.Frames(uint32(id)), uint32(id)))
		}
	}
	if rk, ok := nameRanks(s); ok {
		rk.sortLines(lines, 0)
	} else {
		slices.SortFunc(lines, func(a, b foldLine) int { return cmpJoined(s, a.stack(), b.stack()) })
	}
	// Lines are built in one buffer, written when it holds 64 KiB.
	const flushAt = 1 << 16
	b := make([]byte, 0, flushAt+4096)
	var last lastLine
	for _, l := range lines {
		n, _ := t.weight(l.id, weight)
		b = last.build(b, s, l.stack())
		b = append(b, ' ')
		b = strconv.AppendUint(b, n, 10)
		b = append(b, '\n')
		if len(b) >= flushAt {
			if _, err := w.Write(b); err != nil {
				return err
			}
			b = b[:0]
			last.frames = nil
		}
	}
	_, err := w.Write(b)
	return err
}

// weight is stack id's folded weight, and whether it has a line: a CPU
// weight for every stack sampled, a wall weight when it rounds above 0.
func (t *Totals) weight(id uint32, weight Weight) (uint64, bool) {
	if weight == CPU {
		return t.CPU[id], t.N[id] != 0
	}
	n := uint64(math.Round(t.Wall[id]))
	return n, n != 0
}

// lastLine is the stack of the folded line last built and where its
// names end in the buffer. Sorted lines share long prefixes
// (comm;runtime.goexit;runtime.main;...): the names a line has in common
// with the one before it are copied from that line in one piece, not
// name by name.
type lastLine struct {
	frames []uint32 // nil: not in the buffer
	start  int      // where the line starts in the buffer
	ends   []int    // ends[i]: the offset after its name i, from start
}

// build appends the names of stack frames, joined with ';', to b.
func (l *lastLine) build(b []byte, s *Stacks, frames []uint32) []byte {
	k := 0
	for k < len(frames) && k < len(l.frames) && frames[k] == l.frames[k] {
		k++
	}
	start := len(b)
	if k > 0 {
		b = append(b, b[l.start:l.start+l.ends[k-1]]...)
	}
	l.ends = l.ends[:k]
	for i := k; i < len(frames); i++ {
		if i > 0 {
			b = append(b, ';')
		}
		b = append(b, s.Name(frames[i])...)
		l.ends = append(l.ends, len(b)-start)
	}
	l.frames, l.start = frames, start
	return b
}

// ranks orders stacks as cmpJoined does, by a table lookup per frame: a
// stack written "n1;n2;...;nk" compares, as a string, as its tokens
// "n1;", "n2;", ..., "nk\x00" do one by one, when no name holds ';' or
// NUL (the tokens are then prefix-free, and the \x00 puts a stack before
// those it is a prefix of). semi[id] and end[id] are the places of
// name id's two tokens among all tokens in string order.
type ranks struct{ semi, end []uint32 }

// nameRanks returns the ranks of s's names; ok is false when a name holds
// ';' or NUL (then cmpJoined must compare).
func nameRanks(s *Stacks) (r ranks, ok bool) {
	n := len(s.names)
	for _, name := range s.names {
		if strings.ContainsAny(name, ";\x00") {
			return r, false
		}
	}
	// The names sorted, then their tokens placed in one walk: a name's
	// NUL token comes right where the name does (before the names it is
	// a prefix of), its ';' token once the names after it no longer
	// extend it with a byte below ';'. The names it is a prefix of and
	// whose ';' tokens are still to come wait on a stack.
	order := make([]uint32, n)
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(x, y uint32) int { return strings.Compare(s.names[x], s.names[y]) })
	r.semi, r.end = make([]uint32, n), make([]uint32, n)
	place := uint32(0)
	var open []uint32
	for _, y := range order {
		name := s.names[y]
		for len(open) > 0 {
			x := open[len(open)-1]
			if p := s.names[x]; len(name) > len(p) && name[:len(p)] == p && name[len(p)] < ';' {
				break // name's tokens come before p's ';' token
			}
			r.semi[x], place, open = place, place+1, open[:len(open)-1]
		}
		r.end[y], place = place, place+1
		open = append(open, y)
	}
	for i := len(open) - 1; i >= 0; i-- {
		r.semi[open[i]], place = place, place+1
	}
	return r, true
}

// cmp compares stacks a and b (name ids) as cmpJoined does.
func (r *ranks) cmp(a, b []uint32) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == len(a) && i == len(b) {
		return 0
	}
	if i == n {
		// One stack is the other with more frames: it ended where the
		// other goes on with ';'.
		if i == len(a) {
			return -1
		}
		return 1
	}
	return int(r.token(a, i)) - int(r.token(b, i))
}

func (r *ranks) token(ids []uint32, i int) uint32 {
	if i == len(ids)-1 {
		return r.end[ids[i]]
	}
	return r.semi[ids[i]]
}

// cmpJoined compares the stacks a and b (name ids) as the strings
// "name;name;..." they are written as would compare, without building
// them: frames with the same id are the same bytes, so only the first
// differing frame on is read byte by byte, ';' between names.
func cmpJoined(s *Stacks, a, b []uint32) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	// a[:i] and b[:i] are the same bytes, and if both go on, so does the
	// ';' after them.
	if i > 0 && (i == len(a) || i == len(b)) {
		// One is a whole prefix of the other, which goes on with ';'.
		switch {
		case i == len(a) && i == len(b):
			return 0
		case i == len(a):
			return -1
		}
		return 1
	}
	if i < len(a) && i < len(b) {
		// Distinct names: they differ within their common length unless
		// one is a prefix of the other.
		na, nb := s.Name(a[i]), s.Name(b[i])
		m := min(len(na), len(nb))
		if c := strings.Compare(na[:m], nb[:m]); c != 0 {
			return c
		}
	}
	ja := joinedIter{s: s, ids: a[i:]}
	jb := joinedIter{s: s, ids: b[i:]}
	for {
		ca, okA := ja.next()
		cb, okB := jb.next()
		switch {
		case !okA && !okB:
			return 0
		case !okA:
			return -1
		case !okB:
			return 1
		case ca != cb:
			if ca < cb {
				return -1
			}
			return 1
		}
	}
}

// joinedIter yields the bytes of names joined with ';'.
type joinedIter struct {
	s    *Stacks
	ids  []uint32
	name string
	pos  int // in name; -1: the ';' before name is still to come
	init bool
}

func (j *joinedIter) next() (byte, bool) {
	if !j.init {
		if len(j.ids) == 0 {
			return 0, false
		}
		j.init = true
		j.name = j.s.Name(j.ids[0])
		j.ids = j.ids[1:]
	}
	for {
		if j.pos < 0 {
			j.pos = 0
			return ';', true
		}
		if j.pos < len(j.name) {
			c := j.name[j.pos]
			j.pos++
			return c, true
		}
		if len(j.ids) == 0 {
			return 0, false
		}
		j.name = j.s.Name(j.ids[0])
		j.ids = j.ids[1:]
		j.pos = -1
	}
}
