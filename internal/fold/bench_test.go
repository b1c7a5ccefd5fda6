package fold

import (
	"bytes"
	"io"
	"testing"

	"github.com/wallfold/wallfold/emit"
	"github.com/wallfold/wallfold/internal/gentrace"
)

// BenchmarkRun: one run (the reader on one goroutine, as behind perf
// script) over a generated system-wide trace of a 64-CPU build, per
// output; MB/s of text.
func BenchmarkRun(b *testing.B) {
	sim := gentrace.Simulate(gentrace.ShortProcs(64, 13))
	text := sim.Text(gentrace.Style{SystemWide: true, Switches: true, TaskEvents: true, PIDCol: true})
	for _, f := range []emit.Format{emit.Folded, emit.Pprof, emit.Summary} {
		b.Run(f.String(), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				r, err := New(Config{Output: emit.Options{Format: f}, Quiet: true, Stderr: io.Discard},
					Input{R: bytes.NewReader(text), Name: "gen", Stdin: true})
				if err != nil {
					b.Fatal(err)
				}
				if err := r.Read(); err != nil {
					b.Fatal(err)
				}
				if err := r.Write(io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
