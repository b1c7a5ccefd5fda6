package emit

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"

	"github.com/wallfold/wallfold/state"
)

// The timeline as Chrome trace-event JSON (Perfetto UI, chrome://tracing,
// speedscope): per group a process with a counter "parallelism" (its
// threads on CPU) and the same as slices on a track of its own (speedscope
// shows no counters), per thread its stretches on CPU (and, with
// --off-cpu, blocked or runnable) as slices, and on a track "serial" the
// stretches when one thread ran alone, named by what ran. Events are
// written as the model decides them; memory holds only the open stretches
// and names. Timestamps are microseconds from the trace's first record.
//
// Ids: no event has pid or tid 0 (Perfetto takes 0 for the idle task, and
// its UI long merged tid 0 with tid 1). A group that is a process or a
// thread (--scope=process, thread; --tree's root) keeps its real id as
// pid, a thread its real tid. A group without one (the workload, key 0;
// the threads outside --tree, key -1) gets taskIDLimit - key. A group's
// own tracks take ids no task has: 2*taskIDLimit + pid (serial) and
// 4*taskIDLimit + pid (parallelism); Perfetto names threads by tid
// alone, so each group's must differ.

// taskIDLimit is Linux's PID_MAX_LIMIT: no task id reaches it.
const taskIDLimit = 1 << 22

// tracePID is the JSON pid of group key.
func tracePID(key int) int {
	if key > 0 {
		return key
	}
	return taskIDLimit - key
}

func serialTrack(pid int) int      { return 2*taskIDLimit + pid }
func parallelismTrack(pid int) int { return 4*taskIDLimit + pid }

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
	countAt   int64 // when count took its value
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

// next is the output buffer's free space to append the next event to,
// after the separator from the one before; ok is false after an error.
func (t *traceWriter) next() (b []byte, ok bool) {
	if t.err != nil {
		return nil, false
	}
	b = t.w.AvailableBuffer()
	if t.n > 0 {
		b = append(b, ",\n"...)
	}
	t.n++
	return b, true
}

// put writes an event appended to next's buffer.
func (t *traceWriter) put(b []byte) { _, t.err = t.w.Write(b) }

// slice writes a stretch of thread tid of group g, cut to the window.
func (t *traceWriter) slice(g, tid int, name, cat string, from, to int64) {
	t.stretch(g, tid, cat, from, to, name, 0)
}

// serial writes a stretch when thread alone ran alone in group g, on the
// group's serial track, named by what ran.
func (t *traceWriter) serial(g, alone int, from, to int64) {
	t.stretch(g, serialTrack(tracePID(g)), "serial", from, to, "", alone)
}

// parallelism writes a stretch when n threads of group g ran, on the
// group's parallelism track: the counter as slices, for viewers that
// show no counters (speedscope).
func (t *traceWriter) parallelism(g, n int, from, to int64) {
	t.stretch(g, parallelismTrack(tracePID(g)), "parallelism", from, to, "", n)
}

// stretch is slice, serial (its name: what thread x ran) or parallelism
// (its name: "parallelism x").
func (t *traceWriter) stretch(g, tid int, cat string, from, to int64, name string, x int) {
	from, to = max(from, t.lo), min(to, t.hi)
	if to <= from {
		return
	}
	b, ok := t.next()
	if !ok {
		return
	}
	b = appendSliceHead(b, cat, to-from)
	switch cat {
	case "serial":
		b = t.appendSerialName(b, x)
	case "parallelism":
		b = strconv.AppendInt(append(b, `"parallelism `...), int64(x), 10)
		b = append(b, '"')
	default:
		b = appendJSONString(b, name)
	}
	t.put(appendSliceTail(b, tracePID(g), tid, from-t.first))
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
	if old > 0 {
		t.parallelism(key, old, g.countAt, at)
	}
	g.count, g.countAt = n, at
	if at >= t.lo && at <= t.hi {
		if !g.shown && at > t.lo && t.lo > -1<<62 {
			t.counter(key, t.lo, old) // what ran when the window opened
		}
		g.shown = true
		t.counter(key, at, n)
	}
	if g.serialTID >= 0 {
		t.serial(key, g.serialTID, g.serialAt, at)
		g.serialTID = -1
	}
	if n == 1 {
		for tid := range g.running {
			g.serialTID, g.serialAt = tid, at
		}
	}
}

func (t *traceWriter) counter(key int, at int64, n int) {
	if b, ok := t.next(); ok {
		t.put(appendCounterEvent(b, tracePID(key), at-t.first, n))
	}
}

// name writes a metadata event naming a process or a track.
func (t *traceWriter) name(kind string, pid, tid int, name string) {
	if b, ok := t.next(); ok {
		t.put(appendNameEvent(b, kind, pid, tid, name))
	}
}

// appendSerialName appends, quoted, what ran alone: the thread and its
// last sample's leaf ("cc1-42: memset", "tid 42" when no sample named
// it). The stack's names are read in place: serial stretches are many.
func (t *traceWriter) appendSerialName(b []byte, tid int) []byte {
	b = append(b, '"')
	var frames []uint32
	if th := t.threads[tid]; th != nil && th.lastRef >= 0 {
		frames = t.stacks.Frames(uint32(th.lastRef))
	}
	if comm := t.rootName(frames); comm != "" {
		b = appendJSONChars(b, comm)
		b = append(b, '-')
	} else {
		b = append(b, "tid "...)
	}
	b = strconv.AppendInt(b, int64(tid), 10)
	if len(frames) > 1 {
		b = append(b, ": "...)
		b = appendJSONChars(b, t.stacks.Name(frames[len(frames)-1]))
	}
	return append(b, '"')
}

// rootName is the name of a stack's root, its thread's comm ("" for none).
func (t *traceWriter) rootName(frames []uint32) string {
	if len(frames) == 0 {
		return ""
	}
	return t.stacks.Name(frames[0])
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
			t.serial(k, g.serialTID, g.serialAt, last)
		}
		if g.count > 0 {
			t.parallelism(k, g.count, g.countAt, last)
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
		pid := tracePID(k)
		t.name("process_name", pid, serialTrack(pid), name)
		t.name("thread_name", pid, serialTrack(pid), "serial (parallelism 1)")
		t.name("thread_name", pid, parallelismTrack(pid), "parallelism (threads on CPU)")
	}
	for _, tid := range tids {
		th := t.threads[tid]
		name := "tid " + strconv.Itoa(tid)
		if th.lastRef >= 0 {
			if comm := t.Comm(uint32(th.lastRef)); comm != "" {
				name = comm + "-" + strconv.Itoa(tid)
			}
		}
		t.name("thread_name", tracePID(th.group), tid, name)
	}
	if t.err != nil {
		return t.err
	}
	t.w.WriteString("\n]}\n")
	return t.w.Flush()
}
