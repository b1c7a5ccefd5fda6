package emit_test

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/wallfold/wallfold/emit"
	"github.com/wallfold/wallfold/state"
)

func TestParallelismBand(t *testing.T) {
	want := map[int]int{0: emit.BandSerial, 1: emit.BandSerial, 2: emit.Band2, 3: emit.Band3to4, 4: emit.Band3to4,
		5: emit.Band5to8, 8: emit.Band5to8, 9: emit.Band9to16, 16: emit.Band9to16, 17: emit.Band17to32,
		32: emit.Band17to32, 33: emit.Band33Up, 1000: emit.Band33Up}
	for par, band := range want {
		if got := emit.ParallelismBand(state.OnCPU, par); got != band {
			t.Errorf("parallelism %d: band %d, want %d", par, got, band)
		}
	}
	if emit.ParallelismBand(state.Blocked, 3) != emit.BandBlocked || emit.ParallelismBand(state.Runnable, 0) != emit.BandRunnable {
		t.Errorf("off-CPU time not in its state's band")
	}
}

// The scale is fixed: the six stops differ, below 1 is 1, above 32 is 32.
func TestParallelismFill(t *testing.T) {
	seen := map[string]float64{}
	for _, p := range []float64{1, 2, 4, 8, 16, 32} {
		f := emit.ParallelismFill(p)
		if q, dup := seen[f]; dup {
			t.Errorf("parallelism %g and %g both %s", q, p, f)
		}
		seen[f] = p
	}
	if emit.ParallelismFill(0.4) != emit.ParallelismFill(1) || emit.ParallelismFill(100) != emit.ParallelismFill(32) {
		t.Errorf("the scale's ends: 0.4 %s, 100 %s", emit.ParallelismFill(0.4), emit.ParallelismFill(100))
	}
}

var (
	swatchRE = regexp.MustCompile(`<rect class="swatch" x="(\d+)" y="(\d+)"[^>]*/><text x="(\d+)" y="\d+">([^<]*)</text>`)
	frameYRE = regexp.MustCompile(`<g class="f"[^>]*><title>[^<]*</title><rect x="([0-9.]+)" y="(\d+)" width="([0-9.]+)"`)
)

// At --width=600 the legend wraps onto more lines, every entry within the
// width, every frame below it; the frames span 580 px.
func TestSVGNarrowLegend(t *testing.T) {
	s, tot := flameStacks()
	var b bytes.Buffer
	if err := emit.WriteSVG(&b, s, tot, emit.SVGOptions{TimeBased: true, Width: 600}); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	readFlame(t, b.Bytes())
	ys, lowest := map[string]bool{}, 0
	for _, m := range swatchRE.FindAllStringSubmatch(text, -1) {
		x, _ := strconv.Atoi(m[3])
		y, _ := strconv.Atoi(m[2])
		ys[m[2]], lowest = true, max(lowest, y+14)
		if x+7*len(m[4]) > 590 {
			t.Errorf("legend entry %q at x %d: beyond 590 px", m[4], x)
		}
	}
	if len(ys) < 2 {
		t.Errorf("legend on %d line(s) at 600 px, want it wrapped", len(ys))
	}
	for _, m := range frameYRE.FindAllStringSubmatch(text, -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		y, _ := strconv.Atoi(m[2])
		w, _ := strconv.ParseFloat(m[3], 64)
		if y < lowest+10 || x+w > 590.01 {
			t.Errorf("frame at (%g, %d), %g px wide: want it below the legend (%d) and within 590 px", x, y, w, lowest)
		}
	}
	if !strings.Contains(text, `width="600"`) {
		t.Errorf("the picture is not 600 px wide")
	}
}

// MinWidth is the narrowest frame drawn: rare (0.15 px at 1200) appears
// at 0.1.
func TestSVGMinWidth(t *testing.T) {
	for _, c := range []struct {
		min  float64
		rare bool
	}{{0, false}, {0.1, true}, {0.2, false}} {
		s, tot := flameStacks()
		var b bytes.Buffer
		if err := emit.WriteSVG(&b, s, tot, emit.SVGOptions{MinWidth: c.min}); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(b.String(), `data-n="rare"`); got != c.rare {
			t.Errorf("MinWidth %g: rare drawn %t, want %t", c.min, got, c.rare)
		}
	}
}

// growthPalette is what a differential graph would pass: Sums hold each
// stack's BEFORE wall; red where the frame grew, blue where it shrank.
type growthPalette struct{}

func (growthPalette) Fill(f *emit.FlameFrame) string {
	if f.Wall > f.Sums[0] {
		return "rgb(255,0,0)"
	}
	return "rgb(0,0,255)"
}

func (growthPalette) Tooltip(f *emit.FlameFrame, g *emit.FlameContext) string {
	return "wall " + g.Val(f.Sums[0]) + " -> " + g.Val(f.Wall)
}

func (growthPalette) Legend() []emit.LegendEntry {
	return []emit.LegendEntry{{Fill: "rgb(255,0,0)", Label: "grew"}, {Fill: "rgb(0,0,255)", Label: "shrank"}}
}

// The palette is a seam: the same layout with other colours, tooltips
// and legend, fed by numbers per stack.
func TestSVGPalette(t *testing.T) {
	s, tot := flameStacks()
	before := &emit.StackSums{K: 1}
	for id := range tot.Wall { // work was 3 times slower before, io half as slow
		switch s.Name(s.Frames(uint32(id))[len(s.Frames(uint32(id)))-1]) {
		case "work":
			before.Add(uint32(id), 0, 3*tot.Wall[id])
		case "io":
			before.Add(uint32(id), 0, tot.Wall[id]/2)
		default:
			before.Add(uint32(id), 0, tot.Wall[id])
		}
	}
	var b bytes.Buffer
	if err := emit.WriteSVG(&b, s, tot, emit.SVGOptions{TimeBased: true, Sums: before, Palette: growthPalette{}}); err != nil {
		t.Fatal(err)
	}
	byName := map[string]flameG{}
	for _, g := range readFlame(t, b.Bytes()).Frames {
		byName[g.Name] = g
	}
	// main: before 1800 + 150 + 100 ms, after 1000.
	for name, want := range map[string][2]string{
		"work": {"rgb(0,0,255)", "work — wall 1.800 s -> 0.600 s"},
		"io":   {"rgb(255,0,0)", "io — wall 0.150 s -> 0.300 s"},
		"main": {"rgb(0,0,255)", "main — wall 2.050 s -> 1.000 s"},
	} {
		if g := byName[name]; g.Rect.Fill != want[0] || g.Title != want[1] {
			t.Errorf("%s: fill %s, tooltip %q; want %s, %q", name, g.Rect.Fill, g.Title, want[0], want[1])
		}
	}
	if !strings.Contains(b.String(), ">grew</text>") || strings.Contains(b.String(), "[blocked]") {
		t.Errorf("the legend is not the palette's")
	}
}

// A frame all off CPU takes the grey of its larger state whatever its
// name; a frame with time on CPU the colour of that time's parallelism.
func TestParallelismPaletteFill(t *testing.T) {
	sums := func(kv ...float64) []float64 {
		s := make([]float64, emit.NumBands)
		for i := 0; i < len(kv); i += 2 {
			s[int(kv[i])] = kv[i+1]
		}
		return s
	}
	var p emit.ParallelismPalette
	for _, c := range []struct {
		f    emit.FlameFrame
		want string
	}{
		{emit.FlameFrame{Name: "read", Wall: 10, Sums: sums(emit.BandBlocked, 7, emit.BandRunnable, 3)}, emit.BlockedFill},
		{emit.FlameFrame{Name: "read", Wall: 10, Sums: sums(emit.BandBlocked, 3, emit.BandRunnable, 7)}, emit.RunnableFill},
		{emit.FlameFrame{Name: "[runnable]", Wall: 10, Sums: sums(emit.BandRunnable, 10)}, emit.RunnableFill},
		{emit.FlameFrame{Name: "[spinning]", Wall: 10, CPU: 10}, emit.SpinningFill},
		// 5 blocked, 5 on CPU at 2 threads: 10 of CPU over 5 of wall
		{emit.FlameFrame{Name: "step", Wall: 10, CPU: 10, Sums: sums(emit.BandBlocked, 5, emit.Band2, 5)}, emit.ParallelismFill(2)},
		{emit.FlameFrame{Name: "step", Wall: 10, CPU: 40}, emit.ParallelismFill(4)}, // no Sums: CPU over wall
	} {
		if got := p.Fill(&c.f); got != c.want {
			t.Errorf("%+v: %s, want %s", c.f, got, c.want)
		}
	}
}

// A title too long to share its line with the buttons gets the line to
// itself.
func TestSVGLongTitle(t *testing.T) {
	for _, c := range []struct {
		width   float64
		title   string
		buttonY string
	}{{1200, strings.Repeat("t", 40), "22"}, {600, strings.Repeat("t", 40), "44"}, {600, "short", "22"}} {
		s, tot := flameStacks()
		var b bytes.Buffer
		if err := emit.WriteSVG(&b, s, tot, emit.SVGOptions{Width: c.width, Title: c.title}); err != nil {
			t.Fatal(err)
		}
		if want := `y="` + c.buttonY + `" class="button" id="search"`; !strings.Contains(b.String(), want) {
			t.Errorf("width %g, title of %d: no %s", c.width, len(c.title), want)
		}
	}
}
