package main

// A perf.data file fed directly, as a file or on stdin: exit 1, one
// message naming perf script -i, and none of its bytes printed.

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// perfDataInputs returns perf.data inputs: the head of a real one, the
// same gzipped, and a synthesized one whose binary holds a line that
// reads as a sample (so a reader that parses it prints binary).
func perfDataInputs(t *testing.T) []string {
	real, err := filepath.Abs(filepath.Join("testdata", "perfdata", "sleep.head.data")) // as the command line takes it
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(real)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(b)
	zw.Close()
	gzPath := filepath.Join(dir, "perf.data.gz")
	synth := filepath.Join(dir, "perf.data")
	data := "PERFILE2\x68\x00\x00\x00\x00\x00\x00\x00\x90\x00\xff\xfe\x1b[31m\n" +
		"\x00\x01\x02\x80\x81\n" +
		"\xff\xfe\x1b]0;x\x07 5756   273.126215:    1001001 cpu-clock: \n\t1205 spin\xff\x00for+0x44 (/x\x80)\n\n" +
		strings.Repeat("\x00\xff\x01", 300)
	for p, d := range map[string][]byte{gzPath: gz.Bytes(), synth: []byte(data)} {
		if err := os.WriteFile(p, d, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return []string{real, gzPath, synth}
}

// TestPerfDataFed: a perf.data file, as a file or on stdin, is told by its
// magic: exit 1, perf script -i named, not one of its bytes printed.
func TestPerfDataFed(t *testing.T) {
	for _, path := range perfDataInputs(t) {
		for _, flags := range [][]string{nil, {"--strict"}, {"-f", "pprof"}, {"-f", "summary"}, {"--summary"}, {"--weight=cpu", "-q"}} {
			for _, stdin := range []bool{false, true} {
				out, stderr, code := wallfoldOn(t, path, stdin, flags...)
				name, file := path, path
				if stdin {
					name, file = "<stdin>", "FILE"
				}
				what := fmt.Sprintf("%s %v stdin=%v", filepath.Base(path), flags, stdin)
				want := fmt.Sprintf("wallfold: %s: this is a perf.data file, not perf script text; convert it first: perf script -i %s --show-switch-events --show-task-events | wallfold\n", name, file)
				if code != 1 || len(out) != 0 || stderr != want {
					t.Errorf("%s: exit %d, stdout %.100q, stderr %.300q; want exit 1, nothing, %q", what, code, out, stderr, want)
				}
				for _, c := range out + stderr {
					if c != '\n' && (c < ' ' || c > '~') {
						t.Errorf("%s: printed %q", what, c)
						break
					}
				}
			}
		}
	}
}

// Expected (README, exit status): input that is not perf script text is
// exit 1, for every format. Observed with -f trace: exit 2 and the message
// blames the output ("wallfold: <stdout>: ...: this is a perf.data file"),
// because process() runs inside writeOutput and writeTo wraps every error
// as exitError{2, name+": "+err}. The same for a missing period (which, on
// stdout, also leaves 256 KiB of half JSON written before the error).
// Fix: the output's writer passes an error that carries its own exit
// status through (writeTo, now in internal/fileio/fileio.go), and
// main.go's exitStatus takes the status from it.
func TestTraceExitCodeOnBadInput(t *testing.T) {
	p := writeTrace(t, "perf.data", []byte("PERFILE2\x00\x00\x00\x00garbage"))
	_, stderr, code := wallfold(t, "-f", "trace", p)
	if code != 1 || strings.Contains(stderr, "<stdout>") {
		t.Errorf("-f trace on a perf.data: exit %d, %q; want exit 1 naming the input only", code, stderr)
	}
}
