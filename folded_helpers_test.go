package main

// Readers of folded output (flamegraph.pl's input grammar), for the
// tests of every subject.

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// offLeaves sums the folded weight (seconds) under each off-CPU leaf.
func offLeaves(f folded) (blocked, runnable float64) {
	for st, n := range f.lines {
		switch {
		case strings.HasSuffix(st, ";[blocked]"):
			blocked += float64(n) / 1e9
		case strings.HasSuffix(st, ";[runnable]"):
			runnable += float64(n) / 1e9
		}
	}
	return
}

// foldedOf is the folded profile of wallfold -q args; any exit status
// but 0 ends the test.
func foldedOf(t *testing.T, args ...string) folded {
	t.Helper()
	return parseFolded(t, mustRun(t, append([]string{"-q"}, args...)...))
}

func checkShare(t *testing.T, path string, args []string, root, frame string, want, tol float64) string {
	t.Helper()
	out, stderr, code := wallfold(t, append(append([]string{}, args...), path)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got := parseFolded(t, out).share(root, frame)
	if math.Abs(got-want) > tol || math.IsNaN(got) {
		t.Errorf("%s: %s = %.1f%%, want %.1f ± %.1f", filepath.Base(path), frame, got, want, tol)
	}
	return stderr
}
