package main

// wallfold record around CMD: the profile's default name, a CMD that
// does not exist, the signal dispositions CMD starts with (each failed
// before its fix). record_test.go has record on a workload, and its usage.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Expected: `wallfold record -f pprof -- CMD` writes a pprof file named for
// it (wall.pb.gz), or refuses the mismatch. Observed: the gzipped pprof is
// written to wall.svg (the -o default does not follow -f), and -f X -o Y.svg
// is taken silently. Fix: record.go, RecordCmd.format (the -o default is
// "wall" and -f's extension; -f and an -o whose extension disagrees are
// refused).
func TestRecordFormatDefaultName(t *testing.T) {
	needPerf(t)
	t.Chdir(t.TempDir())
	mustRun(t, "record", "-q", "-f", "pprof", "--", "true")
	if b, err := os.ReadFile("wall.svg"); err == nil && len(b) > 2 && b[0] == 0x1f && b[1] == 0x8b {
		t.Errorf("record -f pprof wrote a gzipped pprof into wall.svg")
	}
}

// Expected: a CMD that does not exist is an error naming it (exit 127, as
// a shell), and no profile. Observed: perf's "Failed to collect ... No such
// file or directory" is hidden by `perf record -q`, wallfold writes a
// "no samples" wall.svg, says "wrote wall.svg", exits 255.
// Fix: internal/record/record.go, Run (exec.LookPath(CMD) before perf;
// without a perf.data it says so and points to perf's message).
func TestRecordMissingCommand(t *testing.T) {
	needPerf(t)
	t.Chdir(t.TempDir())
	_, stderr, code := wallfold(t, "record", "--", "no-such-command-xyz")
	_, statErr := os.Stat("wall.svg")
	if code != 127 || statErr == nil || !strings.Contains(stderr, "no-such-command-xyz") {
		t.Errorf("missing CMD: exit %d, wall.svg written: %v, stderr %q; want 127, no file, a message naming it", code, statErr == nil, stderr)
	}
}

// Expected: CMD runs with the signal dispositions wallfold was given
// (README: Ctrl-C goes to the command). Was a bug (fixed): signal.Ignore(SIGQUIT)
// in the old runRecord was inherited through perf (which resets only SIGINT, by
// installing its own handler) by CMD: CMD ignored SIGQUIT (Ctrl-\ no
// longer stopped it, no core dump). Fix: internal/record/record.go (Run):
// signal.Notify into a channel (dispositions of caught signals reset at
// exec) instead of Ignore.
func TestRecordCmdSignalDispositions(t *testing.T) {
	needPerf(t)
	dir := t.TempDir()
	t.Chdir(dir)
	status := filepath.Join(dir, "status")
	mustRun(t, "record", "-q", "-o", "w.folded", "--", "sh", "-c", "cat /proc/$$/status > "+status)
	b, _ := os.ReadFile(status)
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "SigIgn:") {
			var mask uint64
			for _, c := range strings.TrimSpace(strings.TrimPrefix(l, "SigIgn:")) {
				mask = mask<<4 | uint64(strings.IndexRune("0123456789abcdef", c))
			}
			if mask&(1<<(3-1)) != 0 {
				t.Errorf("CMD ignores SIGQUIT (SigIgn %s)", strings.TrimSpace(strings.TrimPrefix(l, "SigIgn:")))
			}
		}
	}
}

// fakePerf puts first in PATH a perf that records nothing and whose
// `perf script` prints the shipped trace name: record's flow without a
// kernel that lets perf record (and the same text every run).
func fakePerf(t *testing.T, name string) {
	t.Helper()
	if b, err := os.ReadFile("/proc/sys/kernel/perf_event_paranoid"); os.Geteuid() != 0 && err == nil && strings.TrimSpace(string(b)) > "1" {
		t.Skip("perf_event_paranoid above 1: wallfold record refuses before perf")
	}
	dir := t.TempDir()
	text, err := filepath.Abs(trace(name))
	if err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\n" +
		"if [ \"$1\" = record ]; then\n" +
		"  while [ $# -gt 0 ] && [ \"$1\" != -o ]; do shift; done\n" +
		"  echo fake > \"$2\"\n" +
		"  exit 0\n" +
		"fi\n" +
		"exec cat '" + text + "'\n"
	if err := os.WriteFile(filepath.Join(dir, "perf"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// `wallfold record -o FILE.pb.gz` writes the labels a converted profile
// has by default (comm, parallelism, state). Was a bug (fixed): the
// profile had none, record building its run's config without the flags'
// default labels. Fix: record.go (RecordCmd.run).
func TestRecordPprofLabels(t *testing.T) {
	fakePerf(t, "phases.txt")
	t.Chdir(t.TempDir())
	mustRun(t, "record", "-q", "-o", "wall.pb.gz", "--", "true")
	p := readProfile(t, "wall.pb.gz")
	if len(p.Sample) == 0 {
		t.Fatal("no samples")
	}
	for _, key := range []string{"comm", "parallelism"} {
		if len(p.Sample[0].Label[key]) == 0 {
			t.Errorf("sample without a %s label: %v", key, p.Sample[0].Label)
		}
	}
}
