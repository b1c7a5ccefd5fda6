package fold

// extended returns s at length n (n > len(s)), the new elements zero,
// its capacity at least doubled when it must grow. append grows a large
// slice by a quarter at a time: a table with an element per stack,
// extended at each new stack, was copied some five times its final size
// over a run, each copy in memory new to the process (page faults).
func extended[T any](s []T, n int) []T {
	if n <= cap(s) {
		return s[:n] // beyond len: zero, as only extended lengthens it
	}
	g := make([]T, n, max(2*cap(s), n, 1024))
	copy(g, s)
	return g
}
