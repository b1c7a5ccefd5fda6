package parse

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/wallfold/wallfold/internal/testtrace"
)

// testFiles returns every shipped trace and corpus file, un-gzipped.
func testFiles(t *testing.T) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	for _, path := range testtrace.Shipped(t, "../testdata") {
		files[path] = testtrace.Read(t, path)
	}
	return files
}

// transcript reads data and writes down everything a caller can see:
// each record in full, Lines() after it, each error in its place, and
// the end state.
func transcript(data []byte, concurrent bool) string {
	return transcriptWith(data, concurrent, maxTableLines, nil)
}

// transcriptWith is transcript with a frame table that has room for
// only room more lines (see fillTable), calling frame (if not nil) with
// every frame read.
func transcriptWith(data []byte, concurrent bool, room int, frame func(Frame)) string {
	r := newReader(bytes.NewReader(data), "f", concurrent)
	fillTable(r.p.tab, room) // a concurrent reader's producer takes this table
	return transcriptOf(r, frame)
}

// transcriptOf reads r to its end and writes down what transcript does.
func transcriptOf(r *Reader, frame func(Frame)) string {
	var b strings.Builder
	for r.Scan() {
		x := r.Record()
		if x.Kind == KindError {
			fmt.Fprintf(&b, "error %v %q\n", x.Err, x.Err.Text)
			continue
		}
		fmt.Fprintf(&b, "%d %v %d %q %d %d %v %d %d %v %d %v %q %q %v %v %d %d %d %d %d %d %q %d\n",
			r.Lines(), x.Kind, x.Line, x.Comm, x.PID, x.TID, x.HasTID, x.CPU, x.Time, x.HasTime, x.Period, x.HasPeriod,
			x.Event, x.Payload, x.Out, x.Preempt, x.SubjectPID, x.SubjectTID, x.ParentPID, x.ParentTID, x.PeerPID, x.PeerTID, x.NewComm, x.Lost)
		for _, f := range x.Stack.Frames() {
			fmt.Fprintf(&b, "\t%q %q %q %q %v\n", f.Addr, f.Sym, f.Off, f.DSO, f.Inlined)
			if frame != nil {
				frame(f)
			}
		}
	}
	fmt.Fprintf(&b, "end %v skipped %d lines %d errors %v\n", r.Err(), r.Skipped(), r.Lines(), r.Errors())
	return b.String()
}

// TestConcurrentMatchesSequential: the concurrent reader (the default with
// two CPUs) and the sequential one give the same records, errors (in the
// same places) and counts on every shipped file, also cut short and with
// syntax errors spread through a long input (several batches).
func TestConcurrentMatchesSequential(t *testing.T) {
	files := testFiles(t)
	var all bytes.Buffer
	for path, data := range files {
		for _, in := range [][]byte{data, data[:len(data)/3]} {
			seq, conc := transcript(in, false), transcript(in, true)
			if seq != conc {
				t.Errorf("%s (%d bytes): concurrent reader differs from the sequential one:\n%s", path, len(in), firstDiff(seq, conc))
			}
		}
		all.Write(data)
		all.WriteString("\tstray stack line\nnot a perf line at all\n")
	}
	seq, conc := transcript(all.Bytes(), false), transcript(all.Bytes(), true)
	if seq != conc {
		t.Errorf("all files: concurrent reader differs from the sequential one:\n%s", firstDiff(seq, conc))
	}
	if !strings.Contains(seq, "error ") {
		t.Error("no syntax errors exercised")
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\nsequential: %s\nconcurrent: %s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d lines", len(al), len(bl))
}

// TestConcurrentReaderDropped: a Reader left before the end of its input
// does not keep its producer blocked forever.
func TestConcurrentReaderDropped(t *testing.T) {
	dropReader(t, func(data []byte) *Reader { return newReader(bytes.NewReader(data), "f", true) })
}

// dropReader makes a Reader of a long input with open, takes one record
// and drops the Reader; it fails t unless the goroutines that Reader
// started have ended a second later.
func dropReader(t *testing.T, open func([]byte) *Reader) {
	t.Helper()
	before := runtime.NumGoroutine()
	data := bytes.Repeat([]byte("p 1 1.000001: 1 cpu-clock: \n\t1 f (d)\n\n"), 100000)
	func() {
		if !open(data).Scan() {
			t.Fatal("no record")
		}
	}()
	for range 100 {
		runtime.GC()
		if runtime.NumGoroutine() <= before {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("%d goroutines a second after the Reader was dropped, %d before it", runtime.NumGoroutine(), before)
}

// TestConcurrentShortInputMemory: a concurrent Reader of a few lines takes
// memory by its input, not a full set of batches up front (3.2 MB of
// them, the larger part of an empty input's run, which then also paid a
// collection and a thousand page faults).
func TestConcurrentShortInputMemory(t *testing.T) {
	in := []byte("p 1 1.000001: 1 cpu-clock: \n\n") // no stack: no frame table
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := newReader(bytes.NewReader(in), "f", true)
	n := 0
	for r.Scan() {
		n++
	}
	runtime.ReadMemStats(&after)
	if n != 1 || r.Err() != nil {
		t.Fatalf("%d records, error %v; want 1 sample", n, r.Err())
	}
	// The line buffer (128 KB) is most of it.
	if got := after.TotalAlloc - before.TotalAlloc; got > 512<<10 {
		t.Errorf("a 2-line input took %d KB; want under 512", got>>10)
	}
}
