package main

// The recorded traces of testdata/traces against their known answers
// (testdata/traces/README.md): each frame's share of the wall and of the
// CPU, the wall totals, the CPU total that is the sum of the periods; and
// the warning for a trace without task events.

import (
	"bufio"
	"bytes"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/wallfold/wallfold/internal/testtrace"
)

// The known right answers of testdata/traces/README.md: each workload burns
// CPU for fixed wall-clock times, so the split is known in advance.
func TestKnownAnswers(t *testing.T) {
	tests := []struct {
		trace string
		args  []string
		root  string // share within this root frame (process), "" = all
		frame string
		want  float64 // %
		hi    float64 // if set, the answer is the range [want, hi]
	}{
		{"phases.txt", nil, "", "serial_phase", 50, 0},
		{"phases.txt", []string{"--weight=cpu"}, "", "serial_phase", 33.3, 0},
		{"phases.notask.txt", nil, "", "serial_phase", 50, 0},
		{"phases.notask.txt", []string{"--weight=cpu"}, "", "serial_phase", 33.3, 0},
		{"phases.pid.txt", nil, "", "serial_phase", 50, 0},
		{"phases.pid.txt", []string{"--scope=process"}, "", "serial_phase", 50, 0},
		{"procs.txt", nil, "", "spin_a", 50, 0},
		{"procs.notask.txt", nil, "", "spin_a", 50, 0},
		// Each process runs alone: 33 % by design, 37 % measured (the
		// shell's own samples dilute the total).
		{"procs.pid.txt", []string{"--scope=process"}, "", "spin_a", 33, 37},
		{"procs.txt", []string{"--weight=cpu"}, "", "spin_a", 33, 37},
		{"syswide.txt", nil, "phases", "serial_phase", 50, 0},
		{"syswide.notask.txt", nil, "phases", "serial_phase", 50, 0},
		{"syswide.pid.txt", nil, "phases", "serial_phase", 50, 0},
		{"syswide.txt", []string{"--weight=cpu"}, "phases", "serial_phase", 33.3, 0},
		// Traces recorded for this repo with other splits
		// (testdata/traces/README.md).
		{"phases2.txt", nil, "", "serial_phase", 37.5, 0},
		{"phases2.notask.txt", nil, "", "serial_phase", 37.5, 0},
		{"phases2.txt", []string{"--weight=cpu"}, "", "serial_phase", 23.1, 0},
		{"phases3.txt", nil, "", "serial_phase", 80, 0},
		{"phases3.notask.txt", nil, "", "serial_phase", 80, 0},
		{"phases3.txt", []string{"--weight=cpu"}, "", "serial_phase", 66.7, 0},
		{"sleepy.txt", nil, "", "serial_phase", 66.7, 0},
		{"sleepy.notask.txt", nil, "", "serial_phase", 66.7, 0},
		{"sleepy.txt", []string{"--weight=cpu"}, "", "serial_phase", 50, 0},
		{"gophases.txt", nil, "", "main.serialPhase", 50, 0},
		{"gophases.notask.txt", nil, "", "main.serialPhase", 50, 0},
		{"gophases.txt", []string{"--weight=cpu"}, "", "main.serialPhase", 33.3, 0},
		{"procs2.txt", nil, "", "spin_a", 33.3, 0},
		{"procs2.notask.txt", nil, "", "spin_a", 33.3, 0},
		{"procs2.pid.txt", []string{"--scope=process"}, "", "spin_a", 20, 0},
		{"procs2.txt", []string{"--weight=cpu"}, "", "spin_a", 20, 0},
		{"syswide2.txt", nil, "phases", "serial_phase", 37.5, 0},
		{"syswide2.notask.txt", nil, "phases", "serial_phase", 37.5, 0},
		{"syswide2.pid.txt", nil, "phases", "serial_phase", 37.5, 0},
		{"syswide2.txt", []string{"--weight=cpu"}, "phases", "serial_phase", 23.1, 0},
		{"attach.txt", nil, "", "parallel_work", 100, 0},
	}
	for _, tt := range tests {
		name := tt.trace + " " + strings.Join(tt.args, " ") + " " + tt.frame
		t.Run(name, func(t *testing.T) {
			needFile(t, trace(tt.trace))
			out, _, code := wallfold(t, append([]string{"-q", trace(tt.trace)}, tt.args...)...)
			if code != 0 {
				t.Fatalf("exit %d", code)
			}
			got := parseFolded(t, out).share(tt.root, tt.frame)
			lo, hi := tt.want, tt.hi
			if hi == 0 {
				hi = lo
			}
			if got < lo-2 || got > hi+2 || math.IsNaN(got) {
				t.Errorf("%s share = %.1f%%, want %.1f..%.1f%% ± 2", tt.frame, got, lo, hi)
			}
		})
	}
}

// sumPeriods adds the periods of an input's samples of its first event
// with a plain regexp, independently of the parser under test.
func sumPeriods(t *testing.T, path string) (sum uint64, n int) {
	t.Helper()
	hdr := regexp.MustCompile(`^\S.*?\s\d+(?:/\d+)?\s+(?:\[\d+\]\s+)?\d+\.\d+:\s+(\d+)\s+([^ ]+?):(?:\s|$)`)
	first := ""
	sc := bufio.NewScanner(bytes.NewReader(testtrace.Read(t, path)))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		m := hdr.FindStringSubmatch(strings.TrimLeft(sc.Text(), " "))
		if m == nil {
			continue
		}
		if first == "" {
			first = m[2]
		}
		if m[2] != first {
			continue
		}
		p, _ := strconv.ParseUint(m[1], 10, 64)
		sum += p
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return sum, n
}

// Conservation: the cpu total is the sum of the input's periods; the wall
// total is no more than that, and for phases it is the run time.
func TestConservation(t *testing.T) {
	matches, _ := filepath.Glob(trace("*.txt*"))
	if len(matches) == 0 {
		t.Fatal("no traces in testdata/traces")
	}
	for _, path := range matches {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want, n := sumPeriods(t, path)
			if n == 0 {
				t.Skip("no samples with periods")
			}
			out, _, code := wallfold(t, "-q", "--weight=cpu", path)
			if code != 0 {
				t.Fatalf("exit %d", code)
			}
			cpu := parseFolded(t, out).total
			if uint64(cpu) != want {
				t.Errorf("cpu total = %.0f, sum of periods = %d", cpu, want)
			}
			out, _, _ = wallfold(t, "-q", path)
			wall := parseFolded(t, out).total
			if wall > cpu*1.0001 {
				t.Errorf("wall total %.0f > cpu total %.0f", wall, cpu)
			}
		})
	}
}

// The wall total is the time during which at least one thread of the
// workload ran: the designed run time, less any sleep.
func TestWallTotals(t *testing.T) {
	for _, tt := range []struct {
		name string
		want float64 // s
	}{
		{"phases.txt", 2.0}, {"phases.notask.txt", 2.0},
		{"phases2.txt", 1.6}, {"phases2.notask.txt", 1.6},
		{"sleepy.txt", 1.5}, {"sleepy.notask.txt", 1.5}, // 1 s asleep is nobody's
		{"nog.txt", 1.6}, {"nocallchain.txt", 2.0},
		// perf record -p PID -- sleep 2 on a process already running 2
		// threads: both count from the first record on.
		{"attach.txt", 2.0}, {"attach.notask.txt", 2.0},
	} {
		out, _, _ := wallfold(t, "-q", trace(tt.name))
		wall := parseFolded(t, out).total / 1e9
		if math.Abs(wall-tt.want) > 0.03*tt.want {
			t.Errorf("%s: wall total = %.3f s, want %.1f s", tt.name, wall, tt.want)
		}
	}
}

func TestNoTaskEventsWarnsOnce(t *testing.T) {
	out, stderr, code := wallfold(t, trace("phases.notask.txt"))
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if n := strings.Count(stderr, "--show-task-events"); n != 1 {
		t.Errorf("stderr mentions --show-task-events %d times, want once:\n%s", n, stderr)
	}
	if strings.Contains(out, "warning") {
		t.Error("warning text in the output")
	}
	_, stderr, _ = wallfold(t, trace("phases.txt"))
	if stderr != "" {
		t.Errorf("unexpected warnings with task events: %s", stderr)
	}
	_, stderr, _ = wallfold(t, "-q", trace("phases.notask.txt"))
	if stderr != "" {
		t.Errorf("-q printed: %s", stderr)
	}
}
