package emit

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"

	"github.com/wallfold/wallfold/state"
)

// The timeline as Chrome trace-event JSON (Perfetto UI, chrome://tracing,
// speedscope): per group a process with a counter track "parallelism" (its
// threads on CPU), per thread its stretches on CPU (and, with --off-cpu,
// blocked or runnable) as slices, and on a track "serial" the stretches
// when one thread ran alone, named by what ran. Events are written as the
// model decides them; memory holds only the open stretches and names.
// Timestamps are microseconds from the trace's first record.

type traceThread struct {
	group   int
	kind    string // "running", "blocked", "runnable"; "" when none is open
	since   int64
	last    int64 // the latest transition (stretches end no later)
	lastRef int
}

type traceGroup struct {
	running   map[int]bool
	count     int
	serialTID int   // the thread of the open serial stretch, -1: none
	serialAt  int64 // its start
	shown     bool  // a counter value in the window was written
}

// traceWriter is the ChromeTrace output: stacks name the threads and the
// serial stretches; Start, Begin and Transitions write the timeline while
// the trace is read, WriteTo ends it.
type traceWriter struct {
	*stackWriter
	offCPU  bool
	w       *bufio.Writer
	first   int64
	n       int // events written
	threads map[int]*traceThread
	groups  map[int]*traceGroup
	lo, hi  int64 // --time window
	err     error
}

func newTraceWriter(o Options) *traceWriter {
	return &traceWriter{stackWriter: newStackWriter(o), offCPU: o.OffCPU, threads: map[int]*traceThread{},
		groups: map[int]*traceGroup{}, lo: -1 << 62, hi: 1 << 62}
}

// Streamer is a Writer written while the trace is read: Start before the
// first record, Begin when the trace's first time is known, Transitions
// as the model decides them, then WriteTo on the same w ends it.
type Streamer interface {
	Writer
	Start(w io.Writer)
	Begin(first, lo, hi int64)
	Transitions(trs []state.Transition)
}

// Start begins the timeline on w.
func (t *traceWriter) Start(w io.Writer) {
	t.w = bufio.NewWriterSize(w, 256<<10)
	t.w.WriteString("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n")
}

// Begin sets the timeline's zero (the trace's first record) and the
// --time window [lo, hi] it shows.
func (t *traceWriter) Begin(first, lo, hi int64) {
	t.first = first
	t.lo, t.hi = lo, hi
}

func (t *traceWriter) event(v map[string]any) {
	if t.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.err = err
		return
	}
	if t.n > 0 {
		t.w.WriteString(",\n")
	}
	t.n++
	_, t.err = t.w.Write(b)
}

// us is trace time as the JSON's microseconds.
func (t *traceWriter) us(at int64) float64 { return float64(at-t.first) / 1e3 }

func (t *traceWriter) slice(g, tid int, name, cat string, from, to int64) {
	from, to = max(from, t.lo), min(to, t.hi)
	if to <= from {
		return
	}
	t.event(map[string]any{"ph": "X", "name": name, "cat": cat, "pid": g, "tid": tid,
		"ts": t.us(from), "dur": float64(to-from) / 1e3})
}

func (t *traceWriter) group(key int) *traceGroup {
	g := t.groups[key]
	if g == nil {
		g = &traceGroup{running: map[int]bool{}, serialTID: -1}
		t.groups[key] = g
	}
	return g
}

// Transitions writes what the transitions end and notes what they begin.
func (t *traceWriter) Transitions(trs []state.Transition) {
	for i := range trs {
		t.add(&trs[i])
	}
}

func (t *traceWriter) add(tr *state.Transition) {
	th := t.threads[tr.TID]
	if th == nil {
		th = &traceThread{group: tr.Group, lastRef: state.OtherEvent}
		t.threads[tr.TID] = th
	}
	if th.group != tr.Group && th.kind != "" {
		t.end(th, tr.TID, tr.Time) // it moved to another process
	}
	th.group = tr.Group
	if tr.Ref != state.OtherEvent {
		th.lastRef = tr.Ref
	}
	g := t.group(tr.Group)
	t.end(th, tr.TID, tr.Time)
	switch {
	case tr.On:
		th.kind, th.since = "running", tr.Time
		if !g.running[tr.TID] {
			g.running[tr.TID] = true
			t.count(g, tr.Group, tr.Time)
		}
	default:
		if g.running[tr.TID] {
			delete(g.running, tr.TID)
			t.count(g, tr.Group, tr.Time)
		}
		if t.offCPU && tr.State != state.OnCPU {
			th.kind, th.since = tr.State.String(), tr.Time
		}
	}
	th.last = tr.Time
}

// end closes th's open stretch at at.
func (t *traceWriter) end(th *traceThread, tid int, at int64) {
	if th.kind == "" {
		return
	}
	cat := "cpu"
	if th.kind != "running" {
		cat = "off-cpu"
	}
	t.slice(th.group, tid, th.kind, cat, th.since, at)
	th.kind = ""
}

// count writes the group's parallelism counter and opens or closes its
// serial stretch.
func (t *traceWriter) count(g *traceGroup, key int, at int64) {
	n := len(g.running)
	if n == g.count {
		return
	}
	old := g.count
	g.count = n
	if at >= t.lo && at <= t.hi {
		if !g.shown && at > t.lo && t.lo > -1<<62 {
			t.counter(key, t.lo, old) // what ran when the window opened
		}
		g.shown = true
		t.counter(key, at, n)
	}
	if g.serialTID >= 0 {
		t.slice(key, 0, t.serialName(g.serialTID), "serial", g.serialAt, at)
		g.serialTID = -1
	}
	if n == 1 {
		for tid := range g.running {
			g.serialTID, g.serialAt = tid, at
		}
	}
}

func (t *traceWriter) counter(key int, at int64, n int) {
	t.event(map[string]any{"ph": "C", "name": "parallelism", "pid": key, "ts": t.us(at),
		"args": map[string]any{"running": n}})
}

// serialName says what ran alone: the thread and its last sample's leaf.
func (t *traceWriter) serialName(tid int) string {
	name := "tid " + strconv.Itoa(tid)
	th := t.threads[tid]
	if th == nil || th.lastRef < 0 {
		return name
	}
	if comm := t.Comm(uint32(th.lastRef)); comm != "" {
		name = comm + "-" + strconv.Itoa(tid)
	}
	if frames := t.Frames(uint32(th.lastRef)); len(frames) > 0 {
		name += ": " + frames[len(frames)-1]
	}
	return name
}

// WriteTo closes the open stretches at the trace's end, names the
// processes and threads, and ends the JSON (on the writer of Start).
func (t *traceWriter) WriteTo(_ io.Writer, end *End) error {
	last := end.Trace.Last
	tids := slices.Sorted(maps.Keys(t.threads))
	for _, tid := range tids {
		th := t.threads[tid]
		t.end(th, tid, max(last, th.last))
	}
	for _, k := range slices.Sorted(maps.Keys(t.groups)) {
		g := t.groups[k]
		if g.serialTID >= 0 {
			t.slice(k, 0, t.serialName(g.serialTID), "serial", g.serialAt, last)
		}
		if !g.shown && g.count > 0 && t.lo > -1<<62 && t.lo <= last {
			t.counter(k, t.lo, g.count) // ran through the whole window
		}
		name := "workload"
		switch end.Trace.Scope {
		case state.Workload:
		case state.Thread:
			name = fmt.Sprintf("thread %d", k)
		default:
			name = fmt.Sprintf("process %d", k)
		}
		t.event(map[string]any{"ph": "M", "name": "process_name", "pid": k, "tid": 0, "args": map[string]any{"name": name}})
		t.event(map[string]any{"ph": "M", "name": "thread_name", "pid": k, "tid": 0, "args": map[string]any{"name": "serial (parallelism 1)"}})
	}
	for _, tid := range tids {
		th := t.threads[tid]
		name := "tid " + strconv.Itoa(tid)
		if th.lastRef >= 0 {
			if comm := t.Comm(uint32(th.lastRef)); comm != "" {
				name = comm + "-" + strconv.Itoa(tid)
			}
		}
		t.event(map[string]any{"ph": "M", "name": "thread_name", "pid": th.group, "tid": tid, "args": map[string]any{"name": name}})
	}
	if t.err != nil {
		return t.err
	}
	t.w.WriteString("\n]}\n")
	return t.w.Flush()
}
