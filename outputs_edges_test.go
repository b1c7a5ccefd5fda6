package main

// Edge cases of record, -f svg, -f trace (each failed before its fix).

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// oddTrace writes a small per-task trace whose leaf frames are names.
func oddTrace(t *testing.T, names ...[]byte) string {
	t.Helper()
	var b bytes.Buffer
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&b, "prog  1000/1000   %.6f:    1000000 cpu-clock: \n", 100+float64(i)/1000)
		b.WriteString("\t    1205 ")
		b.Write(names[i%len(names)])
		b.WriteString("+0x44 (/bin/prog)\n\t    1230 main+0x9 (/bin/prog)\n\n")
	}
	p := filepath.Join(t.TempDir(), "odd.txt")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func wellFormedXML(b []byte) error {
	d := xml.NewDecoder(bytes.NewReader(b))
	for {
		if _, err := d.Token(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}

// Expected: -f svg is well-formed UTF-8 XML whatever the frame names.
// Observed: a name with non-UTF-8 bytes (perf prints symbol bytes as they
// are) is copied raw into data-n, <title> and <text>: the XML parser (and
// Chromium) stops there ("invalid token"), the whole graph is lost.
// Fix: emit/svg.go, sanitize names (strings.ToValidUTF8, and drop XML-illegal
// control characters) before html.EscapeString.
func TestSVGNonUTF8Name(t *testing.T) {
	in := oddTrace(t, []byte("bad\xff\xfename"), []byte("main2"))
	out := filepath.Join(t.TempDir(), "o.svg")
	mustRun(t, "-q", "-f", "svg", "-o", out, in)
	b, _ := os.ReadFile(out)
	if err := wellFormedXML(b); err != nil {
		t.Errorf("SVG not well-formed: %v", err)
	}
}

// Expected: a frame label cut to fit stays valid UTF-8.
// Observed: label[:chars-2] in WriteSVG cuts bytes, splitting a multi-byte
// rune (C++/Rust/Go names with non-ASCII, here CJK): invalid UTF-8, the SVG
// does not parse. Fix: emit/svg.go, cut by runes (as flame.js does by
// UTF-16 units).
func TestSVGLabelCutsRune(t *testing.T) {
	in := oddTrace(t, []byte(strings.Repeat("函数", 40)), []byte("main2"))
	out := filepath.Join(t.TempDir(), "o.svg")
	mustRun(t, "-q", "-f", "svg", "-o", out, in)
	b, _ := os.ReadFile(out)
	if !utf8.Valid(b) {
		t.Errorf("SVG is not valid UTF-8")
	}
	if err := wellFormedXML(b); err != nil {
		t.Errorf("SVG not well-formed: %v", err)
	}
}

// Expected (README, exit status): input that is not perf script text is
// exit 1, for every format. Observed with -f trace: exit 2 and the message
// blames the output ("wallfold: <stdout>: ...: this is a perf.data file"),
// because process() runs inside writeOutput and writeTo wraps every error
// as exitError{2, name+": "+err}. The same for a missing period (which, on
// stdout, also leaves 256 KiB of half JSON written before the error).
// Fix: io.go writeTo (pass an *exitError through), main.go.
func TestTraceExitCodeOnBadInput(t *testing.T) {
	p := filepath.Join(t.TempDir(), "perf.data")
	os.WriteFile(p, []byte("PERFILE2\x00\x00\x00\x00garbage"), 0o644)
	_, stderr, code := wallfold(t, "-f", "trace", p)
	if code != 1 || strings.Contains(stderr, "<stdout>") {
		t.Errorf("-f trace on a perf.data: exit %d, %q; want exit 1 naming the input only", code, stderr)
	}
}

// Expected: with --time, the parallelism counter has its value at the
// window's start (the summary's average is over the window). Observed on
// phases --time=10%,20%: a thread runs from the window's start (a running
// slice at 200574 us) but the first counter event is {running: 0} at
// 359958 us: the viewer shows parallelism 0/none while one thread ran.
// Fix: emit/trace.go, write each group's current count at t.lo (count()
// drops the events before the window and nothing re-emits the state).
func TestTraceWindowCounterStart(t *testing.T) {
	out := mustRun(t, "-q", "-f", "trace", "--time=10%,20%", trace("phases.txt"))
	var tr struct {
		TraceEvents []struct {
			Ph   string         `json:"ph"`
			Ts   float64        `json:"ts"`
			Cat  string         `json:"cat"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal([]byte(out), &tr); err != nil {
		t.Fatal(err)
	}
	firstRun, firstC := -1.0, -1.0
	for _, e := range tr.TraceEvents {
		if e.Ph == "X" && e.Cat == "cpu" && (firstRun < 0 || e.Ts < firstRun) {
			firstRun = e.Ts
		}
		if e.Ph == "C" && (firstC < 0 || e.Ts < firstC) {
			firstC = e.Ts
		}
	}
	if firstRun < 0 || firstC < 0 || firstC > firstRun {
		t.Errorf("first running slice at %.0f us, first parallelism counter at %.0f us: want a counter value at the window's start", firstRun, firstC)
	}
}

// Expected: `wallfold record -f pprof -- CMD` writes a pprof file named for
// it (wall.pb.gz), or refuses the mismatch. Observed: the gzipped pprof is
// written to wall.svg (the -o default does not follow -f), and -f X -o Y.svg
// is taken silently. Fix: record.go (Output default "" = "wall"+ext of -f;
// warn or refuse when -f and -o's extension disagree).
func TestRecordFormatDefaultName(t *testing.T) {
	needPerf(t)
	t.Chdir(t.TempDir())
	mustRun(t, "record", "-q", "-f", "pprof", "--", "true")
	if b, err := os.ReadFile("wall.svg"); err == nil && len(b) > 2 && b[0] == 0x1f && b[1] == 0x8b {
		t.Errorf("record -f pprof wrote a gzipped pprof into wall.svg")
	}
}

// Expected: a CMD that does not exist is an error naming it (exit 127, as
// a shell), and no profile. Observed: perf's "Failed to collect ... No such
// file or directory" is hidden by `perf record -q`, wallfold writes a
// "no samples" wall.svg, says "wrote wall.svg", exits 255.
// Fix: record.go (exec.LookPath(cmd[0]) before perf; drop -q or keep
// perf's stderr when it fails).
func TestRecordMissingCommand(t *testing.T) {
	needPerf(t)
	t.Chdir(t.TempDir())
	_, stderr, code := wallfold(t, "record", "--", "no-such-command-xyz")
	_, statErr := os.Stat("wall.svg")
	if code != 127 || statErr == nil || !strings.Contains(stderr, "no-such-command-xyz") {
		t.Errorf("missing CMD: exit %d, wall.svg written: %v, stderr %q; want 127, no file, a message naming it", code, statErr == nil, stderr)
	}
}

// Expected: CMD runs with the signal dispositions wallfold was given
// (README: Ctrl-C goes to the command). Observed: signal.Ignore(SIGQUIT)
// in runRecord is inherited through perf (which resets only SIGINT, by
// installing its own handler) by CMD: CMD ignores SIGQUIT (Ctrl-\ no
// longer stops it, no core dump). Fix: record.go, use signal.Notify into a
// channel (dispositions of caught signals reset at exec) instead of Ignore.
func TestRecordCmdSignalDispositions(t *testing.T) {
	needPerf(t)
	dir := t.TempDir()
	t.Chdir(dir)
	status := filepath.Join(dir, "status")
	mustRun(t, "record", "-q", "-o", "w.folded", "--", "sh", "-c", "cat /proc/$$/status > "+status)
	b, _ := os.ReadFile(status)
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "SigIgn:") {
			var mask uint64
			for _, c := range strings.TrimSpace(strings.TrimPrefix(l, "SigIgn:")) {
				mask = mask<<4 | uint64(strings.IndexRune("0123456789abcdef", c))
			}
			if mask&(1<<(3-1)) != 0 {
				t.Errorf("CMD ignores SIGQUIT (SigIgn %s)", strings.TrimSpace(strings.TrimPrefix(l, "SigIgn:")))
			}
		}
	}
}
