package parse

import (
	"bytes"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wallfold/wallfold/internal/testtrace"
)

// parallelTranscript reads data as a file cut into chunks of about chunk
// bytes by workers, and checks that each frame ID names one frame.
func parallelTranscript(t *testing.T, data []byte, workers int, chunk int64) string {
	t.Helper()
	r := newFileReader(bytes.NewReader(data), int64(len(data)), "f", workers, chunk)
	if r.par == nil && int64(len(data)) > chunk {
		t.Fatalf("%d bytes in chunks of %d: not read in parallel", len(data), chunk)
	}
	byID := map[uint32]string{} // (two texts may print one frame: "\t1 f (d)", "\t 1 f (d)")
	out := transcriptOf(r, func(f Frame) {
		if f.ID == 0 {
			return
		}
		text := string(f.Addr) + "\x00" + string(f.Sym) + "\x00" + string(f.Off) + "\x00" + string(f.DSO) + "\x00" + fmt.Sprint(f.Inlined)
		if old, ok := byID[f.ID]; ok && old != text {
			t.Errorf("frame ID %d names %s and %s", f.ID, old, text)
		}
		byID[f.ID] = text
	})
	return out
}

// TestParallelMatchesSequential: a file parsed in chunks by several
// workers gives the sequential reader's records, errors (at the same
// lines), Lines() after each record and counts, on every shipped file,
// with chunks so small that every kind of chunk edge occurs, and on all
// files at once with stray lines between them (in small chunks, and in
// chunks of many batches).
func TestParallelMatchesSequential(t *testing.T) {
	files := testFiles(t)
	var all bytes.Buffer
	check := func(name string, data []byte, seq string, workers int, chunk int64) {
		t.Helper()
		if par := parallelTranscript(t, data, workers, chunk); seq != par {
			t.Errorf("%s (%d bytes, %d workers, chunks of %d): parallel reader differs from the sequential one:\n%s",
				name, len(data), workers, chunk, firstDiff(seq, par))
		}
	}
	for path, data := range files {
		for _, chunks := range [][]int64{{2, 7}, {64, 300}} {
			// Tiny chunks cost a search each: on the file's head.
			head := data[:min(len(data), int(chunks[0])<<12)]
			seq := transcript(head, false)
			for _, chunk := range chunks {
				check(path+" (head)", head, seq, 3, chunk)
			}
		}
		seq := transcript(data, false)
		check(path, data, seq, 2, 4<<10)
		if !testing.Short() {
			check(path, data, seq, 2, 64<<10)
		}
		all.Write(data)
		all.WriteString("\tstray stack line\nnot a perf line at all\n")
	}
	seq := transcript(all.Bytes(), false)
	check("all files", all.Bytes(), seq, 4, 16<<10)
	// Chunks of many batches, batches used again.
	check("all files", all.Bytes(), seq, 2, 2<<20)
	if testing.Short() {
		return
	}
	check("all files", all.Bytes(), seq, 2, 997)
}

// TestParallelErrorLines: syntax errors at chunk edges, in chunks of
// every size, are reported at their own lines (counted here), and
// Lines() is the file's line count.
func TestParallelErrorLines(t *testing.T) {
	var b strings.Builder
	var want []int
	line := 0
	put := func(s string, bad bool) {
		line++
		if bad {
			want = append(want, line)
		}
		b.WriteString(s + "\n")
	}
	for i := range 60 {
		put(fmt.Sprintf("p 1 %d.000001: 1 cpu-clock: ", i+1), false)
		put("\t1 f (d)", false)
		switch i % 4 {
		case 0:
			put("", false)
			put("\tstray stack line", true) // right after a blank line
		case 1:
			put("not a perf line", true) // a column-0 line ends the sample
			put("", false)
		case 2:
			put("\tnot a frame", true) // in the stack: its sample is dropped
			put("", false)
		case 3:
			put("", false)
		}
	}
	data := []byte(b.String())
	for chunk := int64(2); chunk < 200; chunk += 7 {
		r := newFileReader(bytes.NewReader(data), int64(len(data)), "f", 3, chunk)
		var got []int
		for r.Scan() {
			if rec := r.Record(); rec.Kind == KindError {
				if rec.Line != rec.Err.Line {
					t.Fatalf("chunks of %d: record at line %d, its error at %d", chunk, rec.Line, rec.Err.Line)
				}
				got = append(got, rec.Line)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("chunks of %d: errors at lines\n%v, want\n%v", chunk, got, want)
		}
		if r.Lines() != line || r.Skipped() != len(want) {
			t.Fatalf("chunks of %d: Lines() %d skipped %d, want %d and %d", chunk, r.Lines(), r.Skipped(), line, len(want))
		}
	}
}

// TestParallelFallsBack: one worker, a file of one chunk, or a perf.data
// file: no workers; one worker on a file of several chunks (two CPUs)
// reads it ahead when the Reader is concurrent (more than one CPU), the
// others do not.
func TestParallelFallsBack(t *testing.T) {
	text := []byte("p 1 1.000001: 1 cpu-clock: \n\t1 f (d)\n\n")
	data := bytes.Repeat(text, 100)
	for _, c := range []struct {
		name    string
		data    []byte
		workers int
		ahead   bool
	}{
		{"one worker", data, 1, concurrentDefault()},
		{"one chunk", text, 4, false},
		{"perf.data", append([]byte(perfDataMagic), data...), 4, false},
		{"perf.data, one worker", append([]byte(perfDataMagic), data...), 1, false},
	} {
		r := newFileReader(bytes.NewReader(c.data), int64(len(c.data)), "f", c.workers, 64)
		if r.par != nil {
			t.Errorf("%s: read in parallel", c.name)
		}
		if ahead := r.conc != nil && r.conc.ahead != nil; ahead != c.ahead {
			t.Errorf("%s: reads ahead %v, want %v", c.name, ahead, c.ahead)
		}
	}
}

// TestParallelReaderDropped: a parallel Reader left before the end of its
// input lets its workers go.
func TestParallelReaderDropped(t *testing.T) {
	dropReader(t, func(data []byte) *Reader {
		return newFileReader(bytes.NewReader(data), int64(len(data)), "f", 3, 4096)
	})
}

// FuzzParallel: on any text, a file read in chunks (of a few bytes, so
// that the text has many) gives what the sequential reader gives.
func FuzzParallel(f *testing.F) {
	for _, path := range []string{"../testdata/traces/syswide.txt", "../testdata/traces/nocallchain.txt",
		"../testdata/corpus/inferno/weird-stack-line.txt", "../testdata/corpus/inferno/java-inline.txt"} {
		b := testtrace.Read(f, path)
		f.Add(b[:min(len(b), 2000)])
	}
	f.Add([]byte("c 1 1.0: 1 e:\n\t1 f (d)\n \n\t2 g (d)\nx\r\n\r\n  c 2 2.0: 1 e: 3 h (d)\n# c\n\tbad\nffff f (d)\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		seq := transcript(data, false)
		// Some tens of chunks: each costs a search, and the fuzzer's
		// inputs grow.
		n := int64(len(data))
		for _, chunk := range []int64{n/64 + 2, n/7 + 3, 40} {
			if par := parallelTranscript(t, data, 3, chunk); par != seq {
				t.Fatalf("chunks of %d: parallel reader differs:\n%s", chunk, firstDiff(seq, par))
			}
		}
	})
}

// countingReaderAt counts the bytes read through it.
type countingReaderAt struct {
	r *bytes.Reader
	n atomic.Int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

// TestParallelReadsOnce: the search for chunk edges reads a long line
// once, not once for every stretch in it: the whole read (parse and
// search) stays within a few times the file.
func TestParallelReadsOnce(t *testing.T) {
	sample := "p 1 1.000001: 1 cpu-clock: \n\t1 f (d)\n\n"
	data := []byte(strings.Repeat(sample, 100) + strings.Repeat("x", 2<<20) + "\n" + strings.Repeat(sample, 100))
	src := &countingReaderAt{r: bytes.NewReader(data)}
	r := newFileReader(src, int64(len(data)), "f", 2, 4<<10)
	for r.Scan() {
	}
	if r.Skipped() != 1 {
		t.Errorf("skipped %d lines, want 1", r.Skipped())
	}
	if n := src.n.Load(); n > 4*int64(len(data)) {
		t.Errorf("read %d bytes of a file of %d", n, len(data))
	}
}
