package main

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/wallfold/wallfold/parse"
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

// acceptedPeriods is the sum of the periods of the samples of the first
// event seen, from the parser's records.
func acceptedPeriods(data []byte) uint64 {
	r := parse.NewSequentialReader(bytes.NewReader(data), "fuzz")
	var event []byte
	var sum uint64
	for r.Scan() {
		rec := r.Record()
		if rec.Kind != parse.KindSample {
			continue
		}
		if event == nil {
			event = append([]byte(nil), parse.EventBase(rec.Event)...)
		}
		if parse.EventMatches(rec.Event, event) {
			sum += rec.Period
		}
	}
	return sum
}

// FuzzPipeline runs parse -> state -> emit on arbitrary input and checks
// the invariants: no panic; the cpu total is the sum of the accepted
// samples' periods; wall <= cpu; folded output is in flamegraph.pl's
// grammar; pprof output parses back and is valid.
func FuzzPipeline(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		wallfoldIn := func(args ...string) []byte {
			out, stderr, code := runCLI(t, bytes.NewReader(data), append(args, "-o", "-")...)
			if code > 1 || (code == 1 && len(out) > 0) {
				t.Fatalf("wallfold %v: exit %d with %d bytes of output: %s", args, code, len(out), stderr)
			}
			return []byte(out)
		}
		if _, _, code := runCLI(t, bytes.NewReader(data), "-o", "-"); code == 1 {
			return // not perf script text: no output at all
		}
		cpuIn := acceptedPeriods(data)
		cpu := parseFolded(t, string(wallfoldIn("--weight=cpu")))
		if uint64(cpu.total) != cpuIn {
			t.Fatalf("cpu total %.0f != sum of accepted periods %d", cpu.total, cpuIn)
		}
		wall := parseFolded(t, string(wallfoldIn("--summary")))
		if wall.total > cpu.total+float64(len(wall.lines)) {
			t.Fatalf("wall total %.0f > cpu total %.0f", wall.total, cpu.total)
		}
		if sum := wallfoldIn("-f", "summary"); math.IsNaN(wall.total) || strings.Contains(string(sum), "NaN") {
			t.Fatalf("NaN in summary:\n%s", sum)
		}
		prof, err := profile.Parse(bytes.NewReader(wallfoldIn("-f", "pprof")))
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
		if uint64(pcpu) != cpuIn {
			t.Fatalf("pprof cpu total %d != accepted periods %d", pcpu, cpuIn)
		}
	})
}
