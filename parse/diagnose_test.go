package parse

import (
	"strings"
	"testing"
)

// scanAll reads in to the end and returns its error records' messages and
// the number of other records.
func scanAll(in string) (r *Reader, errs []string, records int) {
	r = NewSequentialReader(strings.NewReader(in), "in.txt")
	for r.Scan() {
		if rec := r.Record(); rec.Kind == KindError {
			errs = append(errs, rec.Err.Error())
		} else {
			records++
		}
	}
	return r, errs, records
}

// A sample whose period is over 2^40 is a corrupt line: an error in its
// place, and its whole sample (stack lines too) is dropped.
func TestAbsurdPeriod(t *testing.T) {
	in := "phases  5756   273.125607:    1001001 cpu-clock:\n\t1205 spin_for+0x44 (/bin/phases)\n\n" +
		"phases  5756   273.126607:    99999999999999 cpu-clock:\n\t1205 spin_for+0x44 (/bin/phases)\n\t1230 main+0x9 (/bin/phases)\n\n" +
		"phases  5756   273.127607:    1099511627776 cpu-clock:\n\t1205 spin_for+0x44 (/bin/phases)\n\n"
	r, errs, records := scanAll(in)
	want := "in.txt:4: absurd period 99999999999999 (over 2^40): a corrupt line; its sample is dropped"
	if len(errs) != 1 || errs[0] != want {
		t.Errorf("errors %q, want [%q]", errs, want)
	}
	// 2^40 itself is still a period.
	if records != 2 || r.Skipped() != 1 {
		t.Errorf("%d records, %d skipped; want 2 and 1", records, r.Skipped())
	}
	ws := r.Warnings()
	if len(ws) != 1 || ws[0] != "skipped 1 unparseable line(s) (and the samples they were part of):\n  "+want+": \"phases  5756   273.126607:    99999999999999 cpu-clock:\"" {
		t.Errorf("Warnings() = %q", ws)
	}
	if _, _, n := scanAll("phases  5756   273.125607: PERF_RECORD_SWITCH IN\n"); n != 1 {
		t.Errorf("one record read as %d", n)
	}
}

func TestNotPerfScript(t *testing.T) {
	for _, tt := range []struct {
		name, in, want string
	}{
		{"perf script text", "phases  5756   273.125607: PERF_RECORD_SWITCH IN\n", ""},
		{"a record among bad lines", "garbage\nphases  5756   273.125607: PERF_RECORD_SWITCH IN\n", ""},
		{"empty", "", ""},
		{"comments only", "# perf script header\n#\n", ""},
		{"folded stacks", "main;f;g 12\nmain;h 3\n",
			"in.txt: no perf records in 2 line(s): it looks like folded stacks already (the output of a stack collapser), not perf script text (line 1: \"main;f;g 12\"); " + howToConvert},
		{"other text", "hello world\n",
			"in.txt: no perf records in 1 line(s): it is not perf script text (line 1: \"hello world\"); " + howToConvert},
		{"perf.data", "PERFILE2\x68\x00\x00\x00\x00\x00\x00\x00binary\nmore\n",
			"in.txt: this is a perf.data file, not perf script text; convert it first: perf script -i in.txt --show-switch-events --show-task-events | wallfold"},
	} {
		r, _, _ := scanAll(tt.in)
		got := ""
		if err := r.NotPerfScript(); err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%s: NotPerfScript() = %q, want %q", tt.name, got, tt.want)
		}
		if empty := tt.in == "" || strings.HasPrefix(tt.in, "#"); r.Empty() != empty {
			t.Errorf("%s: Empty() = %v", tt.name, r.Empty())
		}
	}
}
