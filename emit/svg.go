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

// flameNode is a frame in the merged tree of stacks.
type flameNode struct {
	name     string
	wall     float64
	cpu      float64
	children map[string]*flameNode
}

func (n *flameNode) child(name string) *flameNode {
	if n.children == nil {
		n.children = map[string]*flameNode{}
	}
	c := n.children[name]
	if c == nil {
		c = &flameNode{name: name}
		n.children[name] = c
	}
	return c
}

// flameTree merges the folded stacks into a tree under an "all" root.
func flameTree(s *Stacks, t *Totals) *flameNode {
	root := &flameNode{name: "all"}
	for id := range t.Wall {
		w, c := t.Wall[id], float64(t.CPU[id])
		frames := s.Frames(uint32(id))
		if len(frames) == 0 || (w == 0 && c == 0) {
			continue
		}
		root.wall += w
		root.cpu += c
		n := root
		for i, f := range frames {
			if i == svgMaxDepth {
				break
			}
			n = n.child(s.Name(f))
			n.wall += w
			n.cpu += c
		}
	}
	return root
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
	root := flameTree(s, t)
	width := func(n *flameNode) float64 {
		if o.Weight == CPU {
			return n.cpu
		}
		return n.wall
	}
	total := width(root)
	// Deepest drawn frame and the most parallel one, for height and colours.
	depth, maxPar := 0, 1.0
	var walk func(n *flameNode, d int)
	walk = func(n *flameNode, d int) {
		if total <= 0 || width(n)/total*(svgWidth-2*svgMargin) < svgMinWidth {
			return
		}
		depth = max(depth, d)
		if n.wall > 0 {
			maxPar = math.Max(maxPar, n.cpu/n.wall)
		}
		for _, c := range n.children {
			walk(c, d+1)
		}
	}
	walk(root, 0)
	height := svgHeader + (depth+1)*svgFrame + svgLegend + 2*svgMargin
	bw := bufio.NewWriter(w)
	val := func(x float64) string {
		if o.TimeBased {
			return fmt.Sprintf("%.3f s", x/1e9)
		}
		return fmt.Sprintf("%.0f %s", x, o.Unit)
	}
	what := "wall"
	if o.Weight == CPU {
		what = "CPU"
	}
	title := o.Title
	if title == "" {
		title = "wallfold: " + what + " time"
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

	var draw func(n *flameNode, x float64, d int)
	draw = func(n *flameNode, x float64, d int) {
		wv := width(n)
		px := wv / total * (svgWidth - 2*svgMargin)
		if px < svgMinWidth {
			return
		}
		par := 0.0
		if n.wall > 0 {
			par = n.cpu / n.wall
		}
		y := svgHeader + d*svgFrame
		info := fmt.Sprintf("%s — wall %s (%.2f%%), CPU %s (%.2f%%), parallelism %.2f",
			n.name, val(n.wall), pct(n.wall, root.wall), val(n.cpu), pct(n.cpu, root.cpu), par)
		label := ""
		if chars := int(px / 7); chars >= 3 {
			label = n.name
			if len(label) > chars {
				label = label[:chars-2] + ".."
			}
		}
		fmt.Fprintf(bw, `<g class="f" data-x="%.9g" data-w="%.9g" data-d="%d" data-n="%s"><title>%s</title><rect x="%.2f" y="%d" width="%.2f" height="%d" fill="%s"/><text x="%.2f" y="%d">%s</text></g>
`, x/total, wv/total, d, html.EscapeString(n.name), html.EscapeString(info),
			svgMargin+x/total*(svgWidth-2*svgMargin), y, px, svgFrame-1, parColor(par, maxPar),
			svgMargin+x/total*(svgWidth-2*svgMargin)+3, y+svgFrame-5, html.EscapeString(label))
		// Children in name order, as flamegraph.pl sorts them.
		names := make([]string, 0, len(n.children))
		for name := range n.children {
			names = append(names, name)
		}
		sort.Strings(names)
		cx := x
		for _, name := range names {
			c := n.children[name]
			draw(c, cx, d+1)
			cx += width(c)
		}
	}
	if total > 0 {
		draw(root, 0, 0)
	}
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
	return bw.Flush()
}

func pct(x, of float64) float64 {
	if of == 0 {
		return 0
	}
	return 100 * x / of
}
