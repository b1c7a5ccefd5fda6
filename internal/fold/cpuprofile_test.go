package fold

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wallfold/wallfold/emit"
	"github.com/wallfold/wallfold/parse"
)

// shippedTraces are the repository's perf script traces.
func shippedTraces(t *testing.T) []string {
	t.Helper()
	var all []string
	for _, g := range []string{"traces/*.txt", "traces/*.txt.gz", "order/*.txt.gz", "spin/*.txt.gz",
		"offcpu/*.txt.gz", "offcpu2/*.txt.gz", "corpus/*/*.txt", "corpus/*/*.txt.gz"} {
		m, err := filepath.Glob(filepath.Join("..", "..", "testdata", g))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, m...)
	}
	if len(all) < 40 {
		t.Fatalf("%d traces found: the testdata moved?", len(all))
	}
	return all
}

// readTrace returns a trace's text, gunzipped.
func readTrace(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(path, ".gz") {
		return b
	}
	z, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	text, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return text
}

// periodsByStack counts a CPU profile from the records alone: each
// sample of the profiled event (the first sample's that is neither a
// block stack nor a wakeup) adds its period to its stack, named as the
// folded output names it (comm, then the frames root first).
func periodsByStack(text []byte) map[string]uint64 {
	sums := map[string]uint64{}
	names := newThreadNames()
	var event []byte
	var parts []string
	r := parse.NewReader(bytes.NewReader(text), "t")
	for r.Scan() {
		rec := r.Record()
		names.fix(rec)
		if rec.Kind != parse.KindSample {
			continue
		}
		if event == nil {
			switch string(rec.Event) {
			case "sched:sched_switch", "sched:sched_wakeup", "sched:sched_wakeup_new":
				continue
			}
			event = unmodified(rec.Event)
		}
		if !bytes.Equal(unmodified(rec.Event), event) {
			continue
		}
		java := string(rec.Comm) == "java"
		parts = append(parts[:0], strings.ReplaceAll(string(rec.Comm), " ", "_"))
		frames := rec.Stack.Frames()
		for i := len(frames) - 1; i >= 0; i-- {
			parts = emit.FrameNames(parts, &frames[i], java, emit.NameOptions{})
		}
		sums[strings.Join(parts, ";")] += rec.Period
	}
	return sums
}

// unmodified is an event's name without perf's modifiers (cycles:u is
// cycles).
func unmodified(ev []byte) []byte {
	i := bytes.LastIndexByte(ev, ':')
	if i < 0 || strings.Trim(string(ev[i+1:]), "ukhIGHpPSDWe") != "" {
		return append([]byte(nil), ev...)
	}
	return append([]byte(nil), ev[:i]...)
}

// parseFolded reads folded lines into their weights.
func parseFolded(t *testing.T, out string) map[string]uint64 {
	t.Helper()
	m := map[string]uint64{}
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		n, err := strconv.ParseUint(line[i+1:], 10, 64)
		if err != nil {
			t.Fatalf("folded line %q: %v", line, err)
		}
		m[line[:i]] += n
	}
	return m
}

// modelPath is cfg with a filter that keeps every sample but reads each
// one's parallelism: the run goes through the thread model.
func modelPath(t *testing.T, cfg Config) Config {
	t.Helper()
	if err := cfg.Filter.Parallelism.UnmarshalText([]byte("0-")); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// wallWarnings are the warnings of the wall estimate, which a CPU
// profile does not owe.
var wallWarnings = []string{"no PERF_RECORD_SWITCH records", "no task events (", "thread(s) were named to their process only after",
	"process scope, but", "written out of order by CPUs whose clocks disagree", "quiet thread(s) were forgotten whole",
	"(silence says nothing)", "are spin-waits", "of the wall time on CPU"}

func isWallWarning(line string) bool {
	for _, w := range wallWarnings {
		if strings.Contains(line, w) {
			return true
		}
	}
	return false
}

// cutStacks is the warning of stacks cut by the unwinder, by wall time
// or (a CPU profile) by CPU time.
const cutStacks = "do not reach a thread's start"

// inputWarnings are the lines of stderr that are neither wall warnings
// nor the cut stacks' (which a CPU profile weighs by CPU time).
func inputWarnings(stderr string) []string {
	var ws []string
	for _, l := range strings.Split(stderr, "\n") {
		if l != "" && !isWallWarning(l) && !strings.Contains(l, cutStacks) {
			ws = append(ws, l)
		}
	}
	return ws
}

// TestCPUProfileNoModel: folded --weight=cpu, which takes no thread
// model, has each stack at the sum of its samples' periods (counted here
// from the records) on every shipped trace, the same bytes as the run
// through the model, and the same warnings but those of the wall
// estimate (the cut stacks' on the same traces, by CPU time).
func TestCPUProfileNoModel(t *testing.T) {
	cfg := Config{Output: emit.Options{Format: emit.Folded, Weight: emit.CPU}}
	through := modelPath(t, cfg)
	if !cfg.cpuProfile() || through.cpuProfile() {
		t.Fatal("cpuProfile: want the plain run without the model, the one with --parallelism through it")
	}
	for _, path := range shippedTraces(t) {
		text := string(readTrace(t, path))
		fast, fastErr, err := runText(t, text, cfg)
		model, modelErr, merr := runText(t, text, through)
		if err != nil || merr != nil { // not perf script (the corpus's MANIFEST)
			if err == nil || merr == nil || err.Error() != merr.Error() {
				t.Errorf("%s: %v, through the model %v", path, err, merr)
			}
			continue
		}
		if fast != model {
			t.Errorf("%s: folded --weight=cpu differs from the model's run", path)
		}
		want, got := periodsByStack([]byte(text)), parseFolded(t, fast)
		if len(got) != len(want) {
			t.Errorf("%s: %d stacks, want %d", path, len(got), len(want))
		}
		for s, n := range want {
			if got[s] != n {
				t.Errorf("%s: %s: %d, want the sum of its periods %d", path, s, got[s], n)
				break
			}
		}
		for _, l := range strings.Split(fastErr, "\n") {
			if isWallWarning(l) {
				t.Errorf("%s: a CPU profile warns of the wall estimate: %s", path, l)
			}
		}
		if strings.Contains(fastErr, cutStacks) != strings.Contains(modelErr, cutStacks) {
			t.Errorf("%s: the cut stacks' warning by CPU time differs from the one by wall time:\n%s\nwant\n%s", path, fastErr, modelErr)
		}
		if a, b := strings.Join(inputWarnings(fastErr), "\n"), strings.Join(inputWarnings(modelErr), "\n"); a != b {
			t.Errorf("%s: the input's warnings differ from the model run's:\n%s\nwant\n%s", path, a, b)
		}
	}
}

// TestCPUProfileInputWarnings: what the input lacks is still said in a
// CPU profile: lost records, records out of time order (a trace twice),
// a bad line, other events skipped.
func TestCPUProfileInputWarnings(t *testing.T) {
	trace := string(readTrace(t, filepath.Join("..", "..", "testdata", "traces", "phases.txt")))
	i := strings.Index(trace, "\n\n") + 2 // after the first sample
	lost := "phases  5756   273.200000: PERF_RECORD_LOST lost 120\n\ngarbage line\n\n"
	other := "phases  5756   273.210000:          1 cycles: \n\t1000 main+0x1 (/bin/phases)\n\n"
	text := trace[:i] + lost + other + trace[i:] + trace
	cfg := Config{Output: emit.Options{Format: emit.Folded, Weight: emit.CPU}}
	_, stderr, err := runText(t, text, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"1 PERF_RECORD_LOST record(s): 120 records lost", "records are not one trace in time order",
		"unparseable line(s)", "skipped other events: cycles (1 samples)"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("no warning %q in:\n%s", w, stderr)
		}
	}
}

// A CPU profile of stacks cut by the unwinder says so by CPU time: the
// warning names the samples as counted here, the CPU time (1 ms periods
// of cpu-clock) and both remedies.
func TestCPUProfileCutStacks(t *testing.T) {
	text := readTrace(t, filepath.Join("testdata", "shortstack", "omitfp.g.txt.gz"))
	samples, cut := countCutStacks(text)
	_, stderr, err := runText(t, string(text), Config{Output: emit.Options{Format: emit.Folded, Weight: emit.CPU}})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%% of the CPU time (%.3f s of ", float64(cut)*0.001001001)
	if strings.Count(stderr, cutStacks) != 1 || !strings.Contains(stderr, want) ||
		!strings.Contains(stderr, fmt.Sprintf("%d of %d samples", cut, samples)) || !strings.Contains(stderr, "--call-graph dwarf") {
		t.Fatalf("want one warning with %q, %d of %d samples, got:\n%s", want, cut, samples, stderr)
	}
}
