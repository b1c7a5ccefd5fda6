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
	// keys: its slices' pid and tid as JSON (trackKeys), made for
	// keysGroup; serialName: its serial stretches' name as JSON, made
	// for serialRef (-2: none yet).
	keys       []byte
	keysGroup  int
	serialName []byte
	serialRef  int
}

type traceGroup struct {
	running   map[int]bool
	count     int
	serialTID int   // the thread of the open serial stretch, -1: none
	serialAt  int64 // its start
	shown     bool  // a counter value in the window was written
	countAt   int64 // when count took its value
	// its tracks' and counter's pid and tid as JSON
	serialKeys, parKeys, counterKeys []byte
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

func (t *traceWriter) group(key int) *traceGroup {
	g := t.groups[key]
	if g == nil {
		pid := tracePID(key)
		g = &traceGroup{running: map[int]bool{}, serialTID: -1,
			serialKeys: appendTrackKeys(nil, pid, serialTrack(pid)), parKeys: appendTrackKeys(nil, pid, parallelismTrack(pid)),
			counterKeys: appendCounterKeys(nil, pid)}
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
		th = &traceThread{group: tr.Group, lastRef: state.OtherEvent, serialRef: -2}
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
			t.count(g, tr.Time)
		}
	default:
		if g.running[tr.TID] {
			delete(g.running, tr.TID)
			t.count(g, tr.Time)
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
	if th.keys == nil || th.keysGroup != th.group {
		th.keys, th.keysGroup = appendTrackKeys(th.keys[:0], tracePID(th.group), tid), th.group
	}
	if b, from, ok := t.head(cat, th.since, at); ok {
		t.finish(appendJSONString(b, th.kind), th.keys, from)
	}
	th.kind = ""
}

// count writes the group's parallelism counter and opens or closes its
// serial stretch.
func (t *traceWriter) count(g *traceGroup, at int64) {
	n := len(g.running)
	if n == g.count {
		return
	}
	old := g.count
	if old > 0 {
		t.parallelism(g, old, g.countAt, at)
	}
	g.count, g.countAt = n, at
	if at >= t.lo && at <= t.hi {
		if !g.shown && at > t.lo && t.lo > -1<<62 {
			t.counter(g, t.lo, old) // what ran when the window opened
		}
		g.shown = true
		t.counter(g, at, n)
	}
	if g.serialTID >= 0 {
		t.serial(g, g.serialTID, g.serialAt, at)
		g.serialTID = -1
	}
	if n == 1 {
		for tid := range g.running {
			g.serialTID, g.serialAt = tid, at
		}
	}
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
			t.serial(g, g.serialTID, g.serialAt, last)
		}
		if g.count > 0 {
			t.parallelism(g, g.count, g.countAt, last)
		}
		if !g.shown && g.count > 0 && t.lo > -1<<62 && t.lo <= last {
			t.counter(g, t.lo, g.count) // ran through the whole window
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
