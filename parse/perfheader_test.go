package parse

import (
	"strings"
	"testing"
	"time"
)

// perf script --header as perf 6.1 prints it (abridged).
const headerText = `# ========
# captured on    : Thu Dec  3 06:24:41 2026
# header version : 1
# hostname : vm
# cmdline : /usr/bin/perf record -q -e cpu-clock -F 999 -g -o /tmp/h.data -- sleep 0.2 
# time of first sample : 897.161359
# time of last sample : 897.361359
# sample duration :    200.000 ms
# ========
#
sleep  6001 897.161359:    1001001 cpu-clock: 
	ffffffff8100 native_write_msr+0x4 ([kernel.kallsyms])

`

func TestPerfHeaderFromReader(t *testing.T) {
	for _, conc := range []bool{false, true} {
		r := newReader(strings.NewReader(headerText), "h.txt", conc)
		var h PerfHeader
		var kinds []Kind
		for r.Scan() {
			rec := r.Record()
			kinds = append(kinds, rec.Kind)
			if rec.Kind == KindHeader && !h.Add(rec) {
				t.Errorf("line %d: header record not used: %q", rec.Line, rec.Payload)
			}
		}
		want := time.Date(2026, 12, 3, 6, 24, 41, 0, time.Local)
		if !h.CapturedOn.Equal(want) {
			t.Errorf("concurrent=%v: CapturedOn %v, want %v", conc, h.CapturedOn, want)
		}
		if h.FirstSample != 897161359000 || h.LastSample != 897361359000 {
			t.Errorf("concurrent=%v: first %d last %d", conc, h.FirstSample, h.LastSample)
		}
		if len(kinds) != 4 || kinds[3] != KindSample {
			t.Errorf("concurrent=%v: records %v, want 3 header lines and the sample", conc, kinds)
		}
	}
}

func TestPerfHeaderBadLines(t *testing.T) {
	for _, line := range []string{
		"# captured on    : yesterday",
		"# time of first sample : -3",
		"# time of last sample : 12.x",
	} {
		var h PerfHeader
		if h.Add(&Record{Kind: KindHeader, Payload: []byte(line)}) {
			t.Errorf("%q taken: %+v", line, h)
		}
	}
}
