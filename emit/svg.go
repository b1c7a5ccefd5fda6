package emit

import (
	"bufio"
	_ "embed"
	"fmt"
	"html"
	"io"
	"math"
	"sort"
	"strings"
)

// The SVG flame graph: one self-contained file (no network, no other
// files), root at the top so that deep stacks start on the first screen,
// frame widths by wall time (or CPU with --weight=cpu), colours by each
// frame's average parallelism (its CPU over its wall): serial frames warm,
// parallel ones cool. A little embedded JavaScript zooms on click, resets,
// and searches.

//go:embed flame.js
var flameJS string

// SVG geometry, in px.
const (
	svgWidth    = 1200
	svgFrame    = 17
	svgMargin   = 10
	svgHeader   = 54
	svgLegend   = 28
	svgMinWidth = 0.3 // narrower frames are not drawn: their time stays in the parent
	svgMaxDepth = 512
)

// flameFrame is a frame of the merged tree of stacks, once complete: its
// name, depth (0: the "all" root), start and weights.
type flameFrame struct {
	name      string
	depth     int
	x         float64 // weight of what lies before it, in widths' unit
	wall, cpu float64
}

// flameFrames walks the merged tree of the stacks without building it:
// the stacks, sorted by their frame names level by level (the order of
// the children in the picture), share prefixes exactly where the tree
// merges them, so a frame is complete when the next stack leaves it.
// emit gets each frame as it completes (children before their parent);
// memory is the stack list and one open frame per level.
func flameFrames(s *Stacks, t *Totals, weight Weight, emit func(*flameFrame)) {
	ids := make([]uint32, 0, len(t.Wall))
	for id := range t.Wall {
		if len(s.Frames(uint32(id))) > 0 && (t.Wall[id] != 0 || t.CPU[id] != 0) {
			ids = append(ids, uint32(id))
		}
	}
	name := func(id uint32, i int) string { return s.Name(s.Frames(id)[i]) }
	sort.Slice(ids, func(a, b int) bool {
		fa, fb := s.Frames(ids[a]), s.Frames(ids[b])
		for i := 0; i < len(fa) && i < len(fb); i++ {
			if na, nb := s.Name(fa[i]), s.Name(fb[i]); na != nb {
				return na < nb
			}
		}
		return len(fa) < len(fb)
	})
	open := []flameFrame{{name: "all"}}
	var x float64
	var prev uint32
	for k, id := range ids {
		frames := s.Frames(id)
		if len(frames) > svgMaxDepth {
			frames = frames[:svgMaxDepth]
		}
		common := 0
		if k > 0 {
			pf := s.Frames(prev)
			for common < len(frames) && common < len(pf) && common+1 < len(open) && name(id, common) == s.Name(pf[common]) {
				common++
			}
		}
		for len(open) > common+1 {
			emit(&open[len(open)-1])
			open = open[:len(open)-1]
		}
		for i := common; i < len(frames); i++ {
			open = append(open, flameFrame{name: s.Name(frames[i]), depth: i + 1, x: x})
		}
		w, c := t.Wall[id], float64(t.CPU[id])
		for i := range open {
			open[i].wall += w
			open[i].cpu += c
		}
		if weight == CPU {
			x += c
		} else {
			x += w
		}
		prev = id
	}
	for len(open) > 0 {
		emit(&open[len(open)-1])
		open = open[:len(open)-1]
	}
}

// SVGOptions say what the flame graph shows.
type SVGOptions struct {
	Weight    Weight // widths by wall (default) or CPU
	TimeBased bool   // weights are ns: say seconds
	Unit      string // other events
	Title     string
}

// parColor is the fill of a frame of average parallelism par when the
// most parallel frame has maxPar: red at 1, through yellow and green, to
// blue at maxPar (log scale).
func parColor(par, maxPar float64) string {
	f := 0.0
	if maxPar > 1 && par > 1 {
		f = math.Min(1, math.Log(par)/math.Log(maxPar))
	}
	hue := 10 + 210*f
	return fmt.Sprintf("hsl(%.0f,75%%,62%%)", hue)
}

// WriteSVG writes the flame graph of the folded stacks.
func WriteSVG(w io.Writer, s *Stacks, t *Totals, o SVGOptions) error {
	g := newFlameGraph(s, t, o)
	bw := bufio.NewWriter(w)
	g.writeHead(bw)
	g.writeFrames(bw)
	g.writeLegend(bw)
	return bw.Flush()
}

// flameGraph is what drawing a flame graph needs to know before its
// first frame.
type flameGraph struct {
	s *Stacks
	t *Totals
	o SVGOptions
	// root is the "all" frame, total its width.
	root  flameFrame
	total float64
	// depth is the deepest frame drawn, maxPar the most parallel frame
	// drawn (the colours' scale).
	depth  int
	maxPar float64
	height int // px
}

// newFlameGraph walks the frames once for the totals and again for the
// depth drawn and the most parallel frame drawn; writeFrames walks them a
// third time, to draw.
func newFlameGraph(s *Stacks, t *Totals, o SVGOptions) *flameGraph {
	g := &flameGraph{s: s, t: t, o: o, maxPar: 1}
	flameFrames(s, t, o.Weight, func(f *flameFrame) {
		if f.depth == 0 {
			g.root = *f
		}
	})
	g.total = g.width(&g.root)
	flameFrames(s, t, o.Weight, func(f *flameFrame) {
		if g.drawn(f) {
			g.depth = max(g.depth, f.depth)
			if f.wall > 0 {
				g.maxPar = math.Max(g.maxPar, f.cpu/f.wall)
			}
		}
	})
	g.height = svgHeader + (g.depth+1)*svgFrame + svgLegend + 2*svgMargin
	return g
}

// width is f's weight: its CPU or its wall.
func (g *flameGraph) width(f *flameFrame) float64 {
	if g.o.Weight == CPU {
		return f.cpu
	}
	return f.wall
}

// drawn says whether f is wide enough to draw.
func (g *flameGraph) drawn(f *flameFrame) bool {
	return g.total > 0 && g.width(f)/g.total*(svgWidth-2*svgMargin) >= svgMinWidth
}

// val formats a weight: seconds, or a count of the event's unit.
func (g *flameGraph) val(x float64) string { return FormatWeight(x, g.o.TimeBased, g.o.Unit) }

// what names the time that the widths are.
func (g *flameGraph) what() string {
	if g.o.Weight == CPU {
		return "CPU"
	}
	return "wall"
}

// writeHead writes the SVG element, its style, background, title and
// buttons.
func (g *flameGraph) writeHead(bw *bufio.Writer) {
	height, total := g.height, g.total
	title := g.o.Title
	if title == "" {
		title = "wallfold: " + g.what() + " time"
	}
	fmt.Fprintf(bw, `<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<svg version="1.1" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" data-total="%g" data-width="%d">
<style>
text { font-family: Verdana, sans-serif; font-size: 12px; fill: #000; }
.f rect { stroke: #fff; stroke-width: 0.5; rx: 2; }
.f text { pointer-events: none; font-size: 11px; }
.f:hover rect { stroke: #000; stroke-width: 1; }
.f.match rect { fill: #e040fb !important; }
.f.hide { display: none; }
#details, #matched { font-size: 12px; }
.button { cursor: pointer; fill: #1565c0; }
</style>
<rect x="0" y="0" width="100%%" height="100%%" fill="#f8f8f8"/>
<text x="%d" y="22" style="font-size:17px">%s</text>
<text x="%d" y="22" class="button" id="reset">Reset zoom</text>
<text x="%d" y="22" class="button" id="search">Search</text>
<text x="%d" y="44" id="details"> </text>
<text x="%d" y="44" id="matched" text-anchor="end"> </text>
`, svgWidth, height, svgWidth, height, total, svgWidth-2*svgMargin,
		svgMargin, html.EscapeString(title), svgWidth-260, svgWidth-120, svgMargin, svgWidth-svgMargin)
}

// writeFrames writes the frames drawn.
func (g *flameGraph) writeFrames(bw *bufio.Writer) {
	total, root, maxPar, drawn, width, val := g.total, g.root, g.maxPar, g.drawn, g.width, g.val
	// Frames come children first; the page places them by their data.
	flameFrames(g.s, g.t, g.o.Weight, func(f *flameFrame) {
		if !drawn(f) {
			return
		}
		wv := width(f)
		px := wv / total * (svgWidth - 2*svgMargin)
		par := 0.0
		if f.wall > 0 {
			par = f.cpu / f.wall
		}
		y := svgHeader + f.depth*svgFrame
		info := fmt.Sprintf("%s — wall %s (%.2f%%), CPU %s (%.2f%%), parallelism %.2f",
			svgText(f.name), val(f.wall), pct(f.wall, root.wall), val(f.cpu), pct(f.cpu, root.cpu), par)
		name := svgText(f.name)
		label := ""
		if chars := int(px / 7); chars >= 3 {
			label = cutRunes(name, chars)
		}
		fmt.Fprintf(bw, `<g class="f" data-x="%.9g" data-w="%.9g" data-d="%d" data-n="%s"><title>%s</title><rect x="%.2f" y="%d" width="%.2f" height="%d" fill="%s"/><text x="%.2f" y="%d">%s</text></g>
`, f.x/total, wv/total, f.depth, html.EscapeString(name), html.EscapeString(info),
			svgMargin+f.x/total*(svgWidth-2*svgMargin), y, px, svgFrame-1, parColor(par, maxPar),
			svgMargin+f.x/total*(svgWidth-2*svgMargin)+3, y+svgFrame-5, html.EscapeString(label))
	})
}

// writeLegend writes the colours' legend and the script.
func (g *flameGraph) writeLegend(bw *bufio.Writer) {
	height, maxPar, what := g.height, g.maxPar, g.what()
	// The legend: colours by average parallelism.
	ly := height - svgMargin - 10
	fmt.Fprintf(bw, `<text x="%d" y="%d">average parallelism:</text>
`, svgMargin, ly)
	steps := []float64{1, 1.5, 2, 4, 8, 16, 32, 64, 128, 256}
	lx := svgMargin + 150
	for _, p := range steps {
		if p > maxPar*1.001 && p != 1 {
			break
		}
		fmt.Fprintf(bw, `<rect x="%d" y="%d" width="40" height="14" fill="%s"/><text x="%d" y="%d">%s</text>
`, lx, ly-11, parColor(p, maxPar), lx+44, ly, strings.TrimSuffix(fmt.Sprintf("%.1f", p), ".0"))
		lx += 80
	}
	fmt.Fprintf(bw, "<text x=\"%d\" y=\"%d\">(serial warm, parallel cool; widths: %s time)</text>\n", lx+10, ly, what)
	fmt.Fprintf(bw, "<script><![CDATA[\n%s\n]]></script>\n</svg>\n", flameJS)
}

// svgText makes a frame name fit for XML: valid UTF-8 (perf prints the
// bytes it finds), no control characters XML forbids.
func svgText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' {
			return '\uFFFD'
		}
		return r
	}, s)
}

// cutRunes cuts s to n characters, the last two of them "..".
func cutRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-2]) + ".."
}

func pct(x, of float64) float64 {
	if of == 0 {
		return 0
	}
	return 100 * x / of
}
