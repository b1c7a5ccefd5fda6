package parse_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/wallfold/wallfold/parse"
)

// FuzzReader feeds arbitrary text to the Reader: it must not panic or
// hang, every record must be well formed, and every line is either part
// of a record, skipped and counted, or ignorable (blank, comment).
func FuzzReader(f *testing.F) {
	for _, path := range []string{
		"../testdata/traces/phases.txt", "../testdata/traces/syswide.txt", "../testdata/traces/nocallchain.txt",
		"../testdata/corpus/inferno/cpp-stacks-std-function.txt", "../testdata/corpus/inferno/single-line-stacks.txt",
		"../testdata/corpus/inferno/weird-stack-line.txt", "../testdata/corpus/inferno/java-inline.txt",
	} {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[:min(len(b), 4000)])
	}
	f.Add([]byte("comm 1 1.0: 1 ev:\n\tTHIS_IS_WEIRD\n\t1 f (d)\n\ncomm 1 2.0: PERF_RECORD_SWITCH OUT\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := parse.NewSequentialReader(bytes.NewReader(data), "fuzz")
		n := 0
		for r.Scan() {
			rec := r.Record()
			n++
			if rec.Kind > parse.KindError || (rec.Kind == parse.KindError) != (rec.Err != nil) {
				t.Fatalf("kind %d, error %v", rec.Kind, rec.Err)
			}
			if rec.Kind == parse.KindError && rec.Line != rec.Err.Line {
				t.Fatalf("error record at line %d for an error at line %d", rec.Line, rec.Err.Line)
			}
			if rec.Line < 1 || rec.Line > r.Lines() {
				t.Fatalf("record line %d of %d", rec.Line, r.Lines())
			}
			if rec.Kind == parse.KindSample {
				if len(rec.Event) == 0 {
					t.Fatal("sample without event")
				}
				if !rec.HasPeriod && rec.Period != 1 {
					t.Fatalf("period %d without a period column", rec.Period)
				}
				for _, fr := range rec.Stack.Frames() {
					if len(fr.Addr) == 0 {
						t.Fatal("frame without address")
					}
				}
			}
		}
		if r.Err() != nil {
			t.Fatal(r.Err())
		}
		if r.Skipped() < len(r.Errors()) || len(r.Errors()) > parse.MaxKeptErrors {
			t.Fatalf("skipped %d, errors %d", r.Skipped(), len(r.Errors()))
		}
		if lines := bytes.Count(data, []byte("\n")) + bytes.Count(data, []byte("\r")) + 1; r.Lines() > lines {
			t.Fatalf("%d lines read from %d", r.Lines(), lines)
		}
	})
}
