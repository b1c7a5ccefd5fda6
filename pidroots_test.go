package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// rootsOf returns the root frames of folded output and their count.
func rootsOf(out string) map[string]int {
	roots := map[string]int{}
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if root, _, ok := strings.Cut(l, ";"); ok {
			roots[root]++
		}
	}
	return roots
}

// TestPIDRootsFromRecords: --pid/--tid on a trace without a pid column
// root stacks at the pid the FORK/COMM records name (as the pprof pid
// label has it), not at comm-?; the same output as the trace recorded
// with -F +pid.
func TestPIDRootsFromRecords(t *testing.T) {
	b, err := os.ReadFile(trace("phases.txt"))
	if err != nil {
		t.Fatal(err)
	}
	exec := regexp.MustCompile(`PERF_RECORD_COMM exec: phases:(\d+)/\d+`).FindSubmatch(b)
	forks := regexp.MustCompile(`PERF_RECORD_FORK\((\d+):(\d+)\)`).FindAllSubmatch(b, -1)
	if exec == nil || len(forks) == 0 {
		t.Fatal("no COMM exec or FORK record in phases.txt")
	}
	pid := string(exec[1])
	tids := map[string]bool{pid: true}
	for _, f := range forks {
		if string(f[1]) != pid {
			t.Fatalf("FORK of pid %s, COMM exec of %s", f[1], pid)
		}
		tids[string(f[2])] = true
	}

	for _, flags := range [][]string{{"--pid"}, {"--pid", "--off-cpu"}, {"--pid", "--parallelism-frame"}} {
		out, _, code := wallfold(t, append(flags, trace("phases.txt"))...)
		roots := rootsOf(out)
		if code != 0 || len(roots) == 0 {
			t.Fatalf("%v: exit %d, %d roots", flags, code, len(roots))
		}
		for root := range roots {
			if flags[len(flags)-1] == "--parallelism-frame" {
				continue // [parallelism N]: the comm is the next frame
			}
			if root != "phases-"+pid {
				t.Errorf("%v: root %q, want phases-%s", flags, root, pid)
			}
		}
		if flags[len(flags)-1] == "--parallelism-frame" && (!strings.Contains(out, ";phases-"+pid+";") || strings.Contains(out, "-?")) {
			t.Errorf("%v: no phases-%s frame, or a -? one", flags, pid)
		}
	}
	out, _, _ := wallfold(t, "--tid", trace("phases.txt"))
	for root := range rootsOf(out) {
		p, tid, _ := strings.Cut(strings.TrimPrefix(root, "phases-"), "/")
		if p != pid || !tids[tid] {
			t.Errorf("--tid: root %q, want phases-%s/TID with TID in %v", root, pid, tids)
		}
	}
	// The trace recorded with a pid column says the same.
	for _, name := range []string{"phases", "syswide", "procs"} {
		for _, flag := range []string{"--pid", "--tid"} {
			got, _, _ := wallfold(t, "-q", flag, trace(name+".txt"))
			want, _, _ := wallfold(t, "-q", flag, trace(name+".pid.txt"))
			if got != want || strings.Contains(got, "-?") {
				t.Errorf("%s %s: roots %v, with the pid column %v", name, flag, rootsOf(got), rootsOf(want))
			}
		}
	}
}
