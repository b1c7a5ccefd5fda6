package parse

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// benchTrace returns testdata/traces/phases.txt repeated to about 8 MB,
// or the file named by $WALLFOLD_BENCH_INPUT.
func benchTrace(b *testing.B) []byte {
	b.Helper()
	if path := os.Getenv("WALLFOLD_BENCH_INPUT"); path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		return data
	}
	one, err := os.ReadFile(filepath.Join("..", "testdata", "traces", "phases.txt"))
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	for buf.Len() < 8<<20 {
		buf.Write(one)
	}
	return buf.Bytes()
}

// BenchmarkScan is the reader alone: every record and frame decoded, on
// its own goroutine when there are two CPUs or more (NewReader's default).
func BenchmarkScan(b *testing.B) { benchScan(b, concurrentDefault()) }

// BenchmarkScanSequential is the reader alone on the caller's goroutine.
func BenchmarkScanSequential(b *testing.B) { benchScan(b, false) }

func benchScan(b *testing.B, concurrent bool) {
	data := benchTrace(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := newReader(bytes.NewReader(data), "bench", concurrent)
		n := 0
		for r.Scan() {
			n += r.Record().Stack.Len() + 1
		}
		if r.Err() != nil || n == 0 || r.Skipped() != 0 {
			b.Fatalf("err %v, %d records, %d skipped", r.Err(), n, r.Skipped())
		}
	}
}
