package emit_test

import (
	"bytes"
	"encoding/xml"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/wallfold/wallfold/emit"
)

// flameDoc is the SVG as encoding/xml reads it: the frames are the <g
// class="f"> elements.
type flameDoc struct {
	XMLName xml.Name `xml:"svg"`
	Total   float64  `xml:"data-total,attr"`
	Texts   []struct {
		ID   string `xml:"id,attr"`
		Body string `xml:",chardata"`
	} `xml:"text"`
	Frames []flameG `xml:"g"`
}

type flameG struct {
	Class string  `xml:"class,attr"`
	X     float64 `xml:"data-x,attr"` // fractions of the total
	W     float64 `xml:"data-w,attr"`
	Depth int     `xml:"data-d,attr"`
	Name  string  `xml:"data-n,attr"`
	Title string  `xml:"title"`
	Rect  struct {
		X     float64 `xml:"x,attr"`
		Width float64 `xml:"width,attr"`
		Fill  string  `xml:"fill,attr"`
	} `xml:"rect"`
	Label string `xml:"text"`
}

// readFlame checks that the SVG is well-formed XML, token by token, and
// decodes it.
func readFlame(t *testing.T, b []byte) flameDoc {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	for {
		if _, err := d.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
	}
	var doc flameDoc
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	// The frames are the groups of class f (the legend is a group too).
	var frames []flameG
	for _, g := range doc.Frames {
		if g.Class == "f" {
			frames = append(frames, g)
		}
	}
	doc.Frames = frames
	return doc
}

const tagName = `<tag & "q">` // a C++-ish name with XML's special characters

// flameStacks: wall 2 s, CPU 5.6 s; work runs at parallelism 2, bg;tick
// at 4, the rest at 1; rare is too narrow to draw.
func flameStacks() (*emit.Stacks, *emit.Totals) {
	s := emit.NewStacks(emit.NameOptions{})
	var tot emit.Totals
	add := func(wallMs, cpuMs float64, names ...string) {
		tot.Add(chain(s, names...), uint64(cpuMs*1e6), wallMs*1e6)
	}
	add(600, 1200, "app", "main", "work")
	add(300, 300, "app", "main", "io")
	add(100, 100, "app", "main", tagName)
	add(999.75, 3999.75, "bg", "tick")
	add(0.25, 0.25, "bg", "tick", "rare")
	return s, &tot
}

// flameBox is a frame's place in the merged tree: start and width, ms.
type flameBox struct {
	depth int
	x, w  float64
}

func TestSVGKnownFrames(t *testing.T) {
	// Children sorted by name ('<' < 'i' < 'w'); x is what lies before.
	wall := map[string]flameBox{
		"all": {0, 0, 2000}, "app": {1, 0, 1000}, "main": {2, 0, 1000},
		tagName: {3, 0, 100}, "io": {3, 100, 300}, "work": {3, 400, 600},
		"bg": {1, 1000, 1000}, "tick": {2, 1000, 1000},
	}
	cpu := map[string]flameBox{
		"all": {0, 0, 5600}, "app": {1, 0, 1600}, "main": {2, 0, 1600},
		tagName: {3, 0, 100}, "io": {3, 100, 300}, "work": {3, 400, 1200},
		"bg": {1, 1600, 4000}, "tick": {2, 1600, 4000},
	}
	for _, c := range []struct {
		weight emit.Weight
		want   map[string]flameBox
		title  string
	}{{emit.Wall, wall, "wallfold: wall time"}, {emit.CPU, cpu, "wallfold: CPU time"}} {
		s, tot := flameStacks()
		var b bytes.Buffer
		if err := emit.WriteSVG(&b, s, tot, emit.SVGOptions{Weight: c.weight, TimeBased: true}); err != nil {
			t.Fatal(err)
		}
		doc := readFlame(t, b.Bytes())
		total := c.want["all"].w
		if doc.Total != total*1e6 {
			t.Errorf("weight %d: data-total %g, want %g", c.weight, doc.Total, total*1e6)
		}
		if len(doc.Texts) == 0 || doc.Texts[0].Body != c.title {
			t.Errorf("weight %d: title %q, want %q", c.weight, doc.Texts[0].Body, c.title)
		}
		seen := map[string]bool{}
		for _, g := range doc.Frames {
			want, ok := c.want[g.Name]
			if !ok || seen[g.Name] || g.Class != "f" {
				t.Errorf("weight %d: frame %q (class %q): not one of the tree's, or twice", c.weight, g.Name, g.Class)
				continue
			}
			seen[g.Name] = true
			// The drawing is 1180 px wide, from x = 10.
			if g.Depth != want.depth || !near(g.X, want.x/total, 1e-8) || !near(g.W, want.w/total, 1e-8) ||
				!near(g.Rect.Width, want.w/total*1180, 0.006) || !near(g.Rect.X, 10+want.x/total*1180, 0.006) {
				t.Errorf("weight %d: %q at depth %d x %g w %g (rect %g + %g px), want depth %d x %g w %g",
					c.weight, g.Name, g.Depth, g.X, g.W, g.Rect.X, g.Rect.Width, want.depth, want.x/total, want.w/total)
			}
		}
		if len(seen) != len(c.want) {
			t.Errorf("weight %d: %d frames drawn, want %d (rare is under a third of a pixel)", c.weight, len(seen), len(c.want))
		}
	}
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// TestSVGFrameText: the tooltip's numbers, the colours by parallelism
// (the fixed scale), and a
// label cut to the frame's width, names escaped throughout.
func TestSVGFrameText(t *testing.T) {
	s, tot := flameStacks()
	var b bytes.Buffer
	title := `flame <"test"> & co`
	if err := emit.WriteSVG(&b, s, tot, emit.SVGOptions{TimeBased: true, Title: title}); err != nil {
		t.Fatal(err)
	}
	doc := readFlame(t, b.Bytes())
	if doc.Texts[0].Body != title {
		t.Errorf("title %q, want %q", doc.Texts[0].Body, title)
	}
	byName := map[string]flameG{}
	for _, g := range doc.Frames {
		byName[g.Name] = g
	}
	work := byName["work"]
	if want := "work — wall 0.600 s (30.00%), CPU 1.200 s (21.43%), parallelism 2.00"; work.Title != want {
		t.Errorf("work's tooltip %q, want %q", work.Title, want)
	}
	// The fixed scale: 1 red (hue 0), 2 orange (28), 4 yellow (52),
	// whatever the most parallel frame of the graph.
	for name, fill := range map[string]string{"work": "hsl(28,75%,60%)", "io": "hsl(0,75%,60%)",
		"tick": "hsl(52,75%,60%)", tagName: "hsl(0,75%,60%)"} {
		if got := byName[name].Rect.Fill; got != fill {
			t.Errorf("%q: fill %s, want %s", name, got, fill)
		}
	}
	// 59 px hold 8 characters of 7 px: 6 and "..".
	tag, ok := byName[tagName]
	if !ok {
		t.Fatalf("no frame named %q", tagName)
	}
	if tag.Label != `<tag &..` || !strings.HasPrefix(tag.Title, tagName+" — wall 0.100 s (5.00%)") {
		t.Errorf("%q: label %q, tooltip %q", tagName, tag.Label, tag.Title)
	}
	if work.Label != "work" {
		t.Errorf("work's label %q", work.Label)
	}
}

// TestSVGOddNames: a run of bytes that are not UTF-8 becomes one U+FFFD,
// a control character XML forbids one too; no stack at all is still a
// well-formed picture.
func TestSVGOddNames(t *testing.T) {
	s := emit.NewStacks(emit.NameOptions{})
	var tot emit.Totals
	tot.Add(chain(s, "app", "\x01ctl", "bad\xff\xfebyte"), 1, 1)
	var b bytes.Buffer
	if err := emit.WriteSVG(&b, s, &tot, emit.SVGOptions{Unit: "cycles"}); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, g := range readFlame(t, b.Bytes()).Frames {
		names = append(names, g.Name)
	}
	if got, want := strings.Join(names, "|"), "bad\uFFFDbyte|\uFFFDctl|app|all"; got != want {
		t.Errorf("frames (children first) %q, want %q", got, want)
	}
	b.Reset()
	if err := emit.WriteSVG(&b, s, &emit.Totals{}, emit.SVGOptions{}); err != nil {
		t.Fatal(err)
	}
	if doc := readFlame(t, b.Bytes()); len(doc.Frames) != 0 || doc.Total != 0 {
		t.Errorf("no samples: %d frames, total %g", len(doc.Frames), doc.Total)
	}
}
