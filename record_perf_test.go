package main

// wallfold record as a perf user runs it (issue 25): perf's own flags, an
// unknown one refused, the output checked before the command runs, perf's
// failure told as perf's, and nothing left running when wallfold is killed.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wallfold/wallfold/internal/fileio"
)

// asWallfoldEnv makes the test binary wallfold itself (TestMain): the
// tests that kill wallfold run it as a process of its own.
const asWallfoldEnv = "WALLFOLD_TEST_AS_WALLFOLD"

func TestMain(m *testing.M) {
	if os.Getenv(asWallfoldEnv) == "1" {
		os.Exit(run(os.Args[1:], fileio.StdinPipe(os.Stdin), os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// Expected: a flag record does not know, before --, is an error naming it
// (exit 2). Was a bug (fixed): it was taken as the command
// ("--call-graphx: command not found", exit 127).
func TestRecordUnknownFlag(t *testing.T) {
	t.Chdir(t.TempDir())
	_, stderr, code := wallfold(t, "record", "--call-graphx=dwarf", "--", "true")
	if code != 2 || !strings.Contains(stderr, "--call-graphx") || strings.Contains(stderr, "command not found") {
		t.Errorf("exit %d, stderr %q; want exit 2 naming --call-graphx", code, stderr)
	}
}

// Expected: -o in a directory that does not exist is refused before the
// command runs (exit 2; the command's side effect does not happen). Was
// a bug (fixed): the command ran, then the profile could not be written.
func TestRecordOutputCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	touched := filepath.Join(dir, "touched")
	_, stderr, code := wallfold(t, "record", "-o", filepath.Join(dir, "missing", "w.svg"), "--", "touch", touched)
	_, err := os.Stat(touched)
	if code != 2 || err == nil || !strings.Contains(stderr, "missing") {
		t.Errorf("exit %d, command ran: %v, stderr %q; want exit 2 before the command, naming the directory", code, err == nil, stderr)
	}
}

// crashingPerf puts first in PATH a perf that answers -h as perf does and
// dies of SIGSEGV in the middle of `perf record`, after some messages and
// part of a perf.data.
func crashingPerf(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		if b, err := os.ReadFile("/proc/sys/kernel/perf_event_paranoid"); err == nil && strings.TrimSpace(string(b)) > "1" {
			t.Skip("perf_event_paranoid above 1: wallfold record refuses before perf")
		}
	}
	dir := t.TempDir()
	script := `#!/bin/sh
case "$2" in -h) exit 129;; esac
while [ $# -gt 0 ] && [ "$1" != -o ]; do shift; done
printf 'PERFILE2' > "$2"
echo "fake perf: recording" >&2
echo "perf: util/build-id.c:1010: assertion failed" >&2
kill -SEGV $$
`
	if err := os.WriteFile(filepath.Join(dir, "perf"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// Expected: perf crashing is told as perf's failure: its signal, its
// last stderr lines, what to try, wallfold's own exit status (2, not
// 128+11 as if the command had died), no profile. Was a bug (fixed): the
// signal was taken as the command's (exit 139) and a profile without
// samples was written.
func TestRecordPerfCrash(t *testing.T) {
	crashingPerf(t)
	t.Chdir(t.TempDir())
	_, stderr, code := wallfold(t, "record", "--", "true")
	_, err := os.Stat("wall.svg")
	for _, want := range []string{"perf record", "signal 11 (SIGSEGV)", "assertion failed", "fake perf: recording", "by hand", "perf record -q -o perf.data"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not say %q: %q", want, stderr)
		}
	}
	if code != 2 || err == nil {
		t.Errorf("exit %d, wall.svg written: %v; want 2 and none", code, err == nil)
	}
}

// Expected: wallfold record killed by SIGKILL leaves nothing behind: perf
// and the command gone within 2 s, no file in TMPDIR. Was a bug (fixed):
// perf record and the command went on, orphaned, with a perf.data in a
// temporary directory.
func TestRecordKilled(t *testing.T) {
	needPerf(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, tmp := t.TempDir(), t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	w := exec.Command(self, "record", "-q", "-o", filepath.Join(dir, "w.folded"), "--",
		"sh", "-c", `echo $$ > "$0.tmp" && mv "$0.tmp" "$0" && exec sleep 30`, pidFile)
	w.Env = append(os.Environ(), asWallfoldEnv+"=1", "TMPDIR="+tmp)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Process.Kill()
	var workload int
	for end := time.Now().Add(10 * time.Second); workload == 0 && time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(pidFile)
		workload, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	perf := children(w.Process.Pid)
	if workload == 0 || len(perf) == 0 {
		t.Fatalf("the command (pid %d) or perf (%v) did not start", workload, perf)
	}
	w.Process.Signal(syscall.SIGKILL)
	w.Wait()
	left := append(perf, workload)
	// the command dies with perf through setpriv --pdeathsig (util-linux
	// ≥ 2.33); without it only perf is sure to go
	if h, _ := exec.Command("setpriv", "--help").CombinedOutput(); !bytes.Contains(h, []byte("--pdeathsig")) {
		t.Logf("no setpriv --pdeathsig here: the command (pid %d) is not checked", workload)
		left = perf
		defer syscall.Kill(workload, syscall.SIGKILL)
	}
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end) && len(alive(left)) > 0; {
		time.Sleep(20 * time.Millisecond)
	}
	if a := alive(left); len(a) > 0 {
		t.Errorf("2 s after SIGKILL to wallfold, still running: %v (perf %v, command %d)", a, perf, workload)
		for _, pid := range a {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	if ents, _ := os.ReadDir(tmp); len(ents) > 0 {
		t.Errorf("left in TMPDIR: %v", ents)
	}
}

// children are pid's child processes.
func children(pid int) []int {
	var kids []int
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		for _, s := range strings.Fields(string(b)) {
			if k, err := strconv.Atoi(s); err == nil {
				kids = append(kids, k)
			}
		}
	}
	return kids
}

// alive are the pids that are still running (a zombie has ended).
func alive(pids []int) []int {
	var a []int
	for _, pid := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if i := bytes.LastIndexByte(b, ')'); err == nil && i > 0 && i+2 < len(b) && b[i+2] != 'Z' {
			a = append(a, pid)
		}
	}
	return a
}

// Expected: replacing an existing profile is said on stderr. Was a bug
// (fixed): record replaced wall.svg without a word.
func TestRecordSaysReplaced(t *testing.T) {
	fakePerf(t, "phases.txt")
	t.Chdir(t.TempDir())
	if err := os.WriteFile("wall.svg", []byte("an older profile"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := wallfold(t, "record", "--", "true")
	if code != 0 || !strings.Contains(stderr, "wall.svg exists: it will be replaced") {
		t.Errorf("exit %d, stderr %q: want a word that wall.svg is replaced", code, stderr)
	}
}

// Expected: -e and --perf-arg reach perf record as given, commas
// included (perf's event terms and --call-graph=dwarf,SIZE have them). A
// perf on PATH writes down its arguments.
func TestRecordPerfArgsVerbatim(t *testing.T) {
	fakePerf(t, "phases.txt")
	dir := t.TempDir()
	t.Chdir(dir)
	args := filepath.Join(dir, "args")
	logging := "#!/bin/sh\n[ \"$1\" = record ] && [ \"$2\" != -h ] && printf '%s\\n' \"$@\" > '" + args + "'\nexec " + filepath.Join(os.Getenv("PATH")[:strings.IndexByte(os.Getenv("PATH"), os.PathListSeparator)], "perf") + " \"$@\"\n"
	wrap := t.TempDir()
	if err := os.WriteFile(filepath.Join(wrap, "perf"), []byte(logging), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", wrap+string(os.PathListSeparator)+os.Getenv("PATH"))
	mustRun(t, "record", "-q", "-o", "w.folded", "-e", "cpu/event=0x3c,umask=0/", "--perf-arg=--user-regs=sp,bp", "--", "true")
	b, _ := os.ReadFile(args)
	for _, want := range []string{"\ncpu/event=0x3c,umask=0/\n", "\n--user-regs=sp,bp\n"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("perf record's arguments lack %q: %q", strings.TrimSpace(want), b)
		}
	}
}

// Expected: perf script failing is told as perf script's failure, with
// its signal and last stderr lines, and a profile written from its text
// is said to be partial (exit 2). Was a bug (fixed): its stderr was
// thrown away and its failure not noticed.
func TestRecordPerfScriptCrash(t *testing.T) {
	fakePerf(t, "phases.txt")
	real := filepath.Join(os.Getenv("PATH")[:strings.IndexByte(os.Getenv("PATH"), os.PathListSeparator)], "perf")
	crashing := "#!/bin/sh\nif [ \"$1\" = script ] && [ \"$2\" != -h ]; then\n  \"" + real + "\" \"$@\" | head -c 20000\n" +
		"  echo 'data size field is 0 ... properly terminated?' >&2\n  kill -SEGV $$\nfi\nexec \"" + real + "\" \"$@\"\n"
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "perf"), []byte(crashing), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Chdir(t.TempDir())
	_, stderr, code := wallfold(t, "record", "-q", "-o", "w.folded", "--", "true")
	for _, want := range []string{"perf script failed (signal 11 (SIGSEGV))", "properly terminated?", "may be partial"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not say %q: %q", want, stderr)
		}
	}
	if code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
}

// Expected: the command's stderr is wallfold's own (a terminal stays a
// terminal), though wallfold reads perf's for its messages.
func TestRecordCommandStderr(t *testing.T) {
	needPerf(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	errFile, seen := filepath.Join(dir, "stderr"), filepath.Join(dir, "seen")
	f, err := os.Create(errFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := exec.Command(self, "record", "-q", "-o", filepath.Join(dir, "w.folded"), "--", "sh", "-c", `readlink /proc/self/fd/2 > "$0"`, seen)
	w.Env = append(os.Environ(), asWallfoldEnv+"=1")
	w.Stderr = f
	if err := w.Run(); err != nil {
		b, _ := os.ReadFile(errFile)
		t.Fatalf("%v: %s", err, b)
	}
	b, _ := os.ReadFile(seen)
	if got := strings.TrimSpace(string(b)); got != errFile {
		t.Errorf("the command's stderr is %q, wallfold's %q", got, errFile)
	}
}
