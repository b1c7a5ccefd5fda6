package main

// wallfold record with perf's recording flags on real programs (issue
// 25): --call-graph=dwarf on a program without frame pointers, and -p
// attached to a running one.

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// buildC compiles the C file src into the test's directory with flags.
func buildC(t *testing.T, src string, flags ...string) string {
	t.Helper()
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("no gcc to build the workload")
	}
	bin := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(src), ".c"))
	args := append(append([]string{}, flags...), "-pthread", "-o", bin, src)
	if out, err := exec.Command(gcc, args...).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v: %s", err, out)
	}
	return bin
}

// Expected: on phases built -O2 -fomit-frame-pointer (main spins alone
// 0.2 s, two threads 0.4 s, main alone 0.2 s: main's share of the wall is
// 50 % by design), --call-graph=dwarf gives stacks that reach main, and
// main's share is the design's, within 4 points (or, on a machine too busy
// for the design, the independent count of the same recording's); -g
// (frame pointers) loses main, and wallfold warns of it. Was a bug (fixed): --call-graph was taken
// as the command.
func TestRecordCallGraphDwarf(t *testing.T) {
	needPerf(t)
	bin := buildC(t, filepath.Join("testdata", "offcpu", "src", "phases.c"), "-O2", "-fomit-frame-pointer")
	script := perfShim(t)
	t.Chdir(t.TempDir())
	for _, cg := range []string{"dwarf", "fp"} {
		_, stderr, code := wallfold(t, "record", "--call-graph="+cg, "-o", cg+".folded", "--", bin, "0.2", "0.4", "2", "0")
		if code != 0 {
			t.Fatalf("--call-graph=%s: exit %d: %s", cg, code, stderr)
		}
		b, err := os.ReadFile(cg + ".folded")
		if err != nil {
			t.Fatal(err)
		}
		share := parseFolded(t, string(b)).share("", "main")
		text, err := os.ReadFile(script)
		if err != nil {
			t.Fatal(err)
		}
		ref := refWallShare(t, string(text), "main")
		t.Logf("--call-graph=%s: main %.1f %% of the wall, the recording's count %.1f %%, designed 50 %% (%d samples, mean parallelism %.2f)",
			cg, share, ref.Share, ref.Samples, ref.MeanPar)
		// fold's warning of short stacks names the remedy
		warned := strings.Contains(stderr, "Record with --call-graph dwarf")
		if cg == "fp" {
			if share > 4 {
				t.Logf("frame pointers reached main in %.1f %% of the wall: the compiler kept them", share)
			} else if !warned {
				t.Errorf("-g: stacks cut short (main %.1f %%) and no warning naming --call-graph dwarf: %q", share, stderr)
			}
			continue
		}
		if warned {
			t.Errorf("--call-graph=dwarf: the short-stack warning: %q", stderr)
		}
		if math.Abs(share-50) > 4 && (math.Abs(ref.Share-50) <= 4 || math.Abs(share-ref.Share) > 4) {
			t.Errorf("--call-graph=dwarf: main %.1f %% of the wall, designed 50 %% ± 4 (the recording's count %.1f %%)", share, ref.Share)
		}
	}
}

// Expected: -p PID --duration 1s records a running two-thread program
// (no command) for about a second: both threads' functions are in the
// profile. Was a bug (fixed): -p was taken as the command.
func TestRecordAttach(t *testing.T) {
	needPerf(t)
	bin := buildC(t, filepath.Join("testdata", "record", "twothreads.c"), "-O1", "-fno-omit-frame-pointer")
	dir := t.TempDir()
	t.Chdir(dir)
	w := exec.Command(bin, "10", filepath.Join(dir, "pid"))
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { w.Process.Kill(); w.Wait() }()
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat("pid"); err == nil {
			break
		}
	}
	start, cpuBefore := time.Now(), processCPU(t, w.Process.Pid)
	_, stderr, code := wallfold(t, "record", "-q", "-p", strconv.Itoa(w.Process.Pid), "--duration", "1s", "-o", "w.folded")
	took, cpu := time.Since(start), processCPU(t, w.Process.Pid)-cpuBefore
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile("w.folded")
	if err != nil {
		t.Fatal(err)
	}
	prof := parseFolded(t, string(b))
	one, two := prof.share("", "thread_one_spin"), prof.share("", "thread_two_spin")
	t.Logf("attached for %v: wall %.3f s (the threads' CPU meanwhile %.2f s), thread_one_spin %.1f %%, thread_two_spin %.1f %%", took, prof.total/1e9, cpu.Seconds(), one, two)
	// each thread half the wall when both have a CPU; a busy machine
	// shifts it, but not to one thread alone
	if !(one > 10 && two > 10) {
		t.Errorf("thread_one_spin %.1f %%, thread_two_spin %.1f %% of the wall: want both threads", one, two)
	}
	// the wall is at most the second attached (the program spins for 10 s:
	// --duration ends the recording before it) and at most the time the
	// threads had a CPU meanwhile (the kernel's count, in ticks): on a busy
	// machine both are small
	if took > 9*time.Second || prof.total <= 0 || prof.total > 1.1e9 || prof.total > float64(cpu+50*time.Millisecond) {
		t.Errorf("--duration 1s: wallfold took %v, the profile's wall is %.3f s, the threads' CPU meanwhile %.3f s", took, prof.total/1e9, cpu.Seconds())
	}
}

// processCPU is a process's user and system time so far, all its threads,
// from /proc/PID/stat (in clock ticks of 10 ms).
func processCPU(t *testing.T, pid int) time.Duration {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// the fields after the command's closing parenthesis: state is the
	// 3rd field of the line, utime the 14th and stime the 15th
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("/proc/%d/stat: %q", pid, b)
	}
	return time.Duration(ut+st) * 10 * time.Millisecond
}
