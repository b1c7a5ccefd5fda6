package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// benchInput is testdata/traces/phases.txt repeated to about 8 MB, in
// memory, or the file named by $WALLFOLD_BENCH_INPUT (to profile a real
// trace: WALLFOLD_BENCH_INPUT=big.txt go test -bench=Pipeline
// -cpuprofile=cpu.prof). Timestamps go backwards at each seam, as in a
// repeated real trace; wallfold takes that in its stride.
var (
	benchOnce sync.Once
	benchData []byte
)

func benchInput(b *testing.B) []byte {
	b.Helper()
	benchOnce.Do(func() {
		if path := os.Getenv("WALLFOLD_BENCH_INPUT"); path != "" {
			data, err := os.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			benchData = data
			return
		}
		one, err := os.ReadFile(trace("phases.txt"))
		if err != nil {
			b.Fatal(err)
		}
		var buf bytes.Buffer
		for buf.Len() < 8<<20 {
			buf.Write(one)
		}
		benchData = buf.Bytes()
	})
	return benchData
}

// benchRun runs the command b.N times on the input on stdin. It calls
// run itself, not runCLI: the output goes to io.Discard, so that what is
// measured is the run, not the keeping of its output.
func benchRun(b *testing.B, args ...string) {
	data := benchInput(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var errb strings.Builder
		if code := run(append([]string{"-q"}, args...), bytes.NewReader(data), io.Discard, &errb); code != 0 {
			b.Fatalf("exit %d: %s", code, errb.String())
		}
	}
}

// benchFile is benchRun on a file (the input written to a temporary file
// first): wallfold reads files with its concurrent reader on two CPUs or
// more, stdin with the sequential one.
func benchFile(b *testing.B, args ...string) {
	data := benchInput(b)
	path := filepath.Join(b.TempDir(), "trace.txt")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var errb strings.Builder
		if code := run(append(append([]string{"-q"}, args...), path), strings.NewReader(""), io.Discard, &errb); code != 0 {
			b.Fatalf("exit %d: %s", code, errb.String())
		}
	}
}

// BenchmarkPipelineFolded is the whole run: parse, state, folded output
// (input on stdin: the sequential reader).
func BenchmarkPipelineFolded(b *testing.B) { benchRun(b) }

// BenchmarkPipelinePprof is the whole run with pprof output (stdin).
func BenchmarkPipelinePprof(b *testing.B) { benchRun(b, "-f", "pprof") }

// BenchmarkPipelineTrace is the whole run with the Chrome trace JSON
// (stdin; issue 28: within 1.5 times BenchmarkPipelineFolded's CPU).
func BenchmarkPipelineTrace(b *testing.B) { benchRun(b, "-f", "trace") }

// BenchmarkPipelineFoldedOffCPU: the off-CPU accounting's cost (issue:
// within 15 % of BenchmarkPipelineFolded).
func BenchmarkPipelineFoldedOffCPU(b *testing.B) { benchRun(b, "--off-cpu") }

// BenchmarkPipelineFoldedFile reads a file (the parallel reader: one
// worker per CPU, go test -cpu 1,2,...).
func BenchmarkPipelineFoldedFile(b *testing.B) { benchFile(b) }

// BenchmarkPipelinePprofFile reads a file (the parallel reader).
func BenchmarkPipelinePprofFile(b *testing.B) { benchFile(b, "-f", "pprof") }
