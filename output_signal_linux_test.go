//go:build linux

package main

// A signal that ends a run while -o's temporary file is being written
// (-f trace streams as it reads) removes it: nothing is left beside the
// output, the old output stays, and wallfold dies of the signal.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOutputSignalRemovesTemp: SIGINT, SIGTERM and SIGHUP to wallfold
// reading a pipe that stays open, as the test's user (root, or not) and
// as nobody: the process
// ends killed by that signal (the shell's 128+N), the temporary file is
// gone and the old output is as it was.
func TestOutputSignalRemovesTemp(t *testing.T) {
	bin := builtBinary(t)
	text := readString(t, trace("phases.txt"))
	for _, as := range []struct {
		name string
		f    func(*testing.T, string) user
	}{{"self", asSelf}, {"nobody", asNobody}} {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
			t.Run(fmt.Sprintf("%s, %v", as.name, sig), func(t *testing.T) {
				u := as.f(t, bin)
				dir := openTempDir(t)
				chownMode(t, dir, u.uid, 0o755)
				out := plant(t, filepath.Join(dir, "out.json"), "old\n", 0o644, u.uid)
				cmd := u.command("-q", "-f", "trace", "-o", out)
				stdin, err := cmd.StdinPipe()
				if err != nil {
					t.Fatal(err)
				}
				defer stdin.Close()
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				defer cmd.Process.Kill()
				go stdin.Write([]byte(text)) // and the pipe stays open: the run waits
				waitForTemp(t, dir)
				if ignored(t, cmd.Process.Pid, sig) {
					t.Skipf("%v is ignored in this test's process, and so in wallfold, which keeps it so (as under nohup)", sig)
				}
				cmd.Process.Signal(sig)
				done := make(chan error, 1)
				go func() { done <- cmd.Wait() }()
				select {
				case <-done:
				case <-time.After(10 * time.Second):
					t.Fatalf("still running 10 s after %v", sig)
				}
				if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != sig {
					t.Errorf("ended %v, want killed by %v", cmd.ProcessState, sig)
				}
				noTemps(t, dir)
				untouched(t, out, "old\n", u.uid)
			})
		}
	}
}

// waitForTemp waits until -o's temporary file appears in dir.
func waitForTemp(t *testing.T, dir string) {
	t.Helper()
	for start := time.Now(); time.Since(start) < 10*time.Second; time.Sleep(10 * time.Millisecond) {
		if ents, _ := filepath.Glob(filepath.Join(dir, ".*.tmp*")); len(ents) > 0 {
			return
		}
	}
	t.Fatal("no temporary file in 10 s")
}

// ignored reads from /proc whether process pid ignores sig.
func ignored(t *testing.T, pid int, sig syscall.Signal) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if hex, ok := strings.CutPrefix(line, "SigIgn:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
			return err == nil && mask&(1<<(sig-1)) != 0
		}
	}
	return false
}

// TestOutputSignalIgnoredStays: under nohup (SIGHUP ignored from the
// start) a SIGHUP does not end the run: the output is written when the
// input ends, and nothing is left beside it.
func TestOutputSignalIgnoredStays(t *testing.T) {
	bin := builtBinary(t)
	nohup, err := exec.LookPath("nohup")
	if err != nil {
		t.Skip("nohup not found")
	}
	want := mustRun(t, "-q", "-f", "trace", trace("phases.txt"))
	dir := openTempDir(t)
	out := filepath.Join(dir, "out.json")
	cmd := exec.Command(nohup, bin, "-q", "-f", "trace", "-o", out)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	stdin.Write([]byte(readString(t, trace("phases.txt"))))
	waitForTemp(t, dir)
	cmd.Process.Signal(syscall.SIGHUP)
	time.Sleep(100 * time.Millisecond)
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("after SIGHUP under nohup: %v", err)
	}
	hasContent(t, out, want)
	noTemps(t, dir)
}
