package record

import (
	"errors"
	"testing"
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
