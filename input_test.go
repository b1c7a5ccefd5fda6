package main

// How the command reads its input: a file with the concurrent reader
// (on two CPUs or more), stdin with the sequential one, a FIFO once.

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/wallfold/wallfold/internal/testtrace"
)

// TestReaderPathsSameOutput: the whole run gives the same folded and
// pprof output with the concurrent reader (a file, on two CPUs or more)
// and the sequential one (stdin), on every shipped trace and corpus file.
func TestReaderPathsSameOutput(t *testing.T) {
	// out runs wallfold on path, as a file or on stdin, and names the
	// input <stdin> in what it says (also inside a profile's comments).
	out := func(path string, stdin bool, args ...string) string {
		text, stderr, code := wallfoldOn(t, path, stdin, args...)
		if p, err := profile.ParseData([]byte(text)); err == nil && len(args) > 0 && args[0] == "-f" {
			text = p.String()
		}
		abs, _ := filepath.Abs(path) // kong makes the argument absolute
		return strings.ReplaceAll(fmt.Sprintf("exit %d\n%s\nstderr:\n%s", code, text, stderr), abs, "<stdin>")
	}
	for _, path := range testtrace.Shipped(t, "testdata") {
		for _, args := range [][]string{{}, {"--weight=cpu", "--pid"}, {"-f", "pprof", "--start=1700000000"}} {
			if seq, conc := out(path, true, args...), out(path, false, args...); seq != conc {
				t.Errorf("wallfold %v %s: output differs between the sequential and the concurrent reader", args, path)
			}
		}
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
