package parse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"
)

// aheadTranscript is transcript for a Reader that reads data ahead in
// reads of size bytes, with room for a line of carry bytes across two.
func aheadTranscript(data []byte, size, carry int) string {
	return transcriptOf(newFileReaderAhead(bytes.NewReader(data), "f", size, carry), nil)
}

// TestAheadMatchesSequential: a Reader that reads a file ahead gives the
// records, errors (in their places) and counts of the sequential one on
// every shipped file, with lines across reads, carried whole or (longer
// than the carry room) in parts, and over the line limit.
func TestAheadMatchesSequential(t *testing.T) {
	sizes := [][2]int{{aheadData, aheadCarry}, {4096, 1024}, {200, 64}}
	var all bytes.Buffer
	for path, data := range testFiles(t) {
		seq := transcript(data, false)
		for _, s := range sizes {
			if s[0] < 1024 && len(data) > 1<<20 {
				continue // a read per 200 bytes: the mix below has them
			}
			if got := aheadTranscript(data, s[0], s[1]); got != seq {
				t.Errorf("%s, reads of %d with %d carried: differs from the sequential reader:\n%s", path, s[0], s[1], firstDiff(seq, got))
			}
		}
		if len(data) < 1<<20 {
			all.Write(data)
			all.WriteString("\tstray stack line\n" + strings.Repeat("long ", 100) + "\n")
		}
	}
	tail := "p 1 1.000001: 1 cpu-clock: \n\t1 " + strings.Repeat("f", MaxLineBytes+10) + " (d)\n\n" +
		"p 1 1.000002: 1 cpu-clock: \n\t1 f (d)" // no line end
	for _, c := range []struct {
		in          []byte
		size, carry int
	}{
		{all.Bytes(), 4096, 1024},
		{all.Bytes(), 200, 64},
		{all.Bytes()[:64<<10], 7, 1}, // room for 1 byte is made room for perf.data's magic
	} {
		in := append(c.in[:len(c.in):len(c.in)], tail...)
		seq := transcript(in, false)
		if got := aheadTranscript(in, c.size, c.carry); got != seq {
			t.Errorf("small files, %d bytes in reads of %d with %d carried: differs from the sequential reader:\n%s", len(in), c.size, c.carry, firstDiff(seq, got))
		}
		if !strings.Contains(seq, "over the limit") || !strings.Contains(seq, "error ") {
			t.Error("no syntax errors or over-long line exercised")
		}
	}
}

// readLines reads r to its end by ReadSlice, a line in parts joined, and
// writes down each line and the error that ended the input.
func readLines(r interface {
	ReadSlice(byte) ([]byte, error)
}) string {
	var b strings.Builder
	var line []byte
	for {
		part, err := r.ReadSlice('\n')
		line = append(line, part...)
		if err == bufio.ErrBufferFull {
			continue
		}
		fmt.Fprintf(&b, "%q\n", line)
		line = line[:0]
		if err != nil {
			fmt.Fprintf(&b, "end %v\n", err)
			return b.String()
		}
	}
}

// TestAheadReaderReadSlice: aheadReader's lines are bufio.Reader's, from
// a source that reads in short pieces, whose input ends with or without
// a line end, with an error, or in reads that bring nothing.
func TestAheadReaderReadSlice(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	var text bytes.Buffer
	for range 3000 {
		n := rnd.IntN(40)
		if rnd.IntN(50) == 0 {
			n = rnd.IntN(2000)
		}
		text.WriteString(strings.Repeat(string(rune('a'+rnd.IntN(26))), n) + "\n")
	}
	diskErr := errors.New("disk error")
	sources := map[string]func(b []byte) io.Reader{
		"whole":        func(b []byte) io.Reader { return bytes.NewReader(b) },
		"one byte":     func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) },
		"half":         func(b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) },
		"data and EOF": func(b []byte) io.Reader { return iotest.DataErrReader(bytes.NewReader(b)) },
		"error": func(b []byte) io.Reader {
			return io.MultiReader(bytes.NewReader(b[:len(b)/2]), iotest.ErrReader(diskErr))
		},
		"no progress": func(b []byte) io.Reader { return io.MultiReader(bytes.NewReader(b), noProgress{}) },
	}
	for _, in := range [][]byte{text.Bytes(), append(text.Bytes(), "no end"...), nil} {
		for name, src := range sources {
			want := readLines(bufio.NewReaderSize(src(in), 128))
			for _, s := range [][2]int{{64, 16}, {300, 100}, {1, 1}} {
				done := make(chan struct{})
				a := (&aheadSource{r: src(in), data: s[0], carry: s[1]}).start(done)
				if got := readLines(a); got != want {
					t.Errorf("%s, %d bytes, reads of %d with %d carried: differs from bufio:\n%s", name, len(in), s[0], s[1], firstDiff(want, got))
				}
				close(done)
			}
		}
	}
}

// TestAheadReaderPeek: the first bytes of a file, as isPerfData looks at
// them, whether the reads bring more or fewer.
func TestAheadReaderPeek(t *testing.T) {
	for _, in := range []string{"", "PERF", "PERFILE2", "PERFILE2 and more"} {
		for _, size := range []int{1, 3, 64} {
			done := make(chan struct{})
			a := (&aheadSource{r: strings.NewReader(in), data: size, carry: 16}).start(done)
			got, err := a.Peek(8)
			want := in[:min(8, len(in))]
			if string(got) != want || (len(in) < 8) != (err == io.EOF) {
				t.Errorf("Peek(8) of %q in reads of %d: %q, %v; want %q", in, size, got, err, want)
			}
			if rest, _ := io.ReadAll(aheadBytes{a}); string(rest) != in {
				t.Errorf("%q in reads of %d: then read %q", in, size, rest)
			}
			close(done)
		}
	}
}

// noProgress reads nothing and no error, forever.
type noProgress struct{}

func (noProgress) Read([]byte) (int, error) { return 0, nil }

// aheadBytes reads an aheadReader's bytes as an io.Reader.
type aheadBytes struct{ a *aheadReader }

func (r aheadBytes) Read(p []byte) (int, error) {
	b, err := r.a.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		err = nil
	}
	return copy(p, b), err // p is large (ReadAll's), b a short line
}

// TestAheadReaderDropped: a Reader that reads ahead, left before the end
// of its input, lets its goroutines (parser and reader) end.
func TestAheadReaderDropped(t *testing.T) {
	dropReader(t, func(data []byte) *Reader { return newFileReaderAhead(bytes.NewReader(data), "f", 4096, 1024) })
}
