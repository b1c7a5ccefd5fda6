package main

// Readers of folded output (flamegraph.pl's input grammar), for the
// tests of every subject.

import (
	"math"
	"path/filepath"
	"regexp"
	"strconv"
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

// checkShare runs wallfold args on path and checks frame's share of the
// stacks under root (all if "") against want ± tol (points of %); it
// returns what the run said on stderr.
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

// foldedLine is flamegraph.pl's input grammar: a stack, a weight.
var foldedLine = regexp.MustCompile(`^(.*)\s+(\d+)$`)

// folded is a folded profile: each stack's weight, and their total.
type folded struct {
	lines map[string]uint64
	total float64
}

// parseFolded reads folded output; a line out of the grammar, or a
// stack printed twice, ends the test.
func parseFolded(t *testing.T, s string) folded {
	t.Helper()
	f := folded{lines: map[string]uint64{}}
	for i, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		if l == "" {
			continue
		}
		m := foldedLine.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("line %d not in flamegraph.pl grammar: %q", i+1, l)
		}
		n, err := strconv.ParseUint(m[2], 10, 64)
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if _, dup := f.lines[m[1]]; dup {
			t.Fatalf("line %d: stack printed twice: %q", i+1, m[1])
		}
		f.lines[m[1]] = n
		f.total += float64(n)
	}
	return f
}

// share returns the share (in %) of the weight of stacks whose root is
// root (all if "") that contain frame, among the stacks with that root.
func (f folded) share(root, frame string) float64 {
	var in, all float64
	for st, n := range f.lines {
		if root != "" && !strings.HasPrefix(st, root+";") && st != root {
			continue
		}
		all += float64(n)
		for _, fr := range strings.Split(st, ";") {
			if fr == frame {
				in += float64(n)
				break
			}
		}
	}
	if all == 0 {
		return math.NaN()
	}
	return 100 * in / all
}

// frameShare is the share of stacks containing frame in folded output.
func frameShare(t *testing.T, out, frame string) float64 {
	t.Helper()
	return parseFolded(t, out).share("", frame)
}

// inclusive returns each frame's share (%) of a folded profile, a frame
// counted once per stack, and its share as the leaf.
func inclusive(f folded) (total, self map[string]float64) {
	total, self = map[string]float64{}, map[string]float64{}
	for st, n := range f.lines {
		frames := strings.Split(st, ";")
		seen := map[string]bool{}
		for _, fr := range frames {
			if !seen[fr] {
				seen[fr] = true
				total[fr] += 100 * float64(n) / f.total
			}
		}
		self[frames[len(frames)-1]] += 100 * float64(n) / f.total
	}
	return
}
