package emit

// StackTotals returns the stacks and their CPU and wall totals of a
// folded, top or svg Writer once the trace has been read (false for the
// other formats): what wallfold diff compares, the same sums the folded
// lines are rounded from.
func StackTotals(w Writer) (*Stacks, *Totals, bool) {
	sw, ok := w.(*stackWriter)
	if !ok {
		return nil, nil, false
	}
	return sw.stacks, &sw.totals, true
}

// InternPath returns the id of the stack of these names, root first: a
// stack known by its names only (a profile read back, another run's).
func (s *Stacks) InternPath(names []string) uint32 {
	ids := s.ids[:0]
	for _, n := range names {
		ids = append(ids, s.intern(n))
	}
	s.ids = ids
	return s.stackOf(ids)
}
