package parse

import (
	"reflect"
	"strings"
	"testing"
)

func TestScanTaskIDs(t *testing.T) {
	scan := func(text string) []TaskID {
		var got []TaskID
		if err := ScanTaskIDs(strings.NewReader(text), func(id TaskID) { got = append(got, id) }); err != nil {
			t.Fatal(err)
		}
		return got
	}
	// System-wide, no pid column: the facts come from side-band lines,
	// also after the first sample.
	sys := `swapper     0 [000]     0.000000: PERF_RECORD_FORK(7:7):(1:1)
make     7 [001]    10.000000: PERF_RECORD_COMM exec: make:7/7
cc1     31 [001]    10.100000:    1001001 cpu-clock: 
	     1205 spin+0x4 (/x)

make     7 [000]    10.200000: PERF_RECORD_SWITCH_CPU_WIDE OUT preempt  next pid/tid:    30/31   
make     7 [000]    10.300000: PERF_RECORD_FORK(30:30):(7:7)
`
	want := []TaskID{
		{PID: 7, TID: 7, ParentPID: -1}, {PID: 7, TID: -1, ParentPID: 1},
		{PID: 7, TID: 7, ParentPID: -1},
		{PID: 30, TID: 31, ParentPID: -1},
		{PID: 30, TID: 30, ParentPID: -1}, {PID: 30, TID: -1, ParentPID: 7},
	}
	if got := scan(sys); !reflect.DeepEqual(got, want) {
		t.Errorf("system-wide:\n got %v\nwant %v", got, want)
	}
	// A pid column, or no CPU column (per-task): nothing a first pass
	// adds; it stops at the first sample.
	for name, text := range map[string]string{
		"pid column": "cc1  30/31 [001] 10.1: 1001001 cpu-clock: \n\n" +
			"make 7/7 [000] 10.2: PERF_RECORD_FORK(40:40):(7:7)\n",
		"per-task": "cc1  31 10.1: 1001001 cpu-clock: \n\n" +
			"make 7 10.2: PERF_RECORD_FORK(40:40):(7:7)\n",
	} {
		if got := scan(text); len(got) != 0 {
			t.Errorf("%s: %v, want nothing after the first sample", name, got)
		}
	}
}
