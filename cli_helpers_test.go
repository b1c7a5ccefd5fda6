package main

// How the tests run the command: all of them through runCLI, which calls
// run (main without the process) with the arguments and stdin given, and
// keeps what it writes. The subject files keep their own readers of the
// output (folded, pprof, SVG, trace, summary) on top of these.

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs `wallfold args...` in-process with stdin as its standard
// input (nil: an empty one) and returns what it wrote to stdout and to
// stderr, and its exit status.
func runCLI(t testing.TB, stdin io.Reader, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	var out, errb bytes.Buffer
	code = run(args, stdin, &out, &errb)
	return out.String(), errb.String(), code
}

// wallfold runs the command on an empty stdin: its input is a FILE
// among args.
func wallfold(t testing.TB, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runCLI(t, nil, args...)
}

// wallfoldStdin runs the command with the text in on stdin.
func wallfoldStdin(t testing.TB, in string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runCLI(t, strings.NewReader(in), args...)
}

// wallfoldOn runs the command on the file at path: given as FILE after
// args, or with stdin set (wallfold args < path) on stdin.
func wallfoldOn(t testing.TB, path string, stdin bool, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	if stdin {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		return runCLI(t, f, args...)
	}
	return runCLI(t, nil, append(append([]string(nil), args...), path)...)
}

// mustRun is wallfold's stdout; any exit status but 0 ends the test.
func mustRun(t testing.TB, args ...string) string {
	t.Helper()
	return mustRunIn(t, nil, args...)
}

// mustRunIn is mustRun with stdin as the standard input.
func mustRunIn(t testing.TB, stdin io.Reader, args ...string) string {
	t.Helper()
	out, stderr, code := runCLI(t, stdin, args...)
	if code != 0 {
		t.Fatalf("wallfold %v: exit %d: %s", args, code, stderr)
	}
	return out
}

// pipedFrom opens the file at path to be a run's stdin, as the shell's
// `< path` would; it is closed when the test ends.
func pipedFrom(t testing.TB, path string) io.Reader {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// trace is the path of a recorded trace of testdata/traces.
func trace(name string) string { return filepath.Join("testdata", "traces", name) }

// offTrace is the path of an off-CPU trace of testdata/offcpu.
func offTrace(name string) string { return filepath.Join("testdata", "offcpu", name) }

func needFile(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("test input missing: %v", err)
	}
}
