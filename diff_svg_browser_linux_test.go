package main

import (
	"path/filepath"
	"testing"
)

// The diff SVG in a headless Chromium: it loads, serial_phase (grew) is
// drawn red and parallel_work (shrank) blue, as the legend's ends are.
func TestDiffSVGBrowser(t *testing.T) {
	b := startBrowser(t)
	path := filepath.Join(t.TempDir(), "diff.svg")
	mustRun(t, "diff", "-f", "svg", "-o", path, trace("phases.txt"), trace("phases3.txt"))
	c := pageColours(t, b, path)
	t.Logf("%+v", c)
	grew, shrank := rgbOf(t, c.Fills["serial_phase"]), rgbOf(t, c.Fills["parallel_work"])
	if !(grew[0] > grew[2]+50) || !(shrank[2] > shrank[0]+50) {
		t.Errorf("serial_phase %v (grew: want red), parallel_work %v (shrank: want blue)", grew, shrank)
	}
	more, less := rgbOf(t, c.Legend["4x more or new"]), rgbOf(t, c.Legend["4x less or gone"])
	if !(more[0] > more[2]+50) || !(less[2] > less[0]+50) || !c.LegendFound || c.LegendTop > c.FramesTop {
		t.Errorf("legend: more %v, less %v, found %t at %.0f px, frames from %.0f px", more, less, c.LegendFound, c.LegendTop, c.FramesTop)
	}
}
