package parse

import (
	"bytes"
	"fmt"
	"testing"
)

// BenchmarkFileReader is the reader of a file alone (every record and
// frame decoded) by 1 (NewReader's producer), 2 and 4 workers, with the
// file's text in memory; on W CPUs the workers share them with the
// caller's goroutine (go test -cpu 1,2,...).
func BenchmarkFileReader(b *testing.B) {
	data := benchTrace(b)
	for _, workers := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				r := newFileReader(bytes.NewReader(data), int64(len(data)), "bench", workers, fileChunk)
				n := 0
				for r.Scan() {
					n += r.Record().Stack.Len() + 1
				}
				if r.Err() != nil || n == 0 || r.Skipped() != 0 {
					b.Fatalf("err %v, %d records, %d skipped", r.Err(), n, r.Skipped())
				}
			}
		})
	}
}
