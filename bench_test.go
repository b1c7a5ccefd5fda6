package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/wallfold/wallfold/internal/testtrace"
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

// BenchmarkPipelineFoldedOffCPU: the off-CPU accounting's cost (issue:
// within 15 % of BenchmarkPipelineFolded).
func BenchmarkPipelineFoldedOffCPU(b *testing.B) { benchRun(b, "--off-cpu") }

// BenchmarkPipelineFoldedFile reads a file (the concurrent reader).
func BenchmarkPipelineFoldedFile(b *testing.B) { benchFile(b) }

// BenchmarkPipelinePprofFile reads a file (the concurrent reader).
func BenchmarkPipelinePprofFile(b *testing.B) { benchFile(b, "-f", "pprof") }

// TestReaderPathsSameOutput: the whole run gives the same folded and
// pprof output with the concurrent reader (a file, on two CPUs or more)
// and the sequential one (stdin), on every shipped trace and corpus file.
func TestReaderPathsSameOutput(t *testing.T) {
	// out runs wallfold on path, as a file or on stdin, and names the
	// input <stdin> in what it says (also inside a profile's comments).
	out := func(path string, stdin bool, args ...string) string {
		text, stderr, code := wallfoldOn(t, path, stdin, args...)
		if p, err := profile.ParseData([]byte(text)); err == nil && len(args) > 0 && args[0] == "-f" {
			text = p.String()
		}
		abs, _ := filepath.Abs(path) // kong makes the argument absolute
		return strings.ReplaceAll(fmt.Sprintf("exit %d\n%s\nstderr:\n%s", code, text, stderr), abs, "<stdin>")
	}
	for _, path := range testtrace.Shipped(t, "testdata") {
		for _, args := range [][]string{{}, {"--weight=cpu", "--pid"}, {"-f", "pprof", "--start=1700000000"}} {
			if seq, conc := out(path, true, args...), out(path, false, args...); seq != conc {
				t.Errorf("wallfold %v %s: output differs between the sequential and the concurrent reader", args, path)
			}
		}
	}
}
