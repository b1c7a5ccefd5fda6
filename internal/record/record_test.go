package record

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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
		_, err := Run(Options{Cmd: tt.cmd, Freq: 99}, io.Discard)
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
	rec, err := Run(Options{Cmd: []string{"true"}, Freq: 99}, io.Discard)
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

// perf record's and perf script's command lines: with --off-cpu the clock
// keeps its frequency as a term of its own and -c 1 gives the tracepoint
// a sample at every switch-out (-F would put it in frequency mode; perf
// refuses -F with -c); system-wide, perf script's pid column comes with
// the fields that keep tracepoint callchains.
func TestCommandLines(t *testing.T) {
	for _, tt := range []struct {
		o    Options
		want string
	}{
		{Options{Cmd: []string{"make", "-j8"}, Freq: 999}, "record -q -o D -e cpu-clock -F 999 -g --switch-events -B -- /bin/sh -c " + execWrapper + " wallfold-exec make -j8"},
		{Options{Cmd: []string{"job"}, Freq: 99, OffCPU: true}, "record -q -o D -e cpu-clock/freq=99/ -e sched:sched_switch -c 1 -g --switch-events -e sched:sched_wakeup -e sched:sched_wakeup_new -B -- /bin/sh -c " + execWrapper + " wallfold-exec job"},
		{Options{Cmd: []string{"job"}, Freq: 999, OffCPU: true, SystemWide: true}, "record -q -o D -e cpu-clock/freq=999/ -e sched:sched_switch -c 1 -g --switch-events -e sched:sched_wakeup -e sched:sched_wakeup_new -a -B -- /bin/sh -c " + execWrapper + " wallfold-exec job"},
	} {
		if got := strings.Join(recordArgs(tt.o, "D", features{}), " "); got != tt.want {
			t.Errorf("perf %s, want perf %s", got, tt.want)
		}
	}
	if got, want := strings.Join(scriptArgs("D", false, features{}, false), " "), "script -i D --show-switch-events --show-task-events --show-lost-events"; got != want {
		t.Errorf("perf %s, want perf %s", got, want)
	}
	if got, want := strings.Join(scriptArgs("D", true, features{}, false), " "), "script -i D --show-switch-events --show-task-events --show-lost-events -F +pid,+ip,+sym,+symoff,+dso"; got != want {
		t.Errorf("-a: perf %s, want perf %s", got, want)
	}
	if !strings.Contains(OffCPURecipe, strings.Join(recordArgs(Options{OffCPU: true, Freq: 999}, "D", features{})[4:16], " ")) {
		t.Errorf("the recipe %q is not what wallfold record --off-cpu runs", OffCPURecipe)
	}
}

// sleepsEnv makes the test binary a workload (TestMain): it sleeps 1 ms
// that many times.
const sleepsEnv = "WALLFOLD_RECORD_TEST_SLEEPS"

func TestMain(m *testing.M) {
	if n, err := strconv.Atoi(os.Getenv(sleepsEnv)); err == nil {
		for range n {
			time.Sleep(time.Millisecond)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// wallfold record --off-cpu's recording, per task and system-wide, on a
// workload that sleeps 200 times: every switch-out of the workload's
// threads (the kernel's switch records) has a sched_switch sample with
// its callchain in the text wallfold reads. Was a bug (fixed): -F 999
// sampled the tracepoint too, and a third of the switch-outs had one;
// system-wide, perf script -F +pid printed none of the callchains.
func TestOffCPUStackAtEverySwitch(t *testing.T) {
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf not installed")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(sleepsEnv, "200")
	for _, systemWide := range []bool{false, true} {
		if msg := perfForbidden(systemWide); msg != "" {
			t.Skip(msg)
		}
		// Once in some twenty runs on a busy machine a system-wide text
		// held no record of the workload (not reproduced): a recording
		// without the workload is taken again, a stack missing is not.
		outs, stacks, size := recordSleeps(t, self, systemWide)
		if outs < 200 {
			t.Logf("system-wide %v: %d switch-outs of the workload in %d bytes of text: recording again", systemWide, outs, size)
			outs, stacks, size = recordSleeps(t, self, systemWide)
		}
		t.Logf("system-wide %v: %d switch-outs, %d with a sched_switch stack", systemWide, outs, stacks)
		// a thread's last switch-out, at its exit, may come without its sample
		if outs < 200 || stacks < outs-4 {
			t.Errorf("system-wide %v: %d of %d switch-outs have a stack (%d bytes of text)", systemWide, stacks, outs, size)
		}
	}
}

// recordSleeps records self as the workload with wallfold record
// --off-cpu's command lines and counts its switch-outs and stacks in the
// text perf script gives.
func recordSleeps(t *testing.T, self string, systemWide bool) (outs, stacks, size int) {
	t.Helper()
	rec, err := Run(Options{Cmd: []string{self}, OffCPU: true, SystemWide: systemWide, Freq: 999}, os.Stderr)
	if err != nil {
		t.Skipf("perf cannot record here: %v", err)
	}
	defer rec.Close()
	text, wait, err := rec.Script()
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(text)
	if werr := wait(); werr != nil {
		t.Fatal(werr)
	}
	if err != nil {
		t.Fatal(err)
	}
	outs, stacks = workloadSwitchStacks(b, TreeName(self))
	return outs, stacks, len(b)
}

// workloadSwitchStacks counts the switch-outs of comm's threads and its
// sched_switch samples followed by a frame line.
func workloadSwitchStacks(text []byte, comm string) (outs, stacks int) {
	afterSwitch := false
	for _, line := range strings.Split(string(text), "\n") {
		if afterSwitch && strings.HasPrefix(line, "\t") {
			stacks++
		}
		ours := strings.HasPrefix(strings.TrimLeft(line, " "), comm+" ")
		afterSwitch = ours && strings.Contains(line, " sched:sched_switch: ")
		if ours && strings.Contains(line, "PERF_RECORD_SWITCH") && strings.Contains(line, " OUT") {
			outs++
		}
	}
	return outs, stacks
}

// perf record's own flags go to it with their names, wallfold's wrapper
// of the command after them; attached (-p), there is no command. The
// recipe a failure prints is the same recording by hand, quoted.
func TestPerfFlags(t *testing.T) {
	f := features{noBPFEvent: true, pdeathsigExec: "/usr/bin/setpriv"}
	o := Options{Cmd: []string{"sh", "-c", "echo it's; exit 3"}, Freq: 99, CallGraph: "dwarf,4096", ClockID: "mono", MmapPages: "64",
		Events: []string{"cycles", "instructions"}, PerfArgs: []string{"--user-regs=sp"}}
	want := "record -q -o D -e cpu-clock -F 99 --call-graph dwarf,4096 --switch-events -e cycles -e instructions -k mono -m 64 -B --no-bpf-event --user-regs=sp -- /bin/sh -c " +
		execWrapper + " wallfold-exec /usr/bin/setpriv --pdeathsig KILL -- sh -c echo it's; exit 3"
	if got := strings.Join(recordArgs(o, "D", f), " "); got != want {
		t.Errorf("perf %s\nwant perf %s", got, want)
	}
	wantRecipe := `perf record -q -o perf.data -e cpu-clock -F 99 --call-graph dwarf,4096 --switch-events -e cycles -e instructions -k mono -m 64 -B --no-bpf-event --user-regs=sp -- sh -c 'echo it'\''s; exit 3'`
	if got := Recipe(o, f); got != wantRecipe {
		t.Errorf("recipe %s\nwant %s", got, wantRecipe)
	}
	withIDs := Options{Cmd: []string{"true"}, Freq: 999, BuildID: true}
	if got := strings.Join(recordArgs(withIDs, "D", features{}), " "); strings.Contains(got, " -B ") {
		t.Errorf("--buildid: perf %s", got)
	}
	attach := Options{PID: "42", Freq: 999}
	if got, want := strings.Join(recordArgs(attach, "D", f), " "), "record -q -o D -e cpu-clock -F 999 -g --switch-events -p 42 -B --no-bpf-event"; got != want {
		t.Errorf("-p: perf %s, want perf %s", got, want)
	}
	attach.Duration = 1500 * time.Millisecond
	if got, want := strings.Join(recordArgs(attach, "D", f), " "), "record -q -o D -e cpu-clock -F 999 -g --switch-events -p 42 -B --no-bpf-event -- sleep 1.5"; got != want {
		t.Errorf("attached for 1.5 s:\n got %s\nwant %s", got, want)
	}
	if got := Recipe(attach, f); !strings.HasSuffix(got, " -p 42 -B --no-bpf-event -- sleep 1.5") {
		t.Errorf("the recipe of an attached 1.5 s: %s", got)
	}
	if err := Check(Options{PID: "42", Cmd: []string{"true"}}); err == nil {
		t.Errorf("-p with a command: no error")
	}
	if got, want := strings.Join(scriptArgs("D", false, features{inline: true}, false), " "), "script -i D --show-switch-events --show-task-events --show-lost-events --no-inline"; got != want {
		t.Errorf("perf %s, want perf %s", got, want)
	}
	if got := strings.Join(scriptArgs("D", false, features{inline: true}, true), " "); !strings.HasSuffix(got, " --inline") {
		t.Errorf("--inline: perf %s", got)
	}
}

// The output is checked before anything runs: a directory that does not
// exist, or a directory as the file, is refused; a file there is to be
// replaced; stdout and a new file are fine.
func TestCheckOutput(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.svg")
	if err := os.WriteFile(old, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path     string
		replaces bool
		fails    bool
	}{{"-", false, false}, {filepath.Join(dir, "new.svg"), false, false}, {old, true, false},
		{filepath.Join(dir, "missing", "w.svg"), false, true}, {dir, false, true}} {
		replaces, err := CheckOutput(tt.path)
		if replaces != tt.replaces || (err != nil) != tt.fails {
			t.Errorf("%s: replaces %v, error %v; want %v, an error: %v", tt.path, replaces, err, tt.replaces, tt.fails)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
		t.Errorf("the check left %v", left)
	}
}

// What writing the profile would refuse is refused before the command
// runs too: here a symlink nobody planted in a sticky world-writable
// directory (the kernel's protected_symlinks), which wallfold record
// used to follow only when the recording was done.
func TestCheckOutputPlantedLink(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (to plant a link of nobody's)")
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "wall.svg")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(link, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if _, err := CheckOutput(link); err == nil || !strings.Contains(err.Error(), "protected_symlinks") || !strings.Contains(err.Error(), "nothing was recorded") {
		t.Errorf("CheckOutput(%s): %v, want the refusal before recording", link, err)
	}
}

// A failure quotes perf's first lines (a usage error, before the option
// list) and its last (a crash); a short stderr whole.
func TestTailLines(t *testing.T) {
	var short tail
	short.Write([]byte("one\ntwo\n"))
	if got := short.lines(8); got != "  | one\n  | two" {
		t.Errorf("short: %q", got)
	}
	var long tail
	for i := range 50 {
		fmt.Fprintf(&long, "line %d\n", i)
	}
	got := long.lines(2)
	if want := "  | line 0\n  | line 1\n  | line 2\n  | ...\n  | line 48\n  | line 49"; got != want {
		t.Errorf("long: %q, want %q", got, want)
	}
	var none tail
	if got := none.lines(8); !strings.Contains(got, "nothing") {
		t.Errorf("empty: %q", got)
	}
}
