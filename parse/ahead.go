package parse

import (
	"bufio"
	"bytes"
	"io"
)

// Reading ahead: on two CPUs a file's concurrent Reader has its producer
// parse lines where a goroutine of its own read them, a few buffers
// ahead, instead of reading them itself: the read(2)s' copies from the
// page cache then run while the caller's side waits for records, off the
// producer, which is the longer of the two (docs/performance.md).

// aheadData is the size of a read; aheadCarry the room before it for the
// end of a line that the buffer before did not end (a longer line, rare,
// comes in parts, ErrBufferFull, as a line longer than bufio's buffer
// does); aheadBufs how many buffers there are: one parsed, five read
// ahead. The reads run when the parser or the model waits; with the
// parser's batches cleared in bulk (concurrent.go) the parser waited
// on reads more, and 6 buffers instead of 3 took 2-3.5 % off the wall
// (8 or 12 no more, within the noise) for 1.1 MB more memory.
const (
	aheadData  = 256 << 10
	aheadCarry = 16 << 10
	aheadBufs  = 6
)

// aheadSource is a file that a concurrent Reader's producer is to read
// ahead, and the sizes of its buffers.
type aheadSource struct {
	r           io.Reader
	data, carry int
}

// newFileReaderAhead returns a concurrent Reader of src that reads it
// ahead in reads of data bytes with carry bytes of room; the room holds
// at least what the parser peeks at (perf.data's magic).
func newFileReaderAhead(src io.Reader, fileName string, data, carry int) *Reader {
	rd := &Reader{fileName: fileName, p: &lineParser{fileName: fileName, tab: newFrameTable()}}
	rd.rec = &rd.batchR
	carry = max(carry, len(perfDataMagic))
	rd.conc = &concState{ahead: &aheadSource{r: src, data: max(data, 1), carry: carry}}
	return rd
}

// aheadReader has the methods of bufio.Reader that lineParser uses, with
// their meaning, over the buffers of a goroutine that reads ahead.
type aheadReader struct {
	win   []byte // the current buffer's bytes, the carried line first
	r     int    // win[r:] are unread
	cur   *aheadBuf
	err   error // the source's once win holds the last of its bytes; io.ErrClosedPipe once done
	carry int
	full  chan *aheadBuf
	free  chan *aheadBuf
	done  <-chan struct{}
}

// aheadBuf holds n bytes read at b[carry:], and err if the read that
// ended them failed (io.EOF at the end).
type aheadBuf struct {
	b   []byte
	n   int
	err error
}

// start launches the goroutine that reads s; it stops at the end of s or
// when done is closed.
func (s *aheadSource) start(done <-chan struct{}) *aheadReader {
	a := &aheadReader{carry: s.carry, done: done,
		full: make(chan *aheadBuf, aheadBufs), free: make(chan *aheadBuf, aheadBufs)}
	go readAhead(s.r, s.carry, s.data, a.full, a.free, done)
	return a
}

func readAhead(src io.Reader, carry, data int, full, free chan *aheadBuf, done <-chan struct{}) {
	made := 0 // buffers are made when needed
	for {
		var b *aheadBuf
		if made < aheadBufs && len(free) == 0 {
			made++
			b = &aheadBuf{b: make([]byte, carry+data)}
		} else {
			select {
			case b = <-free:
			case <-done:
				return
			}
		}
		b.n, b.err = 0, nil
		for empty := 0; b.n < data && b.err == nil; {
			var m int
			m, b.err = src.Read(b.b[carry+b.n:])
			b.n += m
			if empty++; m > 0 {
				empty = 0
			} else if empty == 100 {
				b.err = io.ErrNoProgress // as bufio gives up on such a source
			}
		}
		select {
		case full <- b:
		case <-done:
			return
		}
		if b.err != nil {
			return
		}
	}
}

// next moves to the next buffer, with the unread bytes carried to its
// front. It returns false at the end of the source (a.err), when the
// Reader is dropped (done; a.err io.ErrClosedPipe), or when the unread
// bytes are more than the carry room.
func (a *aheadReader) next() bool {
	rest := a.win[a.r:]
	if a.err != nil || len(rest) > a.carry {
		return false
	}
	var b *aheadBuf
	select {
	case b = <-a.full:
	case <-a.done:
		a.err = io.ErrClosedPipe // the Reader was dropped: nobody reads on
		return false
	}
	start := a.carry - len(rest)
	copy(b.b[start:], rest)
	a.win, a.r, a.err = b.b[start:a.carry+b.n], 0, b.err
	// What the caller read before is no longer valid, as with
	// bufio.Reader, whose next read slides its buffer.
	if a.cur != nil {
		a.free <- a.cur
	}
	a.cur = b
	return true
}

// Buffered is the number of unread bytes at hand.
func (a *aheadReader) Buffered() int { return len(a.win) - a.r }

// Discard skips n bytes at hand (at most those: the parser discards only
// bytes it has seen).
func (a *aheadReader) Discard(n int) (int, error) {
	n = min(n, a.Buffered())
	a.r += n
	return n, nil
}

// Peek returns the next n bytes without consuming them (it may read
// more buffers to have them).
func (a *aheadReader) Peek(n int) ([]byte, error) {
	for a.Buffered() < n {
		if n > a.carry {
			return a.win[a.r:], bufio.ErrBufferFull
		}
		if !a.next() {
			return a.win[a.r:], a.err
		}
	}
	return a.win[a.r : a.r+n], nil
}

// ReadSlice reads through the next delim, as bufio.Reader.ReadSlice.
func (a *aheadReader) ReadSlice(delim byte) ([]byte, error) {
	searched := 0
	for {
		if i := bytes.IndexByte(a.win[a.r+searched:], delim); i >= 0 {
			line := a.win[a.r : a.r+searched+i+1]
			a.r += searched + i + 1
			return line, nil
		}
		searched = a.Buffered()
		if !a.next() {
			line := a.win[a.r:]
			a.r = len(a.win)
			if a.err == nil {
				return line, bufio.ErrBufferFull
			}
			return line, a.err
		}
	}
}
