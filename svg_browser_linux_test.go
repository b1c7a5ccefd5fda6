package main

import (
	"fmt"
	"math"
	"net/url"
	"strings"
	"testing"

	"github.com/wallfold/wallfold/internal/gentrace"
)

// wideTrace is a workload of known parallelism on 16 CPUs: serial_step
// alone for 200 ms, then wide_step on 16 threads for 200 ms, then
// two_step on 2 threads for 200 ms.
func wideTrace(t *testing.T) string {
	t.Helper()
	ms := gentrace.Ms
	c := gentrace.NewConfig("wide", 16, 600*ms, 5)
	c.Add("wide", 1000, 1000, 0, 200*ms, gentrace.Phase{Fn: "serial_step", Until: 200 * ms, Run: gentrace.CPUBound})
	for i := 1; i <= 18; i++ {
		fn, start := "wide_step", 200*ms
		if i > 16 {
			fn, start = "two_step", 400*ms
		}
		c.Add("wide", 1000, 1000+i, start, start+200*ms, gentrace.Phase{Fn: fn, Until: start + 200*ms, Run: gentrace.CPUBound})
	}
	sim := gentrace.Simulate(c)
	return writeTrace(t, "wide.txt", sim.Text(gentrace.Style{Switches: true, TaskEvents: true, PIDCol: true}))
}

// svgColours is what a page shows: each frame's computed fill by name
// (the widest frame of a name), the legend's fills by label, and where
// the legend and the first frame are (px from the top).
type svgColours struct {
	Fills       map[string]string
	Legend      map[string]string
	LegendTop   float64
	FramesTop   float64
	LegendFound bool
}

// The legend is found by its id, or (older pictures) as the text that
// says "parallelism"; a swatch's label is the text that follows it.
const svgColoursJS = `(function () {
  var out = {Fills: {}, Legend: {}, LegendTop: 1e9, FramesTop: 1e9, LegendFound: false}, widest = {};
  document.querySelectorAll('g.f').forEach(function (g) {
    var r = g.querySelector('rect'), n = g.getAttribute('data-n'), w = +r.getAttribute('width');
    if (!(n in widest) || w > widest[n]) { widest[n] = w; out.Fills[n] = getComputedStyle(r).fill; }
    out.FramesTop = Math.min(out.FramesTop, r.getBoundingClientRect().top);
  });
  document.querySelectorAll('rect').forEach(function (r) {
    var t = r.nextElementSibling;
    if (r.closest('g.f') || !t || t.tagName !== 'text' || r.getAttribute('width') === '100%') return;
    out.Legend[t.textContent] = getComputedStyle(r).fill;
  });
  var legend = document.getElementById('legend');
  if (!legend) legend = Array.prototype.filter.call(document.querySelectorAll('text'), function (t) { return /parallelism/.test(t.textContent); })[0];
  if (legend) { out.LegendFound = true; out.LegendTop = legend.getBoundingClientRect().top; }
  return out;
})()`

// TestSVGBrowser: one Chromium (its start is most of a test's time) for
// the checks that need a browser.
func TestSVGBrowser(t *testing.T) {
	b := startBrowser(t)
	t.Run("FixedScale", func(t *testing.T) { b.t = t; svgFixedScale(t, b) })
	t.Run("OffCPUColours", func(t *testing.T) { b.t = t; svgOffCPUColours(t, b) })
	t.Run("SearchAndURL", func(t *testing.T) { b.t = t; svgSearchAndURL(t, b) })
}

func pageColours(t *testing.T, b *browser, svgPath string) svgColours {
	t.Helper()
	b.open("file://" + svgPath)
	var c svgColours
	b.eval(svgColoursJS, &c)
	return c
}

// Expected: the colours are one fixed scale by parallelism, the same in
// every file: 1 thread on CPU the same red, 2 the same orange, whatever
// the most parallel frame of the graph; the legend says so, on the first
// screen. Observed before: the scale ran to the graph's most parallel
// frame (2 threads were blue in phases, yellow-green beside 16), and the
// legend sat at the bottom (y 2275 of a build's 2295 px).
func svgFixedScale(t *testing.T, b *browser) {
	phases := pageColours(t, b, writeSVG(t, trace("phases.txt")))
	wide := pageColours(t, b, writeSVG(t, wideTrace(t)))
	t.Logf("phases: %+v", phases)
	t.Logf("wide: %+v", wide)
	for _, c := range []struct{ aName, aFill, bName, bFill string }{
		{"phases serial_phase", phases.Fills["serial_phase"], "wide serial_step", wide.Fills["serial_step"]},
		{"phases parallel_work", phases.Fills["parallel_work"], "wide two_step", wide.Fills["two_step"]},
		{"phases serial_phase", phases.Fills["serial_phase"], "phases legend 1", phases.Legend["1"]},
		{"wide serial_step", wide.Fills["serial_step"], "wide legend 1", wide.Legend["1"]},
		{"phases parallel_work", phases.Fills["parallel_work"], "phases legend 2", phases.Legend["2"]},
		{"wide two_step", wide.Fills["two_step"], "wide legend 2", wide.Legend["2"]},
		{"wide wide_step", wide.Fills["wide_step"], "wide legend 16", wide.Legend["16"]},
	} {
		if c.aFill == "" || c.aFill != c.bFill {
			t.Errorf("%s is %q, %s %q: want the same colour", c.aName, c.aFill, c.bName, c.bFill)
		}
	}
	if wide.Fills["wide_step"] == wide.Fills["two_step"] || wide.Fills["two_step"] == wide.Fills["serial_step"] {
		t.Errorf("1, 2 and 16 threads not told apart: %v", wide.Fills)
	}
	build := pageColours(t, b, writeSVG(t, trace("build.txt.gz")))
	if !build.LegendFound || build.LegendTop > 900 || build.FramesTop < build.LegendTop {
		t.Errorf("build: legend at %.0f px (found: %t), frames from %.0f px: want the legend within the first 900 px, above the frames",
			build.LegendTop, build.LegendFound, build.FramesTop)
	}
}

// rgbOf reads a computed fill, rgb(r, g, b).
func rgbOf(t *testing.T, fill string) [3]float64 {
	t.Helper()
	var c [3]float64
	s := strings.TrimSuffix(strings.TrimPrefix(fill, "rgb("), ")")
	parts := strings.Split(s, ",")
	if len(parts) != 3 {
		t.Fatalf("fill %q is not rgb(r, g, b)", fill)
	}
	for i, p := range parts {
		if _, err := fmtSscan(strings.TrimSpace(p), &c[i]); err != nil {
			t.Fatalf("fill %q: %v", fill, err)
		}
	}
	return c
}

// Expected: off-CPU time has its own colours, in the legend, unlike any
// colour of time on CPU. Observed before: [blocked] (parallelism 0) got
// the red of serial computing, and the legend had no entry for it.
func svgOffCPUColours(t *testing.T, b *browser) {
	c := pageColours(t, b, writeSVG(t, "--off-cpu", "--minwidth=0.01", trace("sleepy.txt")))
	blocked, runnable := c.Fills["[blocked]"], c.Fills["[runnable]"]
	if blocked == "" || runnable == "" || blocked == runnable {
		t.Fatalf("[blocked] %q, [runnable] %q: want two colours", blocked, runnable)
	}
	if c.Legend["[blocked]"] != blocked || c.Legend["[runnable]"] != runnable {
		t.Errorf("legend: [blocked] %q, [runnable] %q; the frames %q, %q", c.Legend["[blocked]"], c.Legend["[runnable]"], blocked, runnable)
	}
	// Every colour of time on CPU: the frames that ran, and the scale.
	onCPU := map[string]string{}
	for name, fill := range c.Fills {
		if name != "[blocked]" && name != "[runnable]" && name != "all" && name != "phases" {
			onCPU[name] = fill
		}
	}
	for label, fill := range c.Legend {
		if !strings.HasPrefix(label, "[") {
			onCPU["legend "+label] = fill
		}
	}
	for _, off := range []string{"[blocked]", "[runnable]"} {
		o := rgbOf(t, c.Fills[off])
		for name, fill := range onCPU {
			p := rgbOf(t, fill)
			if d := math.Hypot(math.Hypot(o[0]-p[0], o[1]-p[1]), o[2]-p[2]); d < 40 {
				t.Errorf("%s (%s) is %.0f from %s (%s): want a colour of its own", off, c.Fills[off], d, name, fill)
			}
		}
	}
}

// Expected: Ctrl-F (and Cmd-F) opens the search, a toggle makes it ignore
// case, and the URL's fragment keeps zoom and search: a reload shows the
// same. Observed before: no key opened the search, no ignore case, a
// reload lost both.
func svgSearchAndURL(t *testing.T, b *browser) {
	path := writeSVG(t, trace("phases.txt"))
	b.open("file://" + path)
	search := func(modifiers int, term string) {
		t.Helper()
		done := make(chan error, 1)
		go func() {
			done <- b.try("Input.dispatchKeyEvent", map[string]any{"type": "rawKeyDown", "key": "f", "code": "KeyF",
				"windowsVirtualKeyCode": 70, "nativeVirtualKeyCode": 70, "modifiers": modifiers}, nil)
		}()
		ev := b.wait("Page.javascriptDialogOpening")
		if !strings.Contains(string(ev.Params), `"type":"prompt"`) {
			t.Errorf("the key opened %s, want a prompt", ev.Params)
		}
		b.call("Page.handleJavaScriptDialog", map[string]any{"accept": true, "promptText": term}, nil)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		b.try("Input.dispatchKeyEvent", map[string]any{"type": "keyUp", "key": "f", "code": "KeyF",
			"windowsVirtualKeyCode": 70, "modifiers": modifiers}, nil)
	}
	var matched string
	search(2, "SPIN_FOR") // Ctrl-F
	b.eval(`document.getElementById('matched').textContent`, &matched)
	if matched != "Matched: 0.00%" {
		t.Errorf("SPIN_FOR with case: %q, want nothing matched", matched)
	}
	b.eval(`document.getElementById('ignorecase').dispatchEvent(new MouseEvent('click')), document.getElementById('matched').textContent`, &matched)
	total, _ := inclusive(parseFolded(t, mustRun(t, "-q", trace("phases.txt"))))
	want := "Matched: " + fmtFloat2(total["spin_for"]) + "%"
	if matched != want {
		t.Errorf("SPIN_FOR ignoring case: %q, want %q", matched, want)
	}
	search(4, "^serial_p") // Cmd-F, still ignoring case
	var zoomed struct {
		Width float64
		Title string
	}
	b.eval(`document.querySelector('g.f[data-n="serial_phase"]').dispatchEvent(new MouseEvent('click')),
		({Width: +document.querySelector('g.f[data-n="serial_phase"] rect').getAttribute('width'),
		Title: document.querySelector('g.f[data-n="serial_phase"] title').textContent})`, &zoomed)
	if math.Abs(zoomed.Width-1180) > 0.5 || !strings.HasPrefix(zoomed.Title, "serial_phase — wall 1.001 s (49.95%)") {
		t.Errorf("after a click on serial_phase: %+v, want it the full 1180 px, its tooltip its wall share", zoomed)
	}
	b.eval(`location.hash`, &matched)
	frag, err := url.ParseQuery(strings.TrimPrefix(matched, "#"))
	if err != nil || frag.Get("s") != "^serial_p" || frag.Get("i") != "1" || frag.Get("y") == "" {
		t.Errorf("fragment %q: want the zoom (x, y), the search and ignore case", matched)
	}
	b.reload()
	var after struct {
		Width   float64
		Marked  []string
		Matched string
		Case    string
	}
	b.eval(`({Width: +document.querySelector('g.f[data-n="serial_phase"] rect').getAttribute('width'),
		Marked: Array.prototype.map.call(document.querySelectorAll('g.f.match'), function (g) { return g.getAttribute('data-n'); }),
		Matched: document.getElementById('matched').textContent,
		Case: document.getElementById('ignorecase').textContent})`, &after)
	t.Logf("after reload: %+v", after)
	if math.Abs(after.Width-1180) > 0.5 {
		t.Errorf("after a reload serial_phase is %.2f px wide, want the zoom's full 1180", after.Width)
	}
	if len(after.Marked) != 1 || after.Marked[0] != "serial_phase" || !strings.HasPrefix(after.Case, "[x]") {
		t.Errorf("after a reload marked %v, ignore case %q: want serial_phase, on", after.Marked, after.Case)
	}
}

func fmtSscan(s string, v *float64) (int, error) { return fmt.Sscan(s, v) }

func fmtFloat2(v float64) string { return fmt.Sprintf("%.2f", v) }
