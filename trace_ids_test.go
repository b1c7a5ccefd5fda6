package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wallfold/wallfold/internal/testtrace"
)

// rawTraceEvents decodes -f trace's events field by field, numbers as
// written: whether an event has a pid or tid at all, not only its value.
func rawTraceEvents(t *testing.T, args ...string) []map[string]json.RawMessage {
	t.Helper()
	out := filepath.Join(t.TempDir(), "t.json")
	mustRun(t, append([]string{"-q", "-f", "trace", "-o", out}, args...)...)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ TraceEvents []map[string]json.RawMessage }
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	return doc.TraceEvents
}

func rawString(e map[string]json.RawMessage, k string) string {
	var s string
	json.Unmarshal(e[k], &s)
	return s
}

// rawInt is e[k] as an integer, and whether e has k.
func rawInt(t *testing.T, e map[string]json.RawMessage, k string) (int64, bool) {
	v, ok := e[k]
	if !ok {
		return 0, false
	}
	var n int64
	if err := json.Unmarshal(v, &n); err != nil {
		t.Fatalf("%s %s: not an integer", k, v)
	}
	return n, true
}

// TestTraceIDsNotZero: on every shipped trace, in each scope, no event
// has pid or tid 0 (Perfetto's idle task) or below; every event but a
// counter has both; a track of wallfold's own (an id no Linux task has,
// from 2^22) belongs to one process only (Perfetto names threads by tid
// alone); the workload is always the same pid; and with a pid column,
// each thread's stretches are under the pid/tid pair perf printed.
func TestTraceIDsNotZero(t *testing.T) {
	paths, _ := filepath.Glob(trace("*.txt"))
	gz, _ := filepath.Glob(trace("*.txt.gz"))
	off, _ := filepath.Glob(offTrace("*.txt.gz"))
	paths = append(append(paths, gz...), off...)
	pair := regexp.MustCompile(`^\s*\S.*?\s(\d+)/(\d+)\s`)
	for _, path := range paths {
		scopes := []string{"workload", "process", "thread"}
		all := strings.HasSuffix(path, ".pid.txt") || strings.HasPrefix(path, offTrace("")) && !strings.Contains(path, "configure")
		if testing.Short() && !all {
			// -short: the small traces with a pid column and the small
			// off-CPU ones in every scope, the rest in one
			scopes = scopes[:1]
		}
		for _, scope := range scopes {
			evs := rawTraceEvents(t, "--off-cpu", "--scope="+scope, path)
			owner := map[int64]int64{}
			for _, e := range evs {
				ph := rawString(e, "ph")
				pid, hasPID := rawInt(t, e, "pid")
				tid, hasTID := rawInt(t, e, "tid")
				if !hasPID || pid <= 0 || hasTID && tid <= 0 || !hasTID && ph != "C" {
					raw, _ := json.Marshal(e)
					t.Fatalf("%s --scope=%s: event with pid %d (%v), tid %d (%v): %s", path, scope, pid, hasPID, tid, hasTID, raw)
				}
				if scope == "workload" && pid != 1<<22 {
					t.Fatalf("%s: workload pid %d, want 4194304", path, pid)
				}
				if tid >= 1<<22 {
					if p, ok := owner[tid]; ok && p != pid {
						t.Fatalf("%s --scope=%s: track %d in processes %d and %d", path, scope, tid, p, pid)
					}
					owner[tid] = pid
				}
			}
			if scope == "process" && strings.Contains(path, ".pid.") {
				checkPairs(t, path, evs, pair)
			}
		}
	}
}

// checkPairs: each cpu stretch's (pid, tid) is a pid/tid pair of the
// perf script text.
func checkPairs(t *testing.T, path string, evs []map[string]json.RawMessage, pair *regexp.Regexp) {
	t.Helper()
	seen := map[string]bool{}
	for _, line := range strings.Split(string(testtrace.Read(t, path)), "\n") {
		if m := pair.FindStringSubmatch(line); m != nil {
			seen[m[1]+"/"+m[2]] = true
		}
	}
	for _, e := range evs {
		if rawString(e, "cat") != "cpu" {
			continue
		}
		if k := string(e["pid"]) + "/" + string(e["tid"]); !seen[k] {
			t.Fatalf("%s: a stretch of %s, a pair perf never printed", path, k)
		}
	}
}

// TestTraceParallelismTrack: each group's parallelism track (the counter
// as slices, for speedscope) integrates to its threads' time on CPU: a
// stretch of n threads running for d is n·d of thread slices.
func TestTraceParallelismTrack(t *testing.T) {
	for _, name := range []string{"phases.txt", "procs.txt", "build.txt.gz", "syswide.txt"} {
		for _, scope := range []string{"workload", "process"} {
			onCPU, byPar := map[int64]float64{}, map[int64]float64{}
			for _, e := range rawTraceEvents(t, "--scope="+scope, trace(name)) {
				var dur float64
				json.Unmarshal(e["dur"], &dur)
				pid, _ := rawInt(t, e, "pid")
				switch rawString(e, "cat") {
				case "cpu":
					onCPU[pid] += dur
				case "parallelism":
					var n float64
					if _, err := fmt.Sscanf(rawString(e, "name"), "parallelism %g", &n); err != nil {
						t.Fatal(err)
					}
					byPar[pid] += n * dur
				}
			}
			if len(onCPU) == 0 {
				t.Fatalf("%s: no stretch on CPU", name)
			}
			for pid, want := range onCPU {
				if got := byPar[pid]; math.Abs(got-want) > 1e-6*want+0.01 {
					t.Errorf("%s --scope=%s pid %d: parallelism track %.3f µs·threads, threads on CPU %.3f µs", name, scope, pid, got, want)
				}
			}
		}
	}
}

// TestTraceIDsTree: with --tree the group is the root process under its
// real pid (phases, 6028 in the system-wide trace, as the summary names
// it), and no event has pid or tid 0.
func TestTraceIDsTree(t *testing.T) {
	evs := rawTraceEvents(t, "--tree=phases", trace("syswide.txt"))
	if len(evs) == 0 {
		t.Fatal("no events")
	}
	for _, e := range evs {
		pid, _ := rawInt(t, e, "pid")
		tid, hasTID := rawInt(t, e, "tid")
		if pid != 6028 || hasTID && tid <= 0 {
			raw, _ := json.Marshal(e)
			t.Fatalf("event of pid %d, tid %d, want pid 6028: %s", pid, tid, raw)
		}
	}
}
