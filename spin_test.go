package main

// Spin-waits against the programs' own clocks: real recordings of
// testdata/spin (see its README) whose serial phase runs beside threads
// that spin (OpenBLAS's thread server, a sched_yield loop, libgomp's
// barrier). Each program printed its phases' totals, read here from the
// trace's .truth.json; the serial phase's wall share is counted from
// wallfold's folded output by stack, with nothing of wallfold's state.

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// spinCase is one recording of testdata/spin and how to judge it.
type spinCase struct {
	name  string // NAME.txt.gz and NAME.truth.json
	phase string // the truth's key of the serial phase's total (s)
	// serial tells the serial phase's stacks in the loop's window; nil:
	// the serial phase is the main thread's stacks in the windows that
	// the truth lists under windows.
	serial  func(string) bool
	windows string
	tol     float64  // points of % allowed from the truth
	kind    spinKind // what the rule must do to it
	// totalTol: how far (a fraction) the loop's wall may move with the
	// rule (0: 1 %).
	totalTol float64
	note     string // what the recording is, for failures
}

// spinKind is what a recording's spinning asks of the rule.
type spinKind int

const (
	// spinsLong: without the rule the share is off by more than tol
	// (else the recording no longer tests the rule: record it again).
	spinsLong spinKind = iota
	// spinsBriefly: a few ms per phase; right with or without the rule.
	spinsBriefly
	// noSpin: a control; the rule must not move it (0.2 points).
	noSpin
)

// spinTruth is what a workload of testdata/spin/src printed: its loop's
// start and end on CLOCK_MONOTONIC (perf record -k mono stamps records on
// that clock), every phase's total, and lists of [start, end] windows,
// keyed as printed.
type spinTruth struct {
	loop    [2]float64
	phases  map[string]float64
	windows map[string][][2]float64
}

// readSpinTruth reads NAME.truth.json of testdata/spin.
func readSpinTruth(t *testing.T, name string) spinTruth {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "spin", name+".truth.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s.truth.json: %v", name, err)
	}
	tr := spinTruth{phases: map[string]float64{}, windows: map[string][][2]float64{}}
	for k, v := range m {
		var f float64
		var ws [][2]float64
		if json.Unmarshal(v, &f) == nil {
			tr.phases[k] = f
		} else if json.Unmarshal(v, &ws) == nil {
			tr.windows[k] = ws
		}
	}
	tr.loop = [2]float64{tr.phases["loop_start"], tr.phases["loop_end"]}
	if tr.loop[1] <= tr.loop[0] {
		t.Fatalf("%s.truth.json: no loop_start < loop_end", name)
	}
	return tr
}

// share is the serial phase's share (%) of the loop as the program timed it.
func (tr spinTruth) share(t *testing.T, phase string) float64 {
	t.Helper()
	s, ok := tr.phases[phase]
	if !ok {
		t.Fatalf("truth has no %q", phase)
	}
	return 100 * s / (tr.loop[1] - tr.loop[0])
}

// tidRoot is the root frame that --tid writes: comm-PID/TID.
var tidRoot = regexp.MustCompile(`-(\d+)/(\d+)$`)

// mainThread reports whether a --tid stack is of a process's first thread.
func mainThread(stack string) bool {
	root, _, _ := strings.Cut(stack, ";")
	m := tidRoot.FindStringSubmatch(root)
	return m != nil && m[1] == m[2]
}

// hasFrame is the stacks that contain frame.
func hasFrame(frame string) func(string) bool {
	return func(stack string) bool {
		for _, fr := range strings.Split(stack, ";") {
			if fr == frame {
				return true
			}
		}
		return false
	}
}

// The Python phases are told by time, not by stack: the interpreter runs
// between the matrix multiplications too (numpy's call, the result's
// allocation), and that time is the BLAS phase's on the program's clock.
var spinCases = []spinCase{
	{name: "numpy2", phase: "python_s", windows: "python_phases", tol: 3,
		note: "OPENBLAS_NUM_THREADS=2: the worker spins in sched_yield into each Python phase"},
	// The main thread yields while it waits for the worker's part of each
	// multiplication, and the worker sleeps for ~80 µs every 0.65 ms;
	// the main thread's samples fall in those sleeps more often than by
	// chance (a quarter of them, for 13 % of the time), and each weighs
	// its whole period there: the loop's wall is 0.7 % over its clock
	// without the rule, 1.9 % with it (the worker's samples beside a
	// yielding main thread weigh their whole period too).
	{name: "numpy2_timeout4", phase: "python_s", windows: "python_phases", tol: 3, kind: spinsBriefly, totalTol: 0.02,
		note: "OPENBLAS_THREAD_TIMEOUT=4: the worker sleeps at once; the main thread yields in the BLAS phase"},
	{name: "numpy1", phase: "python_s", windows: "python_phases", tol: 3, kind: noSpin,
		note: "OPENBLAS_NUM_THREADS=1: no worker"},
	{name: "yield", phase: "serial_s", serial: hasFrame("serial_phase"), tol: 2,
		note: "a helper thread spins in sched_yield through each serial phase"},
	{name: "omp_active", phase: "serial_s", serial: hasFrame("serial_phase"), tol: 2,
		note: "OMP_WAIT_POLICY=active: libgomp's worker spins at the barrier through each serial phase"},
	{name: "omp_default", phase: "serial_s", serial: hasFrame("serial_phase"), tol: 2, kind: spinsBriefly,
		note: "libgomp's default policy: the worker spins GOMP_SPINCOUNT turns, then waits in a futex"},
}

// windowWall runs wallfold --tid on one window of the recording with extra
// args and returns the wall (s) of the stacks that keep says.
func windowWall(t *testing.T, c spinCase, w [2]float64, keep func(string) bool, extra ...string) (float64, error) {
	t.Helper()
	path := filepath.Join("testdata", "spin", c.name+".txt.gz")
	needFile(t, path)
	args := append([]string{"-q", "--tid", fmt.Sprintf("--time=%.6f,%.6f", w[0], w[1])}, extra...)
	out, stderr, code := wallfold(t, append(args, path)...)
	if code != 0 {
		return 0, fmt.Errorf("wallfold %s: exit %d: %s", strings.Join(args, " "), code, strings.TrimSpace(stderr))
	}
	var wall float64
	for st, n := range parseFolded(t, out).lines {
		if keep(st) {
			wall += float64(n) / 1e9
		}
	}
	return wall, nil
}

// spinShare is the serial phase's share (%) of the loop's wall with extra
// args, and the loop's wall (s).
func spinShare(t *testing.T, c spinCase, tr spinTruth, extra ...string) (share, total float64, err error) {
	t.Helper()
	all := func(string) bool { return true }
	if total, err = windowWall(t, c, tr.loop, all, extra...); err != nil {
		return 0, 0, err
	}
	if total == 0 {
		return 0, 0, fmt.Errorf("no samples in the loop's window %.6f,%.6f", tr.loop[0], tr.loop[1])
	}
	var serial float64
	if c.serial != nil {
		serial, err = windowWall(t, c, tr.loop, c.serial, extra...)
	} else {
		ws := tr.windows[c.windows]
		if len(ws) == 0 {
			t.Fatalf("truth has no windows %q", c.windows)
		}
		for _, w := range ws {
			var in float64
			in, err = windowWall(t, c, w, mainThread, extra...)
			serial += in
		}
	}
	return 100 * serial / total, total, err
}

// TestSpinWaitShares: a serial phase's wall share is what the program
// measured, though other threads spin beside it; where nothing spins
// (the controls) the spin rule changes nothing; and the rule keeps the
// wall total (the time with a thread on CPU) as it was.
func TestSpinWaitShares(t *testing.T) {
	for _, c := range spinCases {
		t.Run(c.name, func(t *testing.T) {
			tr := readSpinTruth(t, c.name)
			want := tr.share(t, c.phase)
			got, total, err := spinShare(t, c, tr)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: truth %.1f%%, wallfold %.1f%% (loop's wall %.3f s, its clock %.3f s)",
				c.name, want, got, total, tr.loop[1]-tr.loop[0])
			if math.Abs(got-want) > c.tol {
				t.Errorf("%s (%s): serial share %.1f%%, the program measured %.1f%% (± %.0f)",
					c.name, c.note, got, want, c.tol)
			}
			none, noneTotal, err := spinShare(t, c, tr, "--spin=none")
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: --spin=none %.1f%% (loop's wall %.3f s)", c.name, none, noneTotal)
			checkSpinNone(t, c, want, got, none)
			if math.Abs(total-noneTotal) > cmp.Or(c.totalTol, 0.01)*noneTotal {
				t.Errorf("%s: loop's wall %.3f s with the spin rule, %.3f s without: the rule must keep the total",
					c.name, total, noneTotal)
			}
		})
	}
}

// checkSpinNone judges the --spin=none share against the truth and the
// share with the rule, as the recording's kind asks.
func checkSpinNone(t *testing.T, c spinCase, want, got, none float64) {
	t.Helper()
	switch c.kind {
	case noSpin:
		if math.Abs(got-none) > 0.2 {
			t.Errorf("%s (%s): the spin rule moved the share from %.2f%% to %.2f%%",
				c.name, c.note, none, got)
		}
	case spinsBriefly:
		if math.Abs(none-want) > c.tol {
			t.Errorf("%s (%s): --spin=none gives %.1f%%, the program measured %.1f%% (± %.0f)",
				c.name, c.note, none, want, c.tol)
		}
	case spinsLong:
		if math.Abs(none-want) <= c.tol {
			t.Errorf("%s: --spin=none gives %.1f%%, within %.0f points of the truth %.1f%%: the recording shows no spin",
				c.name, none, c.tol, want)
		}
	}
}
