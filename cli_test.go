package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const goodSample = "phases  5756   273.126215:    1001001 cpu-clock: \n" +
	"\t            1205 spin_for+0x44 (/work/phases)\n" +
	"\t            1230 serial_phase+0x9 (/work/phases)\n\n"

func TestHostileInputs(t *testing.T) {
	long := strings.Repeat("x", 20<<20)
	tests := []struct {
		name   string
		in     string
		args   []string
		code   int
		stderr []string // substrings
		out    string   // exact, if not "*"
		outHas string
	}{
		{"empty", "", nil, 0, nil, "", ""},
		{"empty strict", "", []string{"--strict"}, 1, []string{"empty input", "perf script"}, "", ""},
		{"binary", "\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\n\x00\x00\xff\xfe\n", nil, 1, []string{"not perf script text", "line 1", "perf script"}, "", ""},
		{"folded by mistake", "a;b;c 12\nx;y 3\n", nil, 1, []string{"folded stacks", "perf script"}, "", ""},
		{"bad stack line drops its sample only",
			goodSample + "phases  5756   273.127214:    1001001 cpu-clock: \n\t            1205 spin_for+0x44 (/work/phases)\n\tTHIS_IS_WEIRD\n\t   1230 serial_phase+0x9 (/work/phases)\n\n" + goodSample,
			[]string{"--weight=cpu"}, 0, []string{"skipped 1 unparseable line", ":7:", "THIS_IS_WEIRD"},
			"phases;serial_phase;spin_for 2002002\n", ""},
		{"strict bad line", goodSample + "garbage here\n" + goodSample, []string{"--strict"}, 1, []string{":5: not a perf script line"}, "", ""},
		{"CRLF", strings.ReplaceAll(goodSample, "\n", "\r\n"), []string{"--weight=cpu"}, 0, nil, "phases;serial_phase;spin_for 1001001\n", ""},
		{"bare CR", strings.ReplaceAll(goodSample, "\n", "\r"), []string{"--weight=cpu"}, 0, nil, "phases;serial_phase;spin_for 1001001\n", ""},
		{"20 MB symbol", "c 1 1.0: 5 cpu-clock:\n\t1 " + long + " (/x)\n\n", []string{"--weight=cpu"}, 0, nil, "c;" + long + " 5\n", ""},
		{"NUL and invalid UTF-8", "c\x00 1 1.0: 5 cpu-clock:\n\t1 f\xff\xfe\x00g (/x)\n\n", []string{"--weight=cpu"}, 0, nil, "*", " 5\n"},
		{"negative period", "c 1 1.0: -5 cpu-clock:\n\t1 f (/x)\n\n" + goodSample, []string{"--weight=cpu"}, 0, []string{"skipped"}, "*", "spin_for 1001001\n"},
		{"absurd period", "c 1 1.0: 99999999999999999 cpu-clock:\n\t1 f (/x)\n\n" + goodSample, []string{"--weight=cpu"}, 0, []string{"absurd period"}, "phases;serial_phase;spin_for 1001001\n", ""},
		{"time goes backwards", strings.Replace(goodSample, "273.126215", "300.0", 1) + goodSample + strings.Replace(goodSample, "273.126215", "1.0", 1),
			[]string{"--weight=cpu"}, 0, nil, "phases;serial_phase;spin_for 3003003\n", ""},
		{"tid reappears after exit", goodSample + "phases  5756   273.2: PERF_RECORD_EXIT(5756:5756):(1:1)\n" + strings.Replace(goodSample, "273.126215", "273.5", 1),
			[]string{"--weight=cpu"}, 0, nil, "phases;serial_phase;spin_for 2002002\n", ""},
		{"bad flag", "", []string{"--no-such-flag"}, 2, []string{"unknown flag", "--help"}, "", ""},
		{"bad enum", "", []string{"-f", "xml"}, 2, []string{"folded"}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, stderr, code := wallfoldStdin(t, tt.in, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr %q", code, tt.code, stderr)
			}
			for _, s := range tt.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr %q lacks %q", stderr, s)
				}
			}
			if tt.out != "*" && out != tt.out {
				t.Errorf("output %.200q, want %.200q", out, tt.out)
			}
			if tt.outHas != "" && !strings.Contains(out, tt.outHas) {
				t.Errorf("output %.200q lacks %q", out, tt.outHas)
			}
		})
	}
}

func TestFileErrors(t *testing.T) {
	_, stderr, code := wallfold(t, "/no/such/trace.txt")
	if code != 2 || !strings.Contains(stderr, "/no/such/trace.txt") || !strings.Contains(stderr, "no such file") {
		t.Errorf("missing input: exit %d, %q", code, stderr)
	}
	_, stderr, code = wallfold(t, "-o", "/no/such/dir/out.folded", trace("phases.txt"))
	if code != 2 || !strings.Contains(stderr, "/no/such/dir") {
		t.Errorf("unwritable output: exit %d, %q", code, stderr)
	}
}

// -o writes a temporary file and renames it: a failed run leaves the old
// file alone and no debris.
func TestOutputFileAtomic(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "wall.folded")
	if err := os.WriteFile(out, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte(goodSample+"garbage\n"), 0o644)
	if _, _, code := wallfold(t, "--strict", "-o", out, bad); code != 1 {
		t.Fatalf("exit %d", code)
	}
	if b, _ := os.ReadFile(out); string(b) != "old\n" {
		t.Errorf("failed run changed the output: %q", b)
	}
	if _, _, code := wallfold(t, "-q", "-o", out, trace("phases.txt")); code != 0 {
		t.Fatalf("exit %d", code)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Errorf("debris in the output directory: %v", ents)
	}
	b, _ := os.ReadFile(out)
	parseFolded(t, string(b))
}

// A closed stdout (wallfold trace | head -1) ends the run quietly.
func TestClosedStdout(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "wallfold")
	if b, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, b)
	}
	// example-perf-stacks gives 600 kB of folded output: more than a pipe holds.
	for _, args := range [][]string{{"-q", "--addrs", "--weight=cpu", "testdata/corpus/flamegraph/example-perf-stacks.txt.gz"}, {"-q", "-f", "summary", trace("syswide.txt")}} {
		cmd := exec.Command(bin, args...)
		stdout, _ := cmd.StdoutPipe()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 10)
		io.ReadFull(stdout, buf)
		stdout.Close()
		err := cmd.Wait()
		if stderr.Len() > 0 {
			t.Errorf("%v: error text on a closed pipe: %q", args, stderr.String())
		}
		if err != nil {
			// The usual SIGPIPE death is fine; any other exit is not.
			if ee, ok := err.(*exec.ExitError); !ok || !strings.Contains(ee.String(), "broken pipe") {
				t.Errorf("%v: %v", args, err)
			}
		}
	}
}

// An empty input gives a valid, empty profile with the usual sample types.
func TestEmptyPprof(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.txt")
	os.WriteFile(empty, nil, 0o644)
	p := writeProfile(t, empty)
	if len(p.Sample) != 0 || p.SampleType[2].Type != "wall" || p.DefaultSampleType != "wall" {
		t.Errorf("samples %d, types %v, default %q", len(p.Sample), p.SampleType, p.DefaultSampleType)
	}
}
