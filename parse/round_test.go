package parse

import (
	"fmt"
	"strings"
	"testing"
)

// Was a bug (fixed): perf script --show-round-events prints a bare
// "PERF_RECORD_FINISHED_ROUND" line each time perf record ended a pass over
// its ring buffers; it was an unparseable line (skipped with a warning, an
// error with --strict). Now it is a KindRound record in its place (the
// model orders records by them), in both readers.
func TestReaderRoundRecord(t *testing.T) {
	in := "phases  5756   273.125570: PERF_RECORD_SWITCH OUT preempt\n" +
		"PERF_RECORD_FINISHED_ROUND\n" +
		"phases  5756   273.125607:    1001001 cpu-clock: \n\t    1205 spin_for+0x44 (/work/phases)\n\n" +
		"PERF_RECORD_FINISHED_ROUND  \n" +
		"PERF_RECORD_FINISHED_ROUNDS\n"
	for _, concurrent := range []bool{false, true} {
		r := newReader(strings.NewReader(in), "f", concurrent)
		var got []string
		for r.Scan() {
			rec := r.Record()
			got = append(got, fmt.Sprintf("%v:%d", rec.Kind, rec.Line))
			if rec.Kind == KindRound && (rec.HasTime || rec.TID != -1 || rec.CPU != -1) {
				t.Errorf("round record %+v has prefix fields", rec)
			}
		}
		want := "switch:1 round:2 sample:3 round:6 error:7"
		if s := strings.Join(got, " "); s != want || r.Skipped() != 1 {
			t.Errorf("concurrent %v: records %s, skipped %d; want %s, 1 skipped", concurrent, s, r.Skipped(), want)
		}
	}
}
