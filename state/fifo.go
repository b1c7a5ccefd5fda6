package state

// fifo is a queue in a ring: its memory follows what it holds (a ring a
// quarter larger when full, half as large when under a quarter used past
// fifoMin and pushed to), where a slice appended at its end and cut at its head held up
// to four times as much (up to half of it passed entries, and append's
// doubling): the samples and open gaps of two million threads seen once
// took 25 MB of such slices for 10 MB in use, 13 MB in a ring of a power
// of two.
type fifo[T any] struct {
	buf  []T
	head int
	n    int
}

const fifoMin = 1 << 10

// len returns the number of entries.
func (f *fifo[T]) len() int { return f.n }

// at returns entry i (0 is the oldest).
func (f *fifo[T]) at(i int) *T {
	j := f.head + i
	if j >= len(f.buf) {
		j -= len(f.buf)
	}
	return &f.buf[j]
}

// push appends v. A ring under a quarter used is halved here, not in pop:
// the trace's end empties the queues, and halving them all the way down
// there made copies at the peak.
func (f *fifo[T]) push(v T) {
	if f.n == len(f.buf) {
		f.resize(max(16, len(f.buf)+len(f.buf)/4))
	} else if f.n < len(f.buf)/4 && len(f.buf) > fifoMin {
		f.resize(len(f.buf) / 2)
	}
	f.n++
	*f.at(f.n - 1) = v
}

// pop drops the oldest entry (its slot cleared: no pointer stays).
func (f *fifo[T]) pop() {
	var zero T
	f.buf[f.head] = zero
	if f.head++; f.head == len(f.buf) {
		f.head = 0
	}
	f.n--
}

// resize moves the entries to a ring of size.
func (f *fifo[T]) resize(size int) {
	nb := make([]T, size)
	k := copy(nb, f.buf[f.head:min(f.head+f.n, len(f.buf))])
	copy(nb[k:], f.buf[:f.n-k])
	f.buf, f.head = nb, 0
}
