package emit

import (
	"bufio"
	_ "embed"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The SVG flame graph: one self-contained file (no network, no other
// files), root at the top so that deep stacks start on the first screen,
// below a header that holds the title, the buttons and the legend; frame
// widths by wall time (or CPU with --weight=cpu), colours by a Palette (by
// default the fixed parallelism scale, ParallelismPalette). A little
// embedded JavaScript zooms on click, searches (Ctrl-F), and keeps both in
// the URL's fragment.

//go:embed flame.js
var flameJS string

// SVG geometry, in px.
const (
	svgWidth    = 1200 // the default width
	svgFrame    = 17
	svgMargin   = 10
	svgLine     = 22  // a header line
	svgMinWidth = 0.3 // the default: narrower frames are not drawn, their time stays in the parent
	svgMaxDepth = 512
)

// FlameFrame is a frame of the merged tree of stacks, once complete: its
// name, depth (0: the "all" root), weights, and the sum of its stacks'
// StackSums (nil without).
type FlameFrame struct {
	Name      string
	Depth     int
	Wall, CPU float64
	Sums      []float64
	x         float64 // weight of what lies before it, in widths' unit
}

// flameInput is the stacks in the order of the picture, each as the path
// of name ids from the root level down.
type flameInput struct {
	s     *Stacks
	t     *Totals
	sums  *StackSums
	ids   []uint32
	paths [][]uint32
}

// newFlameInput sorts the stacks by their frame names level by level
// (the order of the children in the picture): sorted so, they share
// prefixes exactly where the tree merges them. reverse reads each stack
// leaf first (the callee view).
func newFlameInput(s *Stacks, t *Totals, sums *StackSums, reverse bool) *flameInput {
	in := &flameInput{s: s, t: t, sums: sums}
	for id := range t.Wall {
		if len(s.Frames(uint32(id))) > 0 && (t.Wall[id] != 0 || t.CPU[id] != 0) {
			in.ids = append(in.ids, uint32(id))
		}
	}
	in.paths = make([][]uint32, len(in.ids))
	for k, id := range in.ids {
		p := s.Frames(id)
		if reverse {
			r := make([]uint32, len(p))
			for i, n := range p {
				r[len(p)-1-i] = n
			}
			p = r
		}
		if len(p) > svgMaxDepth {
			p = p[:svgMaxDepth]
		}
		in.paths[k] = p
	}
	// Names compared by rank, ranked once: a sort compares two names
	// many times.
	byName := make([]uint32, len(s.names))
	for i := range byName {
		byName[i] = uint32(i)
	}
	sort.Slice(byName, func(a, b int) bool { return s.names[byName[a]] < s.names[byName[b]] })
	rank := make([]uint32, len(s.names))
	for r, id := range byName {
		rank[id] = uint32(r)
	}
	sort.Sort(&flameOrder{in, rank})
	return in
}

// flameOrder sorts a flameInput's stacks by their paths' names.
type flameOrder struct {
	in   *flameInput
	rank []uint32
}

func (o *flameOrder) Len() int { return len(o.in.ids) }
func (o *flameOrder) Swap(a, b int) {
	o.in.ids[a], o.in.ids[b] = o.in.ids[b], o.in.ids[a]
	o.in.paths[a], o.in.paths[b] = o.in.paths[b], o.in.paths[a]
}
func (o *flameOrder) Less(a, b int) bool {
	fa, fb := o.in.paths[a], o.in.paths[b]
	for i := 0; i < len(fa) && i < len(fb); i++ {
		if fa[i] != fb[i] {
			return o.rank[fa[i]] < o.rank[fb[i]]
		}
	}
	return len(fa) < len(fb)
}

// walk visits the merged tree of the stacks without building it: a frame
// is complete when the next stack leaves it. emit gets each frame as it
// completes (children before their parent); memory is one open frame per
// level. The frame and its Sums are reused after emit returns.
func (in *flameInput) walk(weight Weight, emit func(*FlameFrame)) {
	k := 0
	if in.sums != nil {
		k = in.sums.K
	}
	open := []FlameFrame{{Name: "all"}}
	sumBuf := make([]float64, k)
	open[0].Sums = sumBuf[:k:k]
	if k == 0 {
		open[0].Sums = nil
	}
	push := func(f FlameFrame) {
		d := len(open)
		if k > 0 {
			if len(sumBuf) < (d+1)*k {
				sumBuf = append(sumBuf, make([]float64, (d+1)*k-len(sumBuf))...)
				for i := range open { // the buffer moved
					open[i].Sums = sumBuf[i*k : (i+1)*k : (i+1)*k]
				}
			}
			f.Sums = sumBuf[d*k : (d+1)*k : (d+1)*k]
			clear(f.Sums)
		}
		open = append(open, f)
	}
	var x float64
	for j, id := range in.ids {
		path := in.paths[j]
		common := 0
		if j > 0 {
			prev := in.paths[j-1]
			for common < len(path) && common < len(prev) && common+1 < len(open) && path[common] == prev[common] {
				common++
			}
		}
		for len(open) > common+1 {
			emit(&open[len(open)-1])
			open = open[:len(open)-1]
		}
		for i := common; i < len(path); i++ {
			push(FlameFrame{Name: in.s.Name(path[i]), Depth: i + 1, x: x})
		}
		w, c := in.t.Wall[id], float64(in.t.CPU[id])
		sums := in.sums.of(id)
		for i := range open {
			open[i].Wall += w
			open[i].CPU += c
			for b, v := range sums {
				open[i].Sums[b] += v
			}
		}
		if weight == CPU {
			x += c
		} else {
			x += w
		}
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
	Title     string // "" : wallfold: wall time
	// Width is the picture's (px; 0: 1200), MinWidth the narrowest frame
	// drawn (px; 0: 0.3).
	Width, MinWidth float64
	// Reverse draws each stack leaf first: leaf functions at the root
	// level, their callers beneath (the callee view).
	Reverse bool
	// Sums are numbers per stack for the palette (nil: none); Palette
	// colours (nil: ParallelismPalette, which reads Sums by band).
	Sums    *StackSums
	Palette Palette
}

// SVGFlags are the flame graph's options that its flags set (emit.Options
// carries them to WriteSVG).
type SVGFlags struct {
	Title           string
	Width, MinWidth float64
	Reverse         bool
}

// WriteSVG writes the flame graph of the folded stacks.
func WriteSVG(w io.Writer, s *Stacks, t *Totals, o SVGOptions) error {
	g := newFlameGraph(s, t, o)
	bw := bufio.NewWriter(w)
	g.writeHead(bw)
	g.writeFrames(bw)
	g.writeScript(bw)
	return bw.Flush()
}

// flameGraph is what drawing a flame graph needs to know before its
// first frame.
type flameGraph struct {
	in *flameInput
	o  SVGOptions
	// root is the "all" frame, total its width.
	root  FlameFrame
	total float64
	// width is the picture's, minWidth its narrowest frame (px).
	width, minWidth float64
	// title is the picture's; the buttons are on header line buttons (1:
	// beside the title, 2: below a title too long for that); the legend's
	// lines follow. header is the height above the frames.
	title   string
	buttons int
	legend  []legendLine
	header  int
	// depth is the deepest frame drawn.
	depth  int
	height int // px
}

// newFlameGraph sorts the stacks, adds up the root, and walks the frames
// once for the depth drawn; writeFrames walks them again, to draw.
func newFlameGraph(s *Stacks, t *Totals, o SVGOptions) *flameGraph {
	if o.Palette == nil {
		o.Palette = ParallelismPalette{}
	}
	g := &flameGraph{o: o, width: o.Width, minWidth: o.MinWidth}
	if g.width <= 0 {
		g.width = svgWidth
	}
	if g.minWidth <= 0 {
		g.minWidth = svgMinWidth
	}
	g.in = newFlameInput(s, t, o.Sums, o.Reverse)
	g.root = FlameFrame{Name: "all"}
	for _, id := range g.in.ids {
		g.root.Wall += t.Wall[id]
		g.root.CPU += float64(t.CPU[id])
	}
	g.total = g.weight(&g.root)
	g.in.walk(o.Weight, func(f *FlameFrame) {
		if g.drawn(f) {
			g.depth = max(g.depth, f.Depth)
		}
	})
	g.legend = layoutLegend(append(o.Palette.Legend(), LegendEntry{Label: "(widths: " + g.what() + " time)"}), g.width)
	g.title = o.Title
	if g.title == "" {
		g.title = "wallfold: " + g.what() + " time"
		if o.Reverse {
			g.title += ", callee view (stacks reversed)"
		}
	}
	g.title = svgText(g.title)
	// The 17 px title's characters are under 10 px; the buttons take the
	// last 360 px.
	g.buttons = 1
	if svgMargin+10*utf8.RuneCountInString(g.title)+20 > int(g.width)-360 {
		g.buttons = 2
	}
	g.header = (g.buttons+len(g.legend)+1)*svgLine + svgMargin
	g.height = g.header + (g.depth+1)*svgFrame + 2*svgMargin
	return g
}

// weight is f's width in weight: its CPU or its wall.
func (g *flameGraph) weight(f *FlameFrame) float64 {
	if g.o.Weight == CPU {
		return f.CPU
	}
	return f.Wall
}

// drawn says whether f is wide enough to draw.
func (g *flameGraph) drawn(f *FlameFrame) bool {
	return g.total > 0 && g.weight(f) > 0 && g.weight(f)/g.total*(g.width-2*svgMargin) >= g.minWidth
}

// val formats a weight: seconds, or a count of the event's unit.
// (FormatWeight's text, without fmt: a tooltip has several).
func (g *flameGraph) val(x float64) string {
	if g.o.TimeBased {
		return string(strconv.AppendFloat(make([]byte, 0, 16), x/1e9, 'f', 3, 64)) + " s"
	}
	return strconv.FormatFloat(x, 'f', 0, 64) + " " + g.o.Unit
}

// what names the time that the widths are.
func (g *flameGraph) what() string {
	if g.o.Weight == CPU {
		return "CPU"
	}
	return "wall"
}

// svgText makes a frame name fit for XML: valid UTF-8 (perf prints the
// bytes it finds), no control characters XML forbids.
func svgText(s string) string {
	clean := utf8.ValidString(s)
	for i := 0; clean && i < len(s); i++ {
		clean = s[i] >= 0x20 || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'
	}
	if clean {
		return s
	}
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
	if len(s) <= n {
		return s
	}
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
