package emit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/wallfold/wallfold/parse"
	"github.com/wallfold/wallfold/state"
)

// newTimeline is the Chrome trace writer begun at first (the trace's
// start) on b, without Start's header, so that b holds the events alone
// (no off-CPU slices; names are never asked, every Ref being OtherEvent).
func newTimeline(b *bytes.Buffer, first int64) *traceWriter {
	tw := newTraceWriter(Options{Format: ChromeTrace})
	tw.w = bufio.NewWriter(b)
	tw.Begin(first, -1<<62, 1<<62)
	return tw
}

// timelineEvent is a trace event as chrome://tracing and Perfetto read
// it: ts and dur in µs; keys, the fields it has.
type timelineEvent struct {
	Ph, Name, Cat string
	PID, TID      int
	TS, Dur       float64
	Running       float64 // args.running of a counter
	keys          string
}

// timelineEvents flushes the writer and decodes what it wrote: events
// separated by ",\n", which Start and WriteTo put between "[" and
// "]".
func timelineEvents(t *testing.T, tw *traceWriter, b *bytes.Buffer) []timelineEvent {
	t.Helper()
	if err := tw.w.Flush(); err != nil || tw.err != nil {
		t.Fatal(err, tw.err)
	}
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte("["+b.String()+"]"), &raw); err != nil {
		t.Fatalf("not JSON events: %v\n%s", err, b.String())
	}
	var evs []timelineEvent
	for _, r := range raw {
		var e struct {
			Ph, Name, Cat string
			PID, TID      int
			TS, Dur       float64
			Args          struct{ Running float64 }
		}
		var fields map[string]any
		if err := json.Unmarshal(r, &e); err != nil {
			t.Fatal(err)
		}
		json.Unmarshal(r, &fields)
		keys := slices.Sorted(maps.Keys(fields))
		evs = append(evs, timelineEvent{e.Ph, e.Name, e.Cat, e.PID, e.TID, e.TS, e.Dur, e.Args.Running, strings.Join(keys, ",")})
	}
	return evs
}

// Keys of a slice (complete event) and a counter.
const (
	tlSliceKeys   = "cat,dur,name,ph,pid,tid,ts"
	tlCounterKeys = "args,name,ph,pid,ts"
)

// The events the writer should write: a process's counter, a thread's
// stretch on CPU, a stretch when one thread of a process ran alone.
func tlCounter(pid int, ts, n float64) timelineEvent {
	return timelineEvent{"C", "parallelism", "", pid, 0, ts, 0, n, tlCounterKeys}
}

func tlSlice(pid, tid int, ts, dur float64) timelineEvent {
	return timelineEvent{"X", "running", "cpu", pid, tid, ts, dur, 0, tlSliceKeys}
}

func tlSerial(pid int, name string, ts, dur float64) timelineEvent {
	return timelineEvent{"X", name, "serial", pid, 8388608 + pid, ts, dur, 0, tlSliceKeys}
}

// tlPar: a stretch when n threads of a process ran, on its parallelism
// track.
func tlPar(pid, n int, ts, dur float64) timelineEvent {
	return timelineEvent{"X", fmt.Sprintf("parallelism %d", n), "parallelism", pid, 16777216 + pid, ts, dur, 0, tlSliceKeys}
}

// timelineRun: two processes, 7 (threads 70, 71) and 8 (thread 80), and
// a thread that goes off without having been on; times in ns from the
// start.
var timelineRun = []state.Transition{
	{Time: 0, Group: 7, TID: 70, On: true},
	{Time: 100, Group: 7, TID: 90},
	{Time: 500, Group: 8, TID: 80, On: true},
	{Time: 1000, Group: 8, TID: 80, State: state.Blocked},
	{Time: 1500, Group: 7, TID: 71, On: true},
	{Time: 2000, Group: 7, TID: 70, State: state.Runnable},
	{Time: 3250, Group: 7, TID: 71},
}

func tlAdd(tw *traceWriter, first int64, trs []state.Transition) {
	for _, tr := range trs {
		tr.Time += first
		tr.PID, tr.Ref = tr.Group, state.OtherEvent
		tw.add(&tr)
	}
}

// TestTraceKnownEvents: each thread's stretch on CPU is a slice on its
// own track, ts and dur in µs from the trace's start; each process's
// counter says how many of its threads run whenever that changes, and
// its parallelism track has a slice for each stretch at one count; a
// stretch when one thread ran alone is a slice on the process's serial
// track (2^23 + pid), named by the thread. Events come as the
// transitions decide them.
func TestTraceKnownEvents(t *testing.T) {
	const first = 5_000_000_000
	var b bytes.Buffer
	tw := newTimeline(&b, first)
	tlAdd(tw, first, timelineRun)
	want := []timelineEvent{
		tlCounter(7, 0, 1),
		tlCounter(8, 0.5, 1),
		tlSlice(8, 80, 0.5, 0.5), tlPar(8, 1, 0.5, 0.5), tlCounter(8, 1, 0), tlSerial(8, "tid 80", 0.5, 0.5),
		tlPar(7, 1, 0, 1.5), tlCounter(7, 1.5, 2), tlSerial(7, "tid 70", 0, 1.5),
		tlSlice(7, 70, 0, 2), tlPar(7, 2, 1.5, 0.5), tlCounter(7, 2, 1),
		tlSlice(7, 71, 1.5, 1.75), tlPar(7, 1, 2, 1.25), tlCounter(7, 3.25, 0), tlSerial(7, "tid 71", 2, 1.25),
	}
	checkTimeline(t, timelineEvents(t, tw, &b), want)
}

// TestTraceWindow: with a time window (--time) the slices are cut to it,
// the counters outside it left out, and a process's first counter in it
// says what ran when it opened.
func TestTraceWindow(t *testing.T) {
	const first = 5_000_000_000
	var b bytes.Buffer
	tw := newTimeline(&b, first)
	tw.Begin(first, first+1000, first+3000)
	tlAdd(tw, first, timelineRun)
	want := []timelineEvent{
		tlCounter(8, 1, 0),
		tlPar(7, 1, 1, 0.5), tlCounter(7, 1, 1), tlCounter(7, 1.5, 2), tlSerial(7, "tid 70", 1, 0.5),
		tlSlice(7, 70, 1, 1), tlPar(7, 2, 1.5, 0.5), tlCounter(7, 2, 1),
		tlSlice(7, 71, 1.5, 1.5), tlPar(7, 1, 2, 1), tlSerial(7, "tid 71", 2, 1),
	}
	checkTimeline(t, timelineEvents(t, tw, &b), want)
}

func checkTimeline(t *testing.T, got, want []timelineEvent) {
	t.Helper()
	for i := range max(len(got), len(want)) {
		switch {
		case i >= len(got):
			t.Errorf("event %d missing: %+v", i, want[i])
		case i >= len(want):
			t.Errorf("event %d not expected: %+v", i, got[i])
		case got[i] != want[i]:
			t.Errorf("event %d: %+v\nwant      %+v", i, got[i], want[i])
		}
	}
}

// TestTraceWholeStream: the timeline as a run writes it (Start, Begin,
// Transitions, WriteTo) is one JSON document; with off-CPU, a thread's
// blocked stretch runs to the trace's end; processes and threads are
// named, threads by their stack's comm, the serial track by what ran.
func TestTraceWholeStream(t *testing.T) {
	w := New(Options{Format: ChromeTrace, OffCPU: true})
	tl := w.(Streamer)
	ref := w.Intern(&parse.Record{Comm: []byte("app"), PID: 7, TID: 70}, nil)
	var b bytes.Buffer
	tl.Start(&b)
	tl.Begin(1000, -1<<62, 1<<62)
	tl.Transitions([]state.Transition{
		{Time: 1000, Group: 7, PID: 7, TID: 70, On: true, Ref: int(ref)},
		{Time: 3000, Group: 7, PID: 7, TID: 70, State: state.Blocked, Ref: int(ref)},
	})
	if err := tl.WriteTo(&b, &End{Trace: state.Result{Scope: state.Process, First: 1000, Last: 5000}}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		DisplayTimeUnit string
		TraceEvents     []map[string]any
	}
	dec := json.NewDecoder(bytes.NewReader(b.Bytes()))
	dec.UseNumber() // ids as written
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("not one JSON document: %v\n%s", err, b.String())
	}
	var got []string
	for _, e := range doc.TraceEvents {
		s := fmt.Sprintf("%v %v pid=%v tid=%v", e["ph"], e["name"], e["pid"], e["tid"])
		if e["ph"] == "X" {
			s += fmt.Sprintf(" ts=%v dur=%v", e["ts"], e["dur"])
		}
		if args, ok := e["args"].(map[string]any); ok {
			s += fmt.Sprintf(" %v", args)
		}
		got = append(got, s)
	}
	want := []string{
		"C parallelism pid=7 tid=<nil> map[running:1]",
		"X running pid=7 tid=70 ts=0 dur=2",
		"X parallelism 1 pid=7 tid=16777223 ts=0 dur=2",
		"C parallelism pid=7 tid=<nil> map[running:0]",
		"X app-70 pid=7 tid=8388615 ts=0 dur=2",
		"X blocked pid=7 tid=70 ts=2 dur=2",
		"M process_name pid=7 tid=8388615 map[name:process 7]",
		"M thread_name pid=7 tid=8388615 map[name:serial (parallelism 1)]",
		"M thread_name pid=7 tid=16777223 map[name:parallelism (threads on CPU)]",
		"M thread_name pid=7 tid=70 map[name:app-70]",
	}
	if doc.DisplayTimeUnit != "ms" || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// BenchmarkTraceWriter: the timeline of 4 processes of 8 threads each
// switching on and off, written as the model hands it over; MB/s of
// JSON written.
func BenchmarkTraceWriter(b *testing.B) {
	trs := make([]state.Transition, 1<<16)
	on := map[int]bool{}
	for i := range trs {
		tid := 100 + (i*7919)%32
		on[tid] = !on[tid]
		trs[i] = state.Transition{Time: int64(i) * 1337, Group: tid / 8, PID: tid / 8, TID: tid, On: on[tid],
			Ref: state.OtherEvent}
	}
	var n countingWriter
	for b.Loop() {
		before := n
		tw := newTraceWriter(Options{Format: ChromeTrace})
		tw.Start(&n)
		tw.Begin(0, -1<<62, 1<<62)
		tw.Transitions(trs)
		if err := tw.WriteTo(&n, &End{Trace: state.Result{Scope: state.Process, Last: trs[len(trs)-1].Time}}); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(n - before))
	}
}

// countingWriter counts what it is given.
type countingWriter int

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}
