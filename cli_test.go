package main

// The command line and its exit status: hostile or odd input on stdin,
// bad flags, an input or an output that cannot be opened.

import (
	"reflect"
	"strings"
	"testing"

	"github.com/wallfold/wallfold/emit"
)

// TestFormatEnums: the -f flags' enums, spelled out in their tags (a kong
// variable is interpolated again for every flag: 14 % of an empty run's
// instructions for two of them), are emit's formats, no more and no less.
func TestFormatEnums(t *testing.T) {
	for _, c := range []struct {
		cmd  any
		want string
	}{{ConvertCmd{}, emit.FormatNames()}, {RecordCmd{}, "," + emit.FormatNames()}} {
		f, _ := reflect.TypeOf(c.cmd).FieldByName("Format")
		if got := f.Tag.Get("enum"); got != c.want {
			t.Errorf("%T's -f enum %q, want %q", c.cmd, got, c.want)
		}
	}
}

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
		{"20 MB symbol", "c 1 1.0: 5 cpu-clock:\n\t1 " + long + " (/x)\n\n" + goodSample, []string{"--weight=cpu"}, 0, []string{":2: line of 20971528 bytes, over the limit"}, "phases;serial_phase;spin_for 1001001\n", ""},
		{"20 MB of NULs", strings.Repeat("\x00", 20<<20), nil, 1, []string{"line 1: line of 20971520 bytes, over the limit", "without line ends"}, "", ""},
		{"2 MB symbol", "c 1 1.0: 5 cpu-clock:\n\t1 " + long[:2<<20] + " (/x)\n\n", []string{"--weight=cpu"}, 0, nil, "c;" + long[:2<<20] + " 5\n", ""},
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
