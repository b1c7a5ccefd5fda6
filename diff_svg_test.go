package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// diffSVG writes wallfold diff -f svg of before and after and reads it
// back (well-formed XML checked), its frames by name.
func diffSVG(t *testing.T, args ...string) (path string, frames map[string]svgFrame, fills map[string]string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "diff.svg")
	mustRun(t, append([]string{"diff", "-f", "svg", "-o", path}, args...)...)
	list, _, text := readSVG(t, path)
	frames = map[string]svgFrame{}
	for _, f := range list {
		if f.w > frames[f.name].w {
			frames[f.name] = f
		}
	}
	fills = map[string]string{}
	for _, m := range regexp.MustCompile(`data-n="([^"]*)"><title>[^<]*</title><rect [^>]*fill="([^"]+)"`).FindAllStringSubmatch(text, -1) {
		if _, ok := fills[m[1]]; !ok {
			fills[m[1]] = m[2]
		}
	}
	return path, frames, fills
}

// phases against phases3: serial_phase grew (red), parallel_work shrank
// (blue); widths are AFTER's wall, tooltips give both sides, as the
// folded diff's columns sum them.
func TestDiffSVGColoursAndWidths(t *testing.T) {
	before, after := trace("phases.txt"), trace("phases3.txt")
	_, frames, fills := diffSVG(t, before, after)
	lines := parseDiffFolded(t, mustRun(t, "diff", "-f", "folded", before, after))
	var total float64
	for _, l := range lines {
		total += l.after
	}
	for _, c := range []struct {
		name, hue string
	}{{"serial_phase", "hsl(0,80%"}, {"parallel_work", "hsl(220,80%"}} {
		f, ok := frames[c.name]
		if !ok {
			t.Fatalf("no frame %s", c.name)
		}
		if !strings.HasPrefix(fills[c.name], c.hue) {
			t.Errorf("%s: fill %q, want %s...", c.name, fills[c.name], c.hue)
		}
		b, a := inclusiveDiff(lines, c.name)
		if math.Abs(f.w-a/total) > 0.002 {
			t.Errorf("%s: %.4f of the width, AFTER's share %.4f", c.name, f.w, a/total)
		}
		if want := fmt.Sprintf("wall %.3f s -> %.3f s", b/1e9, a/1e9); !strings.Contains(f.title, want) {
			t.Errorf("%s: tooltip %q, want %q", c.name, f.title, want)
		}
	}
	if frames["all"].title == "" || !strings.Contains(frames["all"].title, "parallelism 1.49 -> 1.19") {
		t.Errorf("all: %q", frames["all"].title)
	}
}

// A stack only BEFORE has (fetch, hidden behind transform after the
// change) is not drawn, but its time is in its callers' BEFORE.
func TestDiffSVGBeforeOnlyInCallers(t *testing.T) {
	before, after := diffTrace("before.txt.gz"), diffTrace("after.txt.gz")
	path, frames, _ := diffSVG(t, "--off-cpu", before, after)
	lines := parseDiffFolded(t, mustRun(t, "diff", "--off-cpu", "-f", "folded", before, after))
	b, a := inclusiveDiff(lines, "main")
	if want := fmt.Sprintf("wall %.3f s -> %.3f s", b/1e9, a/1e9); !strings.Contains(frames["main"].title, want) {
		t.Errorf("main: tooltip %q, want %q", frames["main"].title, want)
	}
	if _, ok := frames["hrtimer_nanosleep"]; ok {
		t.Error("a frame only BEFORE has is drawn")
	}
	if b, err := os.ReadFile(path); err != nil || !strings.Contains(string(b), "4x less or gone") {
		t.Errorf("no legend: %v", err)
	}
}
