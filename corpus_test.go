package main

// Compatibility with inferno-collapse-perf on its own test corpus
// (testdata/corpus).

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Compatibility with inferno-collapse-perf: with --weight=cpu the folded
// output equals inferno's expected output, byte for byte.
func TestInfernoCorpus(t *testing.T) {
	results, _ := filepath.Glob("testdata/corpus/inferno/results/*-collapsed*.txt")
	if len(results) < 10 {
		t.Fatalf("only %d results in testdata/corpus", len(results))
	}
	for _, res := range results {
		b := strings.TrimSuffix(filepath.Base(res), ".txt")
		base, opt, _ := strings.Cut(b, "-collapsed")
		t.Run(b, func(t *testing.T) {
			in := ""
			for _, c := range []string{
				"testdata/corpus/inferno/" + base + ".txt",
				"testdata/corpus/flamegraph/" + base + ".txt",
				"testdata/corpus/flamegraph/" + base + ".txt.gz",
			} {
				if _, err := os.Stat(c); err == nil {
					in = c
				}
			}
			if in == "" {
				t.Fatalf("no input for %s", res)
			}
			args := []string{"-q", "--weight=cpu", in}
			if opt != "" {
				args = append(args, "--"+strings.TrimPrefix(opt, "-"))
			}
			got, _, code := wallfold(t, args...)
			if code != 0 {
				t.Fatalf("exit %d", code)
			}
			wantB, err := os.ReadFile(res)
			if err != nil {
				t.Fatal(err)
			}
			want := string(wantB)
			g, w := parseFolded(t, got), parseFolded(t, want)
			if g.total != w.total || len(g.lines) != len(w.lines) {
				t.Errorf("total %.0f in %d stacks, inferno %.0f in %d", g.total, len(g.lines), w.total, len(w.lines))
			}
			if got != want {
				t.Errorf("output differs from inferno's %s", res)
			}
		})
	}
}
