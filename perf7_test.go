package main

// perf 7.x text (testdata/perf7/README.md): the same perf.data scripted by
// perf 7.2 and by perf 6.1, whose text is the truth for what perf 7's
// means. perf 7 names a thread's records after its EXIT ":TID", prints
// a user frame twice where the debug info has a function inlined into
// itself, and -F +misc adds a column before the time.

import (
	"bufio"
	"bytes"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/wallfold/wallfold/internal/testtrace"
)

func perf7Trace(name string) string { return filepath.Join("testdata", "perf7", name) }

// perf7Samples reads the samples of a gzipped trace with no code of
// wallfold's: each sample's comm (the words before the tid, spaces as
// '_', as folded roots have them), period, and frames (the words after
// each stack line's address), leaf first.
type textSample struct {
	comm   string
	period uint64
	frames []string
}

var sampleHeader = regexp.MustCompile(`^\s*(.*?)\s+-?\d+(?:/-?\d+)?\s+(?:\[\d+\]\s+)?\d+\.\d+:\s+(\d+) cpu-clock:`)

func perf7Samples(t *testing.T, name string) []textSample {
	t.Helper()
	text := testtrace.Read(t, perf7Trace(name))
	var out []textSample
	sc := bufio.NewScanner(bytes.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		if m := sampleHeader.FindStringSubmatch(line); m != nil {
			p, _ := strconv.ParseUint(m[2], 10, 64)
			out = append(out, textSample{comm: strings.ReplaceAll(m[1], " ", "_"), period: p})
		} else if strings.HasPrefix(line, "\t") && len(out) > 0 {
			s := &out[len(out)-1]
			s.frames = append(s.frames, strings.Join(strings.Fields(line)[1:], " "))
		}
	}
	return out
}

var placeholderRoot = regexp.MustCompile(`^:-?\d+$`)

// rootTotals sums a folded profile's weights by root.
func rootTotals(f folded) map[string]uint64 {
	m := map[string]uint64{}
	for st, n := range f.lines {
		root, _, _ := strings.Cut(st, ";")
		m[root] += n
	}
	return m
}

// TestPerf7ThreadNames: a build's processes exit with samples after their
// EXIT that perf 7 names ":TID"; wallfold names them as perf 6.1 did (the
// thread's last name): the CPU time under each root is the sum of the
// periods of perf 6.1's samples of that comm, no root and no process of
// the summary is called ":TID", and the text with -F +misc gives the same.
func TestPerf7ThreadNames(t *testing.T) {
	truth := map[string]uint64{}
	for _, s := range perf7Samples(t, "build.perf61.txt.gz") {
		truth[s.comm] += s.period
	}
	placeholders := 0
	for _, s := range perf7Samples(t, "build.perf7.txt.gz") {
		if placeholderRoot.MatchString(s.comm) {
			placeholders++
		}
	}
	if placeholders != 11 {
		t.Fatalf("build.perf7 has %d samples named :TID, want the 11 of the README", placeholders)
	}
	for _, name := range []string{"build.perf7.txt.gz", "build.perf7.misc.txt.gz"} {
		got := rootTotals(foldedOf(t, "--weight=cpu", perf7Trace(name)))
		for root, n := range got {
			if truth[root] != n {
				t.Errorf("%s: root %s: %d ns of CPU time, perf 6.1's samples of %s: %d", name, root, n, root, truth[root])
			}
		}
		for comm, n := range truth {
			if _, ok := got[comm]; !ok {
				t.Errorf("%s: no root %s (%d ns in perf 6.1's samples)", name, comm, n)
			}
		}
		for root := range rootTotals(foldedOf(t, perf7Trace(name))) {
			if placeholderRoot.MatchString(root) {
				t.Errorf("%s: a wall profile's root is %s", name, root)
			}
		}
		sum := mustRun(t, "-q", "-f", "summary", "--scope=process", perf7Trace(name))
		if i := strings.Index(sum, "process :"); i >= 0 {
			t.Errorf("%s: the summary names a process by its tid: %q", name, sum[i:min(len(sum), i+40)])
		}
	}
}

// TestPerf7DoubledFrames: a program whose threads write(2) in a loop and
// recurse from one call site: perf 7 prints __GI___libc_write twice in a
// row, perf 6.1 once; recurse+0x10 three times in both (real recursion).
// The wall profile of perf 7's text has each write once and the recursion
// whole: the CPU time of the stacks with 1 and with 4 recurse frames in a
// row is that of perf 6.1's samples with them, and the profile is the one
// of perf 6.1's text, with -F +misc too.
func TestPerf7DoubledFrames(t *testing.T) {
	runs := func(frames []string, sym string) int { // the longest run of sym
		best, n := 0, 0
		for _, f := range frames {
			if strings.HasPrefix(f, sym+"+") {
				n++
				best = max(best, n)
			} else {
				n = 0
			}
		}
		return best
	}
	var write2, write1, recurse4 uint64
	for _, s := range perf7Samples(t, "writers.perf61.txt.gz") {
		switch runs(s.frames, "__GI___libc_write") {
		case 1:
			write1 += s.period
		case 2:
			write2 += s.period
		}
		if runs(s.frames, "recurse") == 4 {
			recurse4 += s.period
		}
	}
	doubled := 0
	for _, s := range perf7Samples(t, "writers.perf7.txt.gz") {
		if runs(s.frames, "__GI___libc_write") == 2 {
			doubled++
		}
	}
	if write2 != 0 || write1 == 0 || recurse4 == 0 || doubled == 0 {
		t.Fatalf("the texts lack the case: perf 6.1 writes once %d ns, twice %d ns, recursion %d ns; perf 7 doubled %d samples",
			write1, write2, recurse4, doubled)
	}
	truth := foldedOf(t, "--weight=cpu", perf7Trace("writers.perf61.txt.gz"))
	for _, name := range []string{"writers.perf7.txt.gz", "writers.perf7.misc.txt.gz"} {
		f := foldedOf(t, "--weight=cpu", perf7Trace(name))
		var w1, w2, r4 uint64
		for st, n := range f.lines {
			switch {
			case strings.Contains(st, "__GI___libc_write;__GI___libc_write"):
				w2 += n
			case strings.Contains(st, "__GI___libc_write"):
				w1 += n
			}
			if strings.Contains(st, "recurse;recurse;recurse;recurse") && !strings.Contains(st, "recurse;recurse;recurse;recurse;recurse") {
				r4 += n
			}
		}
		if w1 != write1 || w2 != 0 || r4 != recurse4 {
			t.Errorf("%s: __GI___libc_write once %d ns, twice %d ns, 4-deep recursion %d ns; perf 6.1's samples: %d, 0, %d",
				name, w1, w2, r4, write1, recurse4)
		}
		if len(f.lines) != len(truth.lines) || f.total != truth.total {
			t.Errorf("%s: %d stacks, %.0f ns; perf 6.1's text gives %d, %.0f", name, len(f.lines), f.total, len(truth.lines), truth.total)
		}
		for st, n := range truth.lines {
			if f.lines[st] != n {
				t.Errorf("%s: %s: %d, perf 6.1's text gives %d", name, st, f.lines[st], n)
				break
			}
		}
	}
}
