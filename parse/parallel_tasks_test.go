package parse

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
)

// taskFacts returns the facts ScanTaskIDs or the chunked pass (workers >
// 0) gives on data, one a line.
func taskFacts(t *testing.T, data []byte, workers int, chunk int64) string {
	t.Helper()
	var b strings.Builder
	fn := func(id TaskID) { fmt.Fprintln(&b, id) }
	var err error
	if workers == 0 {
		err = ScanTaskIDs(bytes.NewReader(data), fn)
	} else {
		err = scanFileTaskIDs(bytes.NewReader(data), int64(len(data)), fn, workers, chunk)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestFileTaskIDsMatchSequential: the first pass read in chunks by
// workers gives ScanTaskIDs's facts, in its order, stopping where it
// stops (at the first sample of a trace whose lines name their process),
// on every shipped file, all of them at once (the first sample then
// decides for the rest), and a system-wide trace whose first sample
// comes late.
func TestFileTaskIDsMatchSequential(t *testing.T) {
	files := testFiles(t)
	var all bytes.Buffer
	check := func(name string, data []byte, workers int, chunk int64) {
		t.Helper()
		if seq, par := taskFacts(t, data, 0, 0), taskFacts(t, data, workers, chunk); seq != par {
			t.Errorf("%s (%d workers, chunks of %d): chunked pass differs:\n%s", name, workers, chunk, firstDiff(seq, par))
		}
	}
	for path, data := range files {
		check(path, data, 3, 4<<10)
		check(path+" (head)", data[:min(len(data), 8<<10)], 2, 5)
		all.Write(data)
	}
	check("all files", all.Bytes(), 2, 64<<10)
	sys := testFiles(t)["../testdata/traces/syswide.txt"]
	var late bytes.Buffer
	for _, line := range bytes.SplitAfter(sys, []byte("\n")) {
		if bytes.Contains(line, []byte("PERF_RECORD_")) {
			late.Write(line) // all side-band records before the first sample
		}
	}
	late.Write(sys)
	seq := taskFacts(t, late.Bytes(), 0, 0)
	if strings.Count(seq, "\n") < 100 {
		t.Fatalf("only %d facts", strings.Count(seq, "\n"))
	}
	check("syswide, samples late", late.Bytes(), 2, 4<<10)
	// A per-task trace needs no pass: the FORKs after its first sample
	// (in later chunks) are not facts.
	forks := append(append([]byte(nil), files["../testdata/traces/phases.txt"]...),
		strings.Repeat("x 9 300.0: PERF_RECORD_FORK(9:9):(1:1)\n", 1000)...)
	if seq := taskFacts(t, forks, 0, 0); strings.Contains(seq, "9 9") {
		t.Fatal("the sequential pass read past the first sample")
	}
	check("per-task, forks late", forks, 2, 4<<10)
}

// readAtBound is an io.ReaderAt over data that notes the furthest byte
// asked for.
type readAtBound struct {
	r   *bytes.Reader
	mu  sync.Mutex
	end int64
}

func (b *readAtBound) ReadAt(p []byte, off int64) (int, error) {
	b.mu.Lock()
	b.end = max(b.end, off+int64(len(p)))
	b.mu.Unlock()
	return b.r.ReadAt(p, off)
}

// TestFileTaskIDsFirstChunkDecides: a trace whose first sample, in the
// first chunk, names its process needs no pass, and the chunked pass
// reads no further than that chunk and the search for its end, as the
// sequential one; the workers the other chunks would have are not
// started (they read chunks for nothing).
func TestFileTaskIDsFirstChunkDecides(t *testing.T) {
	data := testFiles(t)["../testdata/traces/phases.pid.txt"]
	const chunk = 4 << 10
	synctest.Test(t, func(t *testing.T) {
		src := &readAtBound{r: bytes.NewReader(data)}
		n := 0
		if err := scanFileTaskIDs(src, int64(len(data)), func(TaskID) { n++ }, 2, chunk); err != nil {
			t.Fatal(err)
		}
		synctest.Wait() // any worker left has read what it would
		if src.end > 2*chunk {
			t.Errorf("read up to byte %d of %d; the first chunk and its end's search end before %d", src.end, len(data), 2*chunk)
		}
		if seq := strings.Count(taskFacts(t, data, 0, 0), "\n"); n != seq {
			t.Errorf("%d facts, ScanTaskIDs %d", n, seq)
		}
	})
}
