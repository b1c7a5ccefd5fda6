package emit

import (
	"bufio"
	"fmt"
	"html"
	"strconv"
	"unicode/utf8"
)

// svgChar is the width of a character of the header's 12 px text, near
// enough to lay the legend out (Verdana's average is under 7 px).
const svgChar = 7

// legendItem is a legend entry at x (px) of its line.
type legendItem struct {
	LegendEntry
	x int
}

type legendLine []legendItem

// layoutLegend puts the entries on lines of the width, a new line where
// one would overflow.
func layoutLegend(entries []LegendEntry, width float64) []legendLine {
	var lines []legendLine
	var line legendLine
	x := svgMargin
	for _, e := range entries {
		w := svgChar*utf8.RuneCountInString(e.Label) + 12
		if e.Fill != "" {
			w += 18 // the swatch
		}
		if len(line) > 0 && float64(x+w) > width-svgMargin {
			lines, line, x = append(lines, line), nil, svgMargin
		}
		line = append(line, legendItem{e, x})
		x += w
	}
	if len(line) > 0 {
		lines = append(lines, line)
	}
	return lines
}

// writeHead writes the SVG element, its style, background, title,
// buttons and legend: all on the first screen, above the frames.
func (g *flameGraph) writeHead(bw *bufio.Writer) {
	w, by := int(g.width+0.5), g.buttons*svgLine
	fmt.Fprintf(bw, `<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<svg version="1.1" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" data-total="%g" data-width="%g" data-reverse="%t">
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
<text x="%d" y="%d" style="font-size:17px" id="title">%s</text>
<text x="%d" y="%d" class="button" id="search">Search (Ctrl-F)</text>
<text x="%d" y="%d" class="button" id="ignorecase">[ ] ignore case</text>
<text x="%d" y="%d" class="button" id="reset">Reset zoom</text>
`, w, g.height, w, g.height, g.total, g.width-2*svgMargin, g.o.Reverse,
		svgMargin, svgLine, html.EscapeString(g.title), w-360, by, w-240, by, w-100, by)
	g.writeLegend(bw)
	y := svgLine * (g.buttons + len(g.legend) + 1)
	fmt.Fprintf(bw, `<text x="%d" y="%d" id="details"> </text>
<text x="%d" y="%d" id="matched" text-anchor="end"> </text>
`, svgMargin, y, w-svgMargin, y)
}

// writeLegend writes the palette's legend, and what the widths are.
func (g *flameGraph) writeLegend(bw *bufio.Writer) {
	fmt.Fprintf(bw, "<g id=\"legend\">\n")
	for i, line := range g.legend {
		y := svgLine * (g.buttons + i + 1)
		for _, it := range line {
			x := it.x
			if it.Fill != "" {
				fmt.Fprintf(bw, `<rect class="swatch" x="%d" y="%d" width="14" height="14" fill="%s"/>`, x, y-11, it.Fill)
				x += 18
			}
			fmt.Fprintf(bw, "<text x=\"%d\" y=\"%d\">%s</text>\n", x, y, html.EscapeString(it.Label))
		}
	}
	fmt.Fprintf(bw, "</g>\n")
}

// writeFrames writes the frames drawn, children first; the page places
// them again by their data when it zooms. The lines are appended with
// strconv, not fmt: a build's thousands of frames cost as much as its
// parse with fmt (callgrind).
func (g *flameGraph) writeFrames(bw *bufio.Writer) {
	ctx := &FlameContext{Root: &g.root, Val: g.val}
	span := g.width - 2*svgMargin
	var b []byte
	g.in.walk(g.o.Weight, func(f *FlameFrame) {
		if !g.drawn(f) {
			return
		}
		wv := g.weight(f)
		px := wv / g.total * span
		x := svgMargin + f.x/g.total*span
		y := g.header + f.Depth*svgFrame
		name := svgText(f.Name)
		b = append(b[:0], `<g class="f" data-x="`...)
		b = strconv.AppendFloat(b, f.x/g.total, 'g', 9, 64)
		b = append(b, `" data-w="`...)
		b = strconv.AppendFloat(b, wv/g.total, 'g', 9, 64)
		b = append(b, `" data-d="`...)
		b = strconv.AppendInt(b, int64(f.Depth), 10)
		b = append(b, `" data-n="`...)
		b = appendEscaped(b, name)
		b = append(b, `"><title>`...)
		b = appendEscaped(b, name)
		b = append(b, " — "...)
		b = appendEscaped(b, svgText(g.o.Palette.Tooltip(f, ctx)))
		b = append(b, `</title><rect x="`...)
		b = strconv.AppendFloat(b, x, 'f', 2, 64)
		b = append(b, `" y="`...)
		b = strconv.AppendInt(b, int64(y), 10)
		b = append(b, `" width="`...)
		b = strconv.AppendFloat(b, px, 'f', 2, 64)
		b = append(b, `" height="`...)
		b = strconv.AppendInt(b, svgFrame-1, 10)
		b = append(b, `" fill="`...)
		b = append(b, g.o.Palette.Fill(f)...)
		b = append(b, `"/><text x="`...)
		b = strconv.AppendFloat(b, x+3, 'f', 2, 64)
		b = append(b, `" y="`...)
		b = strconv.AppendInt(b, int64(y+svgFrame-5), 10)
		b = append(b, `">`...)
		if chars := int(px / svgChar); chars >= 3 {
			b = appendEscaped(b, cutRunes(name, chars))
		}
		b = append(b, "</text></g>\n"...)
		bw.Write(b)
	})
}

// appendEscaped appends s escaped as html.EscapeString escapes it.
func appendEscaped(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '<':
			b = append(b, "&lt;"...)
		case '>':
			b = append(b, "&gt;"...)
		case '&':
			b = append(b, "&amp;"...)
		case '\'':
			b = append(b, "&#39;"...)
		case '"':
			b = append(b, "&#34;"...)
		default:
			b = append(b, c)
		}
	}
	return b
}

// writeScript writes the page's script and ends the SVG.
func (g *flameGraph) writeScript(bw *bufio.Writer) {
	fmt.Fprintf(bw, "<script><![CDATA[\n%s\n]]></script>\n</svg>\n", flameJS)
}
