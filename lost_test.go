package main

// A ring buffer overflow on a real trace: every record of a window gone,
// samples with their stacks, then one LOST record.

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// lossWindow drops every record (samples with their stack lines) with a
// time in [from, to) and writes a LOST record at to.
func lossWindow(from, to float64, comm string) func([]string) []string {
	return func(lines []string) []string {
		var out []string
		inserted, dropping := false, false
		for _, l := range lines {
			if dropping && (strings.HasPrefix(l, "\t") || strings.TrimSpace(l) == "") {
				continue
			}
			dropping = false
			tm, ok := lineTime(l)
			if ok && tm >= to && !inserted {
				out = append(out, comm+" "+strconv.FormatFloat(to, 'f', 6, 64)+": PERF_RECORD_LOST lost 120", "")
				inserted = true
			}
			if ok && tm >= from && tm < to {
				dropping = true
				continue
			}
			out = append(out, l)
		}
		return out
	}
}

// phases.txt: serial_phase alone (thread 5756) 273.125-273.626 s.
// A 30 ms loss in the serial phase: the thread was sampled just before
// and after it, so it ran through it; its 30 ms come back under [lost],
// and a --time window that holds them keeps them.
func TestLossWindowBridged(t *testing.T) {
	path := rewrite(t, "phases.txt", lossWindow(273.400, 273.430, "phases  5756"))
	plain, stderr, _ := wallfold(t, path)
	if !strings.Contains(stderr, "PERF_RECORD_LOST") {
		t.Fatalf("no LOST warning: %q", stderr)
	}
	f := parseFolded(t, plain)
	var lost float64
	for st, n := range f.lines {
		if strings.HasSuffix(st, ";[lost]") {
			lost += float64(n) / 1e9
			if !strings.Contains(st, "serial_phase") {
				t.Errorf("[lost] under %q, want serial_phase's stack", st)
			}
		}
	}
	full := parseFolded(t, mustRun(t, "-q", path))
	whole := parseFolded(t, mustRun(t, "-q", "--time=0%,100%", path))
	t.Logf("[lost] %.4f s, total %.4f s, with --time=0%%,100%% %.4f s", lost, full.total/1e9, whole.total/1e9)
	if lost < 0.025 || lost > 0.031 {
		t.Errorf("[lost] %.4f s, want the 30 ms loss less a period", lost)
	}
	if whole.total != full.total {
		t.Errorf("--time=0%%,100%% total %.0f ns, without it %.0f ns", whole.total, full.total)
	}
	// With --off-cpu the loss is not also blocked time: the total stays
	// the span.
	off := parseFolded(t, mustRun(t, "-q", "--off-cpu", path))
	b, _ := offLeaves(off)
	if b > 0.002 {
		t.Errorf("--off-cpu: %.4f s [blocked] in a trace that never blocks but for the loss", b)
	}
}

// A FIFO given as FILE is read once: no first pass over it.
func TestFIFOInputReadOnce(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("mkfifo: linux")
	}
	src := trace("syswide.txt")
	want := mustRun(t, "-q", src)
	fifo := filepath.Join(t.TempDir(), "trace.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	go func() {
		data, _ := os.ReadFile(src)
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		w.Write(data)
		w.Close()
	}()
	if got := mustRun(t, "-q", fifo); got != want {
		t.Errorf("from a FIFO: %d bytes of output, from the file %d", len(got), len(want))
	}
}
