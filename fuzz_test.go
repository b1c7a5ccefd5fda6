package main

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// seeds are pieces of real traces and corpus files.
func addSeeds(f *testing.F) {
	for _, path := range []string{
		trace("phases.txt"), trace("syswide.txt"), trace("nocallchain.txt"), trace("procs.notask.txt"),
		"testdata/corpus/inferno/cpp-stacks-std-function.txt", "testdata/corpus/inferno/java-inline.txt",
		"testdata/corpus/inferno/single-line-stacks.txt", "testdata/corpus/inferno/weird-stack-line.txt",
		"testdata/corpus/inferno/empty-line.txt", "testdata/corpus/inferno/go-stacks.txt",
	} {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		for _, n := range []int{300, 3000, 20000} {
			if len(b) > n {
				f.Add(b[:n])
			}
		}
		if len(b) < 20000 {
			f.Add(b)
		}
	}
	f.Add([]byte("a;b;c 12\n"))
	f.Add([]byte("\x00\xff\xfe\r\r\n\t\t\n"))
}

// FuzzPipeline runs parse -> state -> emit on arbitrary input and checks
// the invariants: no panic; the cpu total is the sum of the accepted
// samples' periods; wall <= cpu; folded output is in flamegraph.pl's
// grammar; pprof output parses back and is valid.
func FuzzPipeline(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		p := newPipeline(config{weightCPU: true, sequential: true})
		if err := p.read(bytes.NewReader(data), "fuzz"); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := p.writeFolded(&out); err != nil {
			t.Fatal(err)
		}
		cpu := parseFolded(t, out.String())
		if uint64(cpu.total) != p.cpuIn {
			t.Fatalf("cpu total %.0f != sum of accepted periods %d", cpu.total, p.cpuIn)
		}
		_ = p.warnings()
		_ = p.check()

		w := newPipeline(config{summary: true, sequential: true})
		w.read(bytes.NewReader(data), "fuzz")
		out.Reset()
		if err := w.writeFolded(&out); err != nil {
			t.Fatal(err)
		}
		wall := parseFolded(t, out.String())
		if wall.total > cpu.total+float64(len(wall.lines)) {
			t.Fatalf("wall total %.0f > cpu total %.0f", wall.total, cpu.total)
		}
		out.Reset()
		if err := w.writeSummary(&out, false, w.warnings()); err != nil {
			t.Fatal(err)
		}
		if math.IsNaN(wall.total) || strings.Contains(out.String(), "NaN") {
			t.Fatalf("NaN in summary:\n%s", out.String())
		}

		pp := newPipeline(config{pprof: true, sequential: true})
		pp.read(bytes.NewReader(data), "fuzz")
		out.Reset()
		if err := pp.writePprof(&out, pp.warnings()); err != nil {
			t.Fatal(err)
		}
		prof, err := profile.Parse(&out)
		if err != nil {
			t.Fatalf("profile.Parse: %v", err)
		}
		if err := prof.CheckValid(); err != nil {
			t.Fatalf("CheckValid: %v", err)
		}
		var pcpu int64
		for _, s := range prof.Sample {
			pcpu += s.Value[1]
		}
		if uint64(pcpu) != pp.cpuIn {
			t.Fatalf("pprof cpu total %d != accepted periods %d", pcpu, pp.cpuIn)
		}
	})
}
