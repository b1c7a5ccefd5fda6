package emit

// grown returns s with room for one more element, its capacity doubled
// when full. append grows a large slice by a quarter at a time: a table
// that grows by one element per new stack was copied some five times
// its final size over a run, each copy in memory new to the process
// (page faults, the largest system cost of a run).
func grown[T any](s []T) []T {
	if len(s) < cap(s) {
		return s
	}
	g := make([]T, len(s), max(2*cap(s), 1024))
	copy(g, s)
	return g
}
