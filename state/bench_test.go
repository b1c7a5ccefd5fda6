package state_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/wallfold/wallfold/parse"
	"github.com/wallfold/wallfold/state"
)

// rec is a record reduced to what the tracker needs.
type rec struct {
	kind       parse.Kind
	out        bool
	time       int64
	pid, tid   int
	cpu        int
	opid, otid int
	period     uint64
}

// benchRecords parses testdata/traces/phases.txt repeated to about 8 MB
// (so that MB/s compare with the reader's and the pipeline's) once, and
// returns its records and its size.
func benchRecords(b *testing.B) ([]rec, int) {
	b.Helper()
	one, err := os.ReadFile(filepath.Join("..", "testdata", "traces", "phases.txt"))
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	for buf.Len() < 8<<20 {
		buf.Write(one)
	}
	r := parse.NewReader(bytes.NewReader(buf.Bytes()), "bench")
	var recs []rec
	for r.Scan() {
		x := r.Record()
		recs = append(recs, rec{x.Kind, x.Out, x.Time, x.PID, x.TID, x.CPU, x.OtherPID, x.OtherTID, x.Period})
	}
	return recs, buf.Len()
}

// BenchmarkTracker is the state machine alone over a real trace's records
// (per-task, workload scope, time-based silence limit).
func BenchmarkTracker(b *testing.B) {
	recs, size := benchRecords(b)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		released := 0
		t := state.New(state.Config{Scope: state.Workload, Gap: 3 * 1001001}, func(s state.Sample, par int) { released++ })
		for j := range recs {
			x := &recs[j]
			switch x.kind {
			case parse.KindSample:
				t.Sample(state.Sample{Time: x.time, PID: x.pid, TID: x.tid, CPU: x.cpu, Period: x.period, Ref: j})
			case parse.KindSwitch:
				t.Switch(x.time, x.pid, x.tid, x.cpu, x.out)
			case parse.KindSwitchCPUWide:
				t.SwitchCPUWide(x.time, x.pid, x.tid, x.cpu, x.out, x.opid, x.otid)
			case parse.KindFork:
				t.Fork(x.time, x.opid, x.otid)
			case parse.KindExit:
				t.Exit(x.time, x.opid, x.otid)
			case parse.KindComm:
				t.Comm(x.time, x.opid, x.otid)
			default:
				t.Tick(x.time)
			}
		}
		t.Flush()
		if released == 0 {
			b.Fatal("nothing released")
		}
	}
}
