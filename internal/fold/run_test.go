package fold

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/wallfold/wallfold/emit"
	"github.com/wallfold/wallfold/parse"
)

// twoThreads: thread 10 runs alone from 1.000 s to 1.0025 s (samples
// at 1.001 and 1.002 in alone()), then 10 and 11 run together to
// 1.0045 s (four samples in together()); 1 ms periods. Wall: alone 2 ms
// at parallelism 1, together 4 ms of CPU at parallelism 2, 2 ms.
const twoThreads = `app    10     1.000000: PERF_RECORD_SWITCH IN
app    10     1.001000:    1000000 cpu-clock:
	            1000 alone+0x1 (/bin/app)
	            2000 main+0x1 (/bin/app)

app    10     1.002000:    1000000 cpu-clock:
	            1000 alone+0x1 (/bin/app)
	            2000 main+0x1 (/bin/app)

app    11     1.002500: PERF_RECORD_SWITCH IN
app    10     1.003000:    1000000 cpu-clock:
	            3000 together+0x1 (/bin/app)
	            2000 main+0x1 (/bin/app)

worker    11     1.003000:    1000000 cpu-clock:
	            3000 together+0x1 (/bin/app)

app    10     1.004000:    1000000 cpu-clock:
	            3000 together+0x1 (/bin/app)
	            2000 main+0x1 (/bin/app)

worker    11     1.004000:    1000000 cpu-clock:
	            3000 together+0x1 (/bin/app)

app    10     1.004500: PERF_RECORD_SWITCH OUT
worker    11     1.004500: PERF_RECORD_SWITCH OUT
`

// runText runs cfg on text (as a pipe) and returns the output, stderr and
// the run's error.
func runText(t *testing.T, text string, cfg Config) (out, stderr string, err error) {
	t.Helper()
	var o, e bytes.Buffer
	cfg.Stderr = &e
	r, err := New(cfg, Input{R: strings.NewReader(text), Name: "test", Stdin: true})
	if err != nil {
		return "", e.String(), err
	}
	if err := r.Read(); err != nil {
		return "", e.String(), err
	}
	if err := r.Write(&o); err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), nil
}

func TestRunKnownWall(t *testing.T) {
	for _, tt := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"wall", Config{}, "app;main;alone 2000000\napp;main;together 1000000\nworker;together 1000000\n"},
		{"cpu", Config{Output: emit.Options{Weight: emit.CPU}}, "app;main;alone 2000000\napp;main;together 2000000\nworker;together 2000000\n"},
		{"comm", Config{Filter: Filter{Comms: names(t, "worker")}}, "worker;together 1000000\n"},
		{"serial only", Config{Filter: Filter{Parallelism: ints(t, "1")}}, "app;main;alone 2000000\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := runText(t, twoThreads, tt.cfg)
			if err != nil || out != tt.want {
				t.Errorf("got (%v)\n%s\nwant\n%s", err, out, tt.want)
			}
		})
	}
}

// With --summary the story follows the warnings on Stderr; --quiet says
// nothing; --strict makes a LOST record the run's end, exit 1.
func TestRunVerdict(t *testing.T) {
	_, stderr, err := runText(t, twoThreads, Config{Summary: true})
	if err != nil || !strings.Contains(stderr, "no task events") || !strings.Contains(stderr, "average parallelism") ||
		strings.Index(stderr, "no task events") > strings.Index(stderr, "average parallelism") {
		t.Errorf("warning, then summary: (%v)\n%s", err, stderr)
	}
	if _, stderr, _ := runText(t, twoThreads, Config{Quiet: true}); stderr != "" {
		t.Errorf("--quiet: %q", stderr)
	}
	lost := twoThreads + "app    10     1.005000: PERF_RECORD_LOST lost 12\n"
	_, _, err = runText(t, lost, Config{Strict: true})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(ee.Msg, "test:") || !strings.Contains(ee.Msg, "12 records lost") {
		t.Errorf("--strict on a LOST record: %v", err)
	}
	if _, _, err := runText(t, "", Config{Strict: true}); !errors.As(err, &ee) || ee.Code != 1 {
		t.Errorf("--strict on an empty input: %v", err)
	}
}

func names(t *testing.T, s string) NameList {
	var l NameList
	if err := l.UnmarshalText([]byte(s)); err != nil {
		t.Fatal(err)
	}
	return l
}

func ints(t *testing.T, s string) IntList {
	var l IntList
	if err := l.UnmarshalText([]byte(s)); err != nil {
		t.Fatal(err)
	}
	return l
}

// Records stamped 0.000000 (perf's synthesized ones, or a thread that
// ran and ended before the clock was printed) come before the first timed
// one; their samples may be released before it. --split's windows still
// count from the first timed record (was: from 0, giving window 1000 for
// a trace at 1.0 s).
func TestRunSplitWindowsFromFirstTime(t *testing.T) {
	early := `app    12     0.000000:    1000000 cpu-clock:
	            4000 early+0x1 (/bin/app)

app    12     0.000000: PERF_RECORD_SWITCH OUT
app    13     0.000000:    1000000 cpu-clock:
	            4000 early+0x1 (/bin/app)

app    13     0.000000: PERF_RECORD_EXIT(13:13):(12:12)
`
	r, err := New(Config{Output: emit.Options{Format: emit.Pprof}, Split: 1e6, Quiet: true, Stderr: io.Discard},
		Input{R: strings.NewReader(early + twoThreads), Name: "test", Stdin: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Read(); err != nil {
		t.Fatal(err)
	}
	var wins []int
	if err := r.WriteEach(func(win int, write func(io.Writer) error) error {
		wins = append(wins, win)
		return write(io.Discard)
	}); err != nil {
		t.Fatal(err)
	}
	for _, w := range wins {
		if w < 0 || w > 4 {
			t.Errorf("windows %v: a trace of 4.5 ms in 1 ms windows has windows 0 to 4", wins)
			break
		}
	}
}

// TestCPUProfileReadsOnce: a CPU profile tracks no thread, so a file's
// first pass for its threads' processes is not read; a wall profile's is.
func TestCPUProfileReadsOnce(t *testing.T) {
	for _, w := range []emit.Weight{emit.CPU, emit.Wall} {
		passes := 0
		in := Input{R: strings.NewReader(twoThreads), Name: "test",
			Tasks: func(func(parse.TaskID)) error { passes++; return nil }}
		if _, err := New(Config{Output: emit.Options{Weight: w}, Quiet: true, Stderr: io.Discard}, in); err != nil {
			t.Fatal(err)
		}
		if want := map[emit.Weight]int{emit.CPU: 0, emit.Wall: 1}[w]; passes != want {
			t.Errorf("weight %v: %d first passes, want %d", w, passes, want)
		}
	}
}
