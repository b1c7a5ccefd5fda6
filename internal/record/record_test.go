package record

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// The kernel keeps 15 bytes of a command's file name: --tree must ask
// for that name.
func TestTreeName(t *testing.T) {
	for in, want := range map[string]string{"/usr/bin/make": "make", "./a-very-long-program-name": "a-very-long-pro", "x": "x"} {
		if got := TreeName(in); got != want {
			t.Errorf("TreeName(%q) = %q, want %q", in, got, want)
		}
	}
}

// Nothing to run is a usage error (2); a command that is not there is
// the shell's 127; neither starts perf.
func TestRunRefusesBeforePerf(t *testing.T) {
	for _, tt := range []struct {
		cmd  []string
		code int
	}{{nil, 2}, {[]string{"no-such-command-wallfold-test"}, 127}} {
		_, err := Run(Options{Cmd: tt.cmd, Freq: 99})
		var e *Error
		if !errors.As(err, &e) || e.ExitCode() != tt.code {
			t.Errorf("%v: %v, want exit %d", tt.cmd, err, tt.code)
		}
	}
}

// From Run to Close the signals a terminal or a supervisor sends are
// caught, also after perf record has ended (while perf script's text is
// converted): wallfold still writes the profile and removes its files.
// Was a bug (fixed): they were caught only while perf record ran, and a
// SIGTERM during the conversion killed wallfold, leaving perf.data in
// TMPDIR. (Without the fix this test's process dies of the SIGHUP.)
func TestSignalsCaughtUntilClose(t *testing.T) {
	dir := t.TempDir()
	script := "#!/bin/sh\nwhile [ $# -gt 0 ] && [ \"$1\" != -o ]; do shift; done\necho fake > \"$2\"\n"
	if err := os.WriteFile(filepath.Join(dir, "perf"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("TMPDIR", t.TempDir())
	if os.Geteuid() != 0 && perfForbidden(false) != "" {
		t.Skip("perf_event_paranoid forbids recording here")
	}
	rec, err := Run(Options{Cmd: []string{"true"}, Freq: 99})
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // delivered, and caught
	rec.Close()
	if left, _ := filepath.Glob(filepath.Join(os.Getenv("TMPDIR"), "wallfold-record-*")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}
