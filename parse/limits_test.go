package parse

import (
	"fmt"
	"io"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// An over-long line is an error of its own line, its sample dropped,
// the records around it read as usual; in both readers.
func TestReaderLineOverLimit(t *testing.T) {
	long := "\t    7f443cc6f090 " + strings.Repeat("x", MaxLineBytes) + " (/bin/a)\n"
	in := "a 1  1.000000:          1 cycles: \n" + // line 1: its sample is dropped
		"\t    7f443cc6f091 main (/bin/a)\n" +
		long + // line 3
		"\t    7f443cc6f092 _start (/bin/a)\n\n" +
		"a 1  2.000000:          1 cycles: \n" + // line 6: kept
		"\t    7f443cc6f091 main (/bin/a)\n\n" +
		strings.Repeat("y", 3*MaxLineBytes) // line 9, without a line end
	for _, concurrent := range []bool{false, true} {
		r := newReader(strings.NewReader(in), "t.txt", concurrent)
		var lines, errLines []int
		for r.Scan() {
			if rec := r.Record(); rec.Kind == KindError {
				errLines = append(errLines, rec.Line)
				if !strings.Contains(rec.Err.Error(), "over the limit") {
					t.Errorf("error %q does not name the limit", rec.Err)
				}
			} else {
				lines = append(lines, rec.Line)
			}
		}
		if r.Err() != nil {
			t.Fatal(r.Err())
		}
		if len(lines) != 1 || lines[0] != 6 || len(errLines) != 2 || errLines[0] != 3 || errLines[1] != 9 || r.Skipped() != 2 {
			t.Errorf("concurrent %v: records at lines %v, errors at %v (Skipped %d); want [6], [3 9], 2", concurrent, lines, errLines, r.Skipped())
		}
	}
}

// zeros is an endless line of NULs, as /dev/zero.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// Memory does not grow with a line's length: what the Reader allocates
// reading one 16 MB or 64 MB line (no line end) is the same some 25 MB (the
// line limit's buffer as it grew, the read buffer, a concurrent reader's batches).
// perf.data's magic is not at the start: the reader reads it all.
func TestReaderEndlessLineBounded(t *testing.T) {
	for _, size := range []int64{16 << 20, 64 << 20} {
		for _, concurrent := range []bool{false, true} {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			r := newReader(io.LimitReader(zeros{}, size), "zero", concurrent)
			for r.Scan() {
			}
			runtime.ReadMemStats(&after)
			if r.Skipped() != 1 || r.Lines() != 1 {
				t.Errorf("%d bytes: Skipped %d, Lines %d; want 1, 1", size, r.Skipped(), r.Lines())
			}
			if got, bound := after.TotalAlloc-before.TotalAlloc, uint64(8*MaxLineBytes); got > bound {
				t.Errorf("%d bytes (concurrent %v): %d bytes allocated, want at most %d", size, concurrent, got, bound)
			}
		}
	}
}

// A pid or tid too long for a number is an error of its line, its sample
// (stack lines too) or record dropped, and counted: it was read as tid 0
// (idle), its samples gone without a word.
func TestReaderPidOutOfRange(t *testing.T) {
	in := "a 99999999999999999999  1.000000:    1001001 cpu-clock: \n" + // line 1
		"\t    4005d6 main (/bin/a)\n\n" +
		"a 7/99999999999999999999  1.000500:    1001001 cpu-clock: \n\n" + // line 4
		"a 99999999999999999999/7  1.000600: PERF_RECORD_SWITCH OUT\n" + // line 6
		"a 5  1.001000:    1001001 cpu-clock: \n" + // line 7: kept
		"\t    4005d6 main (/bin/a)\n\n"
	res := readAll(t, in)
	if len(res.recs) != 1 || res.recs[0].Line != 7 || res.recs[0].TID != 5 {
		t.Errorf("records %+v, want the sample of line 7 only", res.recs)
	}
	if !reflect.DeepEqual(res.errLine, []int{1, 4, 6}) {
		t.Errorf("errors at lines %v, want [1 4 6]", res.errLine)
	}
	for _, e := range res.errs {
		if !strings.Contains(e.Msg, "out of range") {
			t.Errorf("error %q does not say out of range", e.Msg)
		}
	}
}

// A stack of more than MaxSampleFrames frames is an error at the frame
// over the bound, its sample dropped with the rest of its stack, the
// next sample read: one endless sample took all memory.
func TestReaderSampleOverFrames(t *testing.T) {
	var b strings.Builder
	b.WriteString("a 1  1.000000:          1 cycles: \n")
	for i := 0; i < MaxSampleFrames+10; i++ {
		fmt.Fprintf(&b, "\t    %x f%d (/bin/a)\n", i, i%3) // some in the frame table, some not
	}
	b.WriteString("\na 1  2.000000:          1 cycles: \n\t    7f44 main (/bin/a)\n\n")
	next := MaxSampleFrames + 10 + 3
	for _, concurrent := range []bool{false, true} {
		r := newReader(strings.NewReader(b.String()), "t.txt", concurrent)
		var lines, errLines []int
		for r.Scan() {
			if rec := r.Record(); rec.Kind == KindError {
				errLines = append(errLines, rec.Line)
			} else {
				lines = append(lines, rec.Line)
			}
		}
		if len(lines) != 1 || lines[0] != next || len(errLines) != 1 || errLines[0] != MaxSampleFrames+2 {
			t.Errorf("concurrent %v: records at lines %v, errors at %v; want [%d], [%d]", concurrent, lines, errLines, next, MaxSampleFrames+2)
		}
	}
}
