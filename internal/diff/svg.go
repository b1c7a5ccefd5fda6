package diff

import (
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/wallfold/wallfold/emit"
)

// beforeOnly is the wall given to a stack that AFTER does not have: the
// flame graph leaves out stacks of no weight, and with them their BEFORE
// time from their callers' tooltips; this much is never drawn (a
// nanosecond's millionth) and never printed.
const beforeOnly = 1e-6

// WriteSVG draws the difference as wallfold's flame graph (emit.WriteSVG's
// layout, zoom and search): widths of AFTER's wall, each frame coloured
// by how its wall changed (red grew, blue shrank), its tooltip with both
// sides. A stack only BEFORE has is 0 wide: the other way round
// (wallfold diff AFTER BEFORE) draws it.
func WriteSVG(w io.Writer, d *Diff, title string) error {
	s := emit.NewStacks(emit.NameOptions{})
	var t emit.Totals
	sums := &emit.StackSums{K: 2}
	for _, r := range d.Stacks {
		id := s.InternPath(strings.Split(r.Name, ";"))
		wall := r.After.Wall
		if wall == 0 && r.After.CPU == 0 {
			wall = beforeOnly
		}
		t.Add(id, uint64(math.Round(r.After.CPU)), wall)
		sums.Add(id, 0, r.Before.Wall)
		sums.Add(id, 1, r.Before.CPU)
	}
	if title == "" {
		title = "wallfold diff: wall time, " + d.Before.Name + " -> " + d.After.Name
	}
	return emit.WriteSVG(w, s, &t, emit.SVGOptions{TimeBased: d.After.TimeBased, Unit: d.After.Event,
		Title: title, Sums: sums, Palette: diffPalette{}})
}

// diffPalette colours a frame by log2 of its wall after over before,
// clamped at 4 times: the same scale in every file.
type diffPalette struct{}

// maxRatio is the scale's end: 4 times more (or new) is the reddest.
const maxRatio = 2 // log2

// changeFill is the fill of a wall that went from before to after.
func changeFill(before, after float64) string {
	var q float64
	switch {
	case before <= 0 && after <= 0:
		q = 0
	case before <= 0:
		q = maxRatio
	case after <= 0:
		q = -maxRatio
	default:
		q = math.Max(-maxRatio, math.Min(maxRatio, math.Log2(after/before)))
	}
	// Unchanged is a light grey; the more it changed, the deeper the red
	// (grew) or blue (shrank): lightness 92 % down to 50 %.
	if math.Abs(q) < 0.01 {
		return "hsl(0,0%,92%)"
	}
	hue := "0"
	if q < 0 {
		hue = "220"
	}
	light := 92 - 42*math.Abs(q)/maxRatio
	return "hsl(" + hue + ",80%," + strconv.FormatFloat(light, 'f', 0, 64) + "%)"
}

func (diffPalette) Fill(f *emit.FlameFrame) string {
	if len(f.Sums) != 2 {
		return changeFill(0, 0)
	}
	return changeFill(f.Sums[0], f.Wall)
}

// Tooltip: wall before -> after (delta, relative change), CPU the same,
// and the parallelism of each side.
func (diffPalette) Tooltip(f *emit.FlameFrame, g *emit.FlameContext) string {
	var bw, bc float64
	if len(f.Sums) == 2 {
		bw, bc = f.Sums[0], f.Sums[1]
	}
	aw := f.Wall
	if aw < 1 {
		aw = 0 // a stack only BEFORE has
	}
	r := Row{Before: Weights{bw, bc}, After: Weights{aw, f.CPU}, ParBefore: Weights{bw, bc}.Parallelism(),
		ParAfter: Weights{aw, f.CPU}.Parallelism()}
	sign := func(x float64) string {
		if x >= 0 {
			return "+" + g.Val(x)
		}
		return "-" + g.Val(-x)
	}
	b := "wall " + g.Val(bw) + " -> " + g.Val(aw) + " (" + sign(aw-bw)
	if c := change(bw, aw); c != "" {
		b += ", " + c
	}
	return b + "), CPU " + g.Val(bc) + " -> " + g.Val(f.CPU) + " (" + sign(f.CPU-bc) + "), parallelism " + parallelism(r)
}

// Legend: the scale from shrunk to grown.
func (diffPalette) Legend() []emit.LegendEntry {
	return []emit.LegendEntry{
		{Label: "wall after against before (the same scale in every file):"},
		{Fill: changeFill(4, 1), Label: "4x less or gone"},
		{Fill: changeFill(2, 1), Label: "2x less"},
		{Fill: changeFill(1, 1), Label: "same"},
		{Fill: changeFill(1, 2), Label: "2x more"},
		{Fill: changeFill(1, 4), Label: "4x more or new"},
	}
}
