package emit

import (
	"fmt"
	"math"
	"strconv"
	"sync"

	"github.com/wallfold/wallfold/internal/hugemem"
	"github.com/wallfold/wallfold/state"
)

// Palette is what a flame graph's colours mean: a frame's fill, what its
// tooltip says after the frame's name, and the legend. The layout (widths,
// depths, zoom, search) does not depend on it: a differential flame graph
// draws the same picture with a Palette that reads the frames' Sums (for
// it, say, the BEFORE profile's wall and CPU per stack) and colours by
// growth. WriteSVG calls it once per frame drawn.
type Palette interface {
	Fill(f *FlameFrame) string
	Tooltip(f *FlameFrame, g *FlameContext) string
	Legend() []LegendEntry
}

// FlameContext is what a tooltip may compare a frame with.
type FlameContext struct {
	Root *FlameFrame            // the "all" frame
	Val  func(x float64) string // a weight for people (seconds, or the event's unit)
}

// LegendEntry is a swatch and its label, or a heading (Fill "").
type LegendEntry struct{ Fill, Label string }

// StackSums are K numbers per stack (by the Stacks' id) that the flame
// graph adds up per frame, as it does wall and CPU: a frame's Sums are
// those of the stacks beneath it. The parallelism palette keeps wall per
// parallelism band; another palette, what it needs.
//
// The numbers are kept in chunks of sumsChunk stacks that never move
// (after the first, cut from huge pages: hugemem): one slice grown by
// appending copied itself as it grew, some 950 page faults of an 86 MB
// trace's svg.
type StackSums struct {
	K      int
	chunks [][]float64 // stack id's k-th number: chunks[id/sumsChunk][id%sumsChunk*K+k]
}

// sumsChunk is the stacks in a chunk.
const sumsChunk = 4096

// Add adds v to the k-th number of stack id.
func (s *StackSums) Add(id uint32, k int, v float64) {
	c := int(id) / sumsChunk
	for c >= len(s.chunks) {
		s.chunks = append(s.chunks, s.newChunk())
	}
	s.chunks[c][int(id)%sumsChunk*s.K+k] += v
}

func (s *StackSums) newChunk() []float64 {
	n := sumsChunk * s.K
	if len(s.chunks) > 0 {
		return hugemem.Make[float64](n)
	}
	return make([]float64, n)
}

// of is stack id's numbers (nil when no chunk holds them: zero).
func (s *StackSums) of(id uint32) []float64 {
	if s == nil || int(id)/sumsChunk >= len(s.chunks) {
		return nil
	}
	i := int(id) % sumsChunk * s.K
	return s.chunks[int(id)/sumsChunk][i : i+s.K : i+s.K]
}

// The parallelism bands of the fixed scale: a sample's wall goes to the
// band of the number of its group's threads on CPU with it, off-CPU time
// to its state's. Doublings, because a step from 1 to 2 threads halves a
// wait as much as one from 16 to 32 does; 32 and more share the last
// band, as few machines that wallfold runs on have more cores to fill.
const (
	BandBlocked = iota
	BandRunnable
	BandSerial // parallelism 1 (and the rare 0 of an on-CPU sample)
	Band2
	Band3to4
	Band5to8
	Band9to16
	Band17to32
	Band33Up
	NumBands
)

// ParallelismBand is the band of a sample of state st at parallelism par.
func ParallelismBand(st state.State, par int) int {
	switch {
	case st == state.Blocked:
		return BandBlocked
	case st == state.Runnable:
		return BandRunnable
	case par <= 1:
		return BandSerial
	case par > 32:
		return Band33Up
	}
	// 2 -> Band2, 3-4 -> Band3to4, 5-8 -> Band5to8, ...
	b := BandSerial
	for n := 1; n < par; n *= 2 {
		b++
	}
	return b
}

var bandNames = [NumBands]string{"blocked", "runnable", "1", "2", "3-4", "5-8", "9-16", "17-32", "33+"}

// The fixed scale: average parallelism 1, 2, 4, 8, 16 and 32 or more at
// these hues (red, orange, yellow, green, cyan, blue), log2 between them.
// Hues are spaced by eye, not evenly: yellow and green are wide bands of
// the hue circle where evenly spaced stops look alike.
var parHues = [...]float64{0, 28, 52, 120, 180, 228}

// MaxScaleParallelism is the scale's end: more parallel frames are blue.
const MaxScaleParallelism = 32

// ParallelismFill is the fill of average parallelism par on the fixed
// scale, the same in every file: below 1 is 1, above 32 is 32.
func ParallelismFill(par float64) string {
	l := math.Log2(math.Min(math.Max(par, 1), MaxScaleParallelism))
	i := int(l)
	hue := parHues[len(parHues)-1]
	if i < len(parHues)-1 {
		hue = parHues[i] + (parHues[i+1]-parHues[i])*(l-float64(i))
	}
	return hueFills()[int(math.RoundToEven(hue))]
}

// hueFills are the fills of the scale's whole hues, made once when a
// graph first asks (it asks thousands of times; other outputs never).
var hueFills = sync.OnceValue(func() (f *[361]string) {
	f = new([361]string)
	for h := range f {
		f[h] = "hsl(" + strconv.Itoa(h) + ",75%,60%)"
	}
	return f
})

// Off-CPU frames are greys, which no parallelism colour is (all are 75 %
// saturated): light for blocked (waiting on something else), darker for
// runnable (waiting for a CPU), darkest for spinning (on a CPU, waiting).
const (
	BlockedFill  = "hsl(0,0%,80%)"
	RunnableFill = "hsl(0,0%,62%)"
	SpinningFill = "hsl(0,0%,46%)"
)

// offCPUFills are the fills of the frames that name a state. wallfold
// draws no [spinning] frame yet (spin-waits keep their function's name):
// its grey is kept for when it does.
var offCPUFills = map[string]string{"[blocked]": BlockedFill, "[runnable]": RunnableFill, "[spinning]": SpinningFill}

// ParallelismPalette colours by average parallelism on the fixed scale
// and greys off-CPU time; with Sums by band (NumBands per stack) the
// parallelism is that of the frame's time on CPU, and the tooltip gives
// the wall in each band.
type ParallelismPalette struct{}

// Fill: a state's frame its grey; a frame whose time is all off CPU the
// grey of the larger state; else the scale's colour of CPU over the wall
// on CPU.
func (p ParallelismPalette) Fill(f *FlameFrame) string {
	if fill, ok := offCPUFills[f.Name]; ok {
		return fill
	}
	on := f.Wall
	if len(f.Sums) == NumBands {
		blocked, runnable := f.Sums[BandBlocked], f.Sums[BandRunnable]
		on -= blocked + runnable
		if f.CPU == 0 && on <= 1e-9*f.Wall && blocked+runnable > 0 {
			if runnable > blocked {
				return RunnableFill
			}
			return BlockedFill
		}
	}
	if on <= 0 {
		return ParallelismFill(1)
	}
	return ParallelismFill(f.CPU / on)
}

// Tooltip: wall and CPU with their shares of the whole, the average
// parallelism, and the wall in each band that has 0.5 % of it or more
// (when more than one has). Appended with strconv: one per frame drawn.
func (p ParallelismPalette) Tooltip(f *FlameFrame, g *FlameContext) string {
	par := 0.0
	if f.Wall > 0 {
		par = f.CPU / f.Wall
	}
	b := make([]byte, 0, 160)
	b = append(b, "wall "...)
	b = appendShare(b, g.Val(f.Wall), f.Wall, g.Root.Wall)
	b = append(b, ", CPU "...)
	b = appendShare(b, g.Val(f.CPU), f.CPU, g.Root.CPU)
	b = append(b, ", parallelism "...)
	b = strconv.AppendFloat(b, par, 'f', 2, 64)
	// Bands under 0.5 % of the frame's wall would print as 0 %: left out.
	shown := func(v float64) bool { return v >= 0.005*f.Wall && v > 0 }
	bands := 0
	for _, v := range f.Sums {
		if shown(v) {
			bands++
		}
	}
	if len(f.Sums) != NumBands || bands < 2 {
		return string(b)
	}
	sep := "; wall at parallelism "
	for k := BandSerial; k < NumBands; k++ {
		if v := f.Sums[k]; shown(v) {
			b = append(append(append(b, sep...), bandNames[k]...), ": "...)
			b = appendPercent(append(append(b, g.Val(v)...), " ("...), v, f.Wall, 0)
			b = append(b, ')')
			sep = ", "
		}
	}
	if off := f.Sums[BandBlocked] + f.Sums[BandRunnable]; off > 0 && f.Wall > off {
		b = strconv.AppendFloat(append(b, "; on CPU at "...), f.CPU/(f.Wall-off), 'f', 2, 64)
	}
	for k := BandBlocked; k <= BandRunnable; k++ {
		if v := f.Sums[k]; shown(v) {
			b = append(append(append(append(b, "; "...), bandNames[k]...), ' '), g.Val(v)...)
			b = append(appendPercent(append(b, " ("...), v, f.Wall, 0), ')')
		}
	}
	return string(b)
}

// appendShare appends "VAL (P.PP%)".
func appendShare(b []byte, val string, x, of float64) []byte {
	b = appendPercent(append(append(b, val...), " ("...), x, of, 2)
	return append(b, ')')
}

// appendPercent appends x's share of of, "P%", with prec decimals.
func appendPercent(b []byte, x, of float64, prec int) []byte {
	return append(strconv.AppendFloat(b, pct(x, of), 'f', prec, 64), '%')
}

// Legend: the scale's six stops, then the greys of blocked and runnable.
func (p ParallelismPalette) Legend() []LegendEntry {
	e := []LegendEntry{{Label: "threads on CPU (average; the same scale in every file):"}}
	for _, n := range []float64{1, 2, 4, 8, 16, 32} {
		label := fmt.Sprint(n)
		if n == MaxScaleParallelism {
			label += "+"
		}
		e = append(e, LegendEntry{ParallelismFill(n), label})
	}
	return append(e, LegendEntry{Label: "off CPU:"}, LegendEntry{BlockedFill, "[blocked]"}, LegendEntry{RunnableFill, "[runnable]"})
}
