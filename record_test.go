package main

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// needPerf skips unless perf can record here (it needs perf, and root or
// a low perf_event_paranoid).
func needPerf(t *testing.T) {
	t.Helper()
	perf, err := exec.LookPath("perf")
	if err != nil {
		t.Skip("perf not installed: wallfold record is not tested")
	}
	probe := filepath.Join(t.TempDir(), "probe.data")
	if out, err := exec.Command(perf, "record", "-q", "-o", probe, "-e", "cpu-clock", "--switch-events", "--", "true").CombinedOutput(); err != nil {
		t.Skipf("perf cannot record here (%v: %s): wallfold record is not tested", err, bytes.TrimSpace(out))
	}
}

// wallfold record on the phases workload (serial 0.3 s, two threads
// 0.6 s, serial 0.3 s): serial_phase is half of the wall; CMD's exit
// status is wallfold's; no perf.data is left behind.
func TestRecord(t *testing.T) {
	needPerf(t)
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("no gcc to build the workload")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "phases")
	if out, err := exec.Command(gcc, "-O1", "-g", "-fno-omit-frame-pointer", "-pthread", "-o", bin, filepath.Join("testdata", "offcpu", "src", "phases.c")).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v: %s", err, out)
	}
	t.Chdir(dir)
	tmpBefore, _ := filepath.Glob(filepath.Join(os.TempDir(), "wallfold-record-*"))
	var out, errb bytes.Buffer
	if code := run([]string{"record", "-o", "wall.folded", "--", bin, "0.3", "0.6", "2", "0"}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	b, err := os.ReadFile("wall.folded")
	if err != nil {
		t.Fatal(err)
	}
	share := parseFolded(t, string(b)).share("", "serial_phase")
	t.Logf("serial_phase %.1f %% of the wall", share)
	if math.Abs(share-50) > 4 {
		t.Errorf("serial_phase %.1f %% of the wall, want 50 ± 4", share)
	}
	if !strings.Contains(errb.String(), "average parallelism while on CPU") || !strings.Contains(errb.String(), "wrote wall.folded") {
		t.Errorf("no summary or no word of the file on stderr: %q", errb.String())
	}
	// the default: wall.svg here
	if code := run([]string{"record", "-q", "--", "sh", "-c", "exit 3"}, nil, &out, &errb); code != 3 {
		t.Errorf("CMD exited 3, wallfold %d", code)
	}
	if _, err := os.Stat("wall.svg"); err != nil {
		t.Errorf("no wall.svg by default: %v", err)
	}
	left, _ := filepath.Glob("perf.data*")
	tmpAfter, _ := filepath.Glob(filepath.Join(os.TempDir(), "wallfold-record-*"))
	if len(left) > 0 || len(tmpAfter) > len(tmpBefore) {
		t.Errorf("left behind: %v %v", left, tmpAfter)
	}
}

func TestRecordUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"record"}, nil, &out, &errb); code != 2 || !strings.Contains(errb.String(), "-- CMD") {
		t.Errorf("no command: exit %d, %q", code, errb.String())
	}
}
