package main

import (
	"bytes"
	"fmt"
	"io"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/wallfold/wallfold/emit"
	"github.com/wallfold/wallfold/parse"
	"github.com/wallfold/wallfold/state"
)

type config struct {
	weightCPU  bool
	scope      string // auto, workload, process
	event      string
	pid, tid   bool
	kernel     bool
	jit        bool
	addrs      bool
	gapPeriods float64 // silence limit in sampling periods (0: default)
	pprof      bool    // build a pprof profile instead of folded totals
	summary    bool    // gather the parallelism summary

	// Output filters: parallelism is computed from all records, only
	// what is written is filtered.
	parList  *intList
	comms    map[string]bool
	pids     *intList
	tids     *intList
	window   *timeWindow
	lastTime int64 // trace end when known beforehand (for % windows)
	parFrame bool  // root frame "[parallelism N]"
	strict   bool  // bad lines and lost records are errors
	// sequential parses on the caller's goroutine: in a pipe the second
	// CPU belongs to perf script (measured: the background reader is
	// 28 % faster on a file, 7-13 % slower behind perf script).
	sequential bool
}

// maxPeriod bounds a sample's period (2^40 ns is 18 minutes): beyond it
// the line is corrupt, and sums could overflow.
const maxPeriod = 1 << 40

// silencePeriods is how many sampling periods of silence end a running
// thread: a thread on a CPU is sampled once a period, with some jitter.
const silencePeriods = 3

// pipeline wires parse -> state -> emit for one run.
type pipeline struct {
	cfg     config
	stacks  *emit.Stacks
	totals  emit.Totals
	tracker *state.Tracker
	scope   state.Scope

	event       []byte // the selected event, once known
	otherEvents map[string]int
	root        []byte
	rootID      uint32
	rootOK      bool
	lastComm    []byte
	lastPID     int
	lastTID     int

	reader *parse.Reader
	name   string

	prof   *emit.Profile
	refs   [][2]uint32 // pprof mode: Ref -> (stack, comm)
	refID  map[[2]uint32]int
	period int64 // first sample's period

	sum         map[int]*sumGroup
	idleCPU     float64 // summary: idle samples, left out of the groups
	idleSamples int
	parRoot     map[[2]uint32]uint32 // (par name, stack) -> stack with it as root
	deferred    []deferredSample     // % time windows on a pipe: applied at the end
	deferAll    bool
	winLo       int64
	winHi       int64
	winSet      bool

	lookahead    bool
	scopePending bool
	sawCPU       bool
	ahead        ring

	samples     int
	cpuIn       uint64 // sum of the periods of the samples kept
	absurd      int    // samples dropped for an absurd period
	absurdLine  int
	records     int
	strictErr   error
	firstTime   int64
	lastTime    int64
	haveTime    bool
	timeBased   bool
	eventSeen   bool
	gapSet      bool
	noGapReason string
}

func newPipeline(cfg config) *pipeline {
	p := &pipeline{
		cfg:         cfg,
		stacks:      emit.NewStacks(emit.NameOptions{Addrs: cfg.addrs, Kernel: cfg.kernel, JIT: cfg.jit}),
		otherEvents: make(map[string]int),
	}
	if cfg.event != "" {
		p.event = []byte(cfg.event)
	}
	if cfg.summary {
		p.sum = make(map[int]*sumGroup)
	}
	if cfg.parFrame {
		p.parRoot = make(map[[2]uint32]uint32)
	}
	if cfg.window != nil && cfg.window.percent && cfg.lastTime == 0 {
		p.deferAll = true // the span is known only at the end
	}
	if cfg.pprof {
		p.prof = emit.NewProfile(emit.NameOptions{Addrs: cfg.addrs, Kernel: cfg.kernel, JIT: cfg.jit})
		p.refID = make(map[[2]uint32]int)
	}
	return p
}

// isTimeEvent reports events whose period is time in nanoseconds.
func isTimeEvent(ev []byte) bool {
	ev = eventBase(ev)
	return string(ev) == "cpu-clock" || string(ev) == "task-clock"
}

// eventBase strips perf's event modifiers ("cycles:u" -> "cycles",
// "cpu-clock:uhH" -> "cpu-clock") but keeps tracepoint names whole
// ("sched:sched_switch").
func eventBase(ev []byte) []byte {
	i := bytes.LastIndexByte(ev, ':')
	if i < 0 {
		return ev
	}
	for _, c := range ev[i+1:] {
		if bytes.IndexByte([]byte("ukhHGIpPSDWeb"), c) < 0 {
			return ev
		}
	}
	return ev[:i]
}

// eventMatches compares a sample's event with the selected one: exactly
// when the selection names modifiers, else by base name, as inferno does
// ("cycles" matches "cycles:u").
func eventMatches(ev, want []byte) bool {
	if bytes.Equal(ev, want) {
		return true
	}
	return bytes.Equal(eventBase(ev), want)
}

func (p *pipeline) startTracker() {
	switch p.cfg.scope {
	case "process":
		p.setScope(state.Process)
	case "workload":
		p.setScope(state.Workload)
	default:
		p.scopePending = true // decided by the records: see autoScope
		p.lookahead = true
	}
	p.tracker = state.New(state.Config{Scope: p.scope, Gap: -1}, p.release)
}

// autoScope picks the scope from the records: CPU-wide switch records mean
// a system-wide trace (process scope), per-task ones a per-task trace
// (workload scope). Until one comes, records wait in the look-ahead
// window; if none comes, samples with a [cpu] column mean system-wide.
// (perf's synthesized COMM/FORK records say nothing either way.)
func (p *pipeline) autoScope(rec *parse.Record) {
	switch rec.Kind {
	case parse.KindSwitchCPUWide:
		p.decideScope(state.Process)
	case parse.KindSwitch:
		p.decideScope(state.Workload)
	case parse.KindSample:
		if rec.CPU >= 0 {
			p.sawCPU = true
		}
	}
}

// decideScope ends the wait for the scope; it must come before the first
// event reaches the tracker.
func (p *pipeline) decideScope(s state.Scope) {
	p.scopePending = false
	p.setScope(s)
	p.tracker.SetScope(s)
}

// guessScope decides when the window is full without a switch record.
func (p *pipeline) guessScope() {
	if p.sawCPU {
		p.decideScope(state.Process)
	} else {
		p.decideScope(state.Workload)
	}
}

func (p *pipeline) setScope(s state.Scope) {
	p.scope = s
	// Per-process parallelism needs each thread's process before its first
	// record is counted; perf often names it only a little later (a
	// CPU-wide switch's next/prev pid/tid): look ahead for it.
	p.lookahead = s == state.Process
}

// deferredSample is a released sample kept until the trace's span is known.
type deferredSample struct {
	s   state.Sample
	par int
}

func (p *pipeline) release(s state.Sample, par int) {
	if s.Ref < 0 {
		return // another event or a filtered comm: only a sign of life
	}
	if p.cfg.window != nil {
		if p.deferAll {
			p.deferred = append(p.deferred, deferredSample{s, par})
			return
		}
		if !p.winSet {
			p.winLo, p.winHi = p.cfg.window.bounds(p.firstTime, p.cfg.lastTime)
			p.winSet = true
		}
		if s.Time < p.winLo || s.Time > p.winHi {
			return
		}
	}
	p.emitSample(s, par)
}

// emitSample filters and adds a released sample to the outputs.
func (p *pipeline) emitSample(s state.Sample, par int) {
	if p.cfg.parList != nil && !p.cfg.parList.has(par) {
		return
	}
	if p.cfg.tids != nil && !p.cfg.tids.has(s.TID) {
		return
	}
	pid := s.PID
	if pid < 0 {
		if known, ok := p.tracker.PIDOf(s.TID); ok {
			pid = known
		} else if s.TID == 0 {
			pid = 0
		}
	}
	if p.cfg.pids != nil && (pid < 0 || !p.cfg.pids.has(pid)) {
		return
	}
	var wall float64
	if par > 0 {
		wall = float64(s.Period) / float64(par)
	}
	if p.sum != nil {
		p.addSummary(s, pid, par, wall)
	}
	if p.prof != nil {
		r := p.refs[s.Ref]
		p.prof.Add(r[0], r[1], pid, s.TID, par, s.Period, wall)
		return
	}
	ref := uint32(s.Ref)
	if p.cfg.parFrame {
		ref = p.withParFrame(ref, par)
	}
	p.totals.Add(ref, s.Period, wall)
}

// read consumes the whole input.
func (p *pipeline) read(in io.Reader, name string) error {
	r := parse.NewReader(in, name)
	if p.cfg.sequential {
		r = parse.NewSequentialReader(in, name)
	}
	p.reader = r
	p.name = name
	if p.cfg.strict {
		r.OnError = func(e *parse.SyntaxError) {
			if p.strictErr == nil {
				p.strictErr = e
			}
		}
	}
	for r.Scan() && p.strictErr == nil {
		rec := r.Record()
		p.records++
		if rec.Kind == parse.KindLost && p.cfg.strict {
			p.strictErr = fmt.Errorf("%s:%d: PERF_RECORD_LOST: %d records lost (--strict); record with a larger buffer (perf record -m) or fewer events", name, rec.Line, rec.Lost)
			break
		}
		if p.tracker == nil {
			p.startTracker()
		}
		if p.scopePending {
			p.autoScope(rec)
		}
		if rec.HasTime && rec.Time > 0 {
			// perf stamps synthesized records before the trace 0.000000.
			if !p.haveTime {
				p.firstTime, p.haveTime = rec.Time, true
			}
			if rec.Time > p.lastTime {
				p.lastTime = rec.Time
			}
		}
		switch rec.Kind {
		case parse.KindSample:
			p.sample(rec)
		case parse.KindOther:
			if rec.HasTime {
				p.push(event{kind: parse.KindOther, time: rec.Time})
			}
		default:
			p.push(event{kind: rec.Kind, time: rec.Time, pid: rec.PID, tid: rec.TID, cpu: rec.CPU,
				out: rec.Out, opid: rec.OtherPID, otid: rec.OtherTID, lost: rec.Lost})
		}
	}
	p.flushAhead()
	if p.tracker != nil {
		p.tracker.Flush()
	}
	if p.deferAll {
		p.cfg.lastTime = p.lastTime
		p.deferAll = false
		for _, d := range p.deferred {
			p.release(d.s, d.par)
		}
		p.deferred = nil
	}
	return r.Err()
}

func (p *pipeline) sample(rec *parse.Record) {
	if rec.Period > maxPeriod {
		// Sums of such periods would overflow: a corrupt line, not a sample
		// (nor a period to take the silence limit from).
		p.absurd++
		if p.absurdLine == 0 {
			p.absurdLine = rec.Line
		}
		if p.cfg.strict && p.strictErr == nil {
			p.strictErr = fmt.Errorf("%s:%d: absurd period %d (--strict)", p.name, rec.Line, rec.Period)
		}
		return
	}
	if p.event == nil {
		p.event = append([]byte(nil), eventBase(rec.Event)...)
	}
	if !p.gapSet {
		// The first sample, of whatever event, sets the silence limit, so
		// that samples never wait long for a selected event that is late.
		p.gapSet = true
		gap := int64(0)
		switch {
		case !isTimeEvent(rec.Event):
			p.noGapReason = fmt.Sprintf("event %s is not time-based", rec.Event)
		case !rec.HasPeriod || !rec.HasTime || rec.Period == 0:
			p.noGapReason = "samples carry no period or time"
		default:
			k := p.cfg.gapPeriods
			if k == 0 {
				k = silencePeriods
			}
			gap = int64(k * float64(rec.Period))
		}
		p.tracker.SetGap(gap)
	}
	s := state.Sample{Time: rec.Time, PID: rec.PID, TID: rec.TID, CPU: rec.CPU, Period: rec.Period, Ref: -1}
	if !eventMatches(rec.Event, p.event) {
		p.otherEvents[string(rec.Event)]++
		p.pushSample(s)
		return
	}
	if !p.eventSeen {
		p.eventSeen = true
		p.timeBased = isTimeEvent(rec.Event)
		p.period = int64(rec.Period)
	}
	p.samples++
	p.cpuIn += rec.Period
	java := string(rec.Comm) == "java"
	if p.cfg.comms != nil && !p.cfg.comms[string(rec.Comm)] {
		p.pushSample(s) // still a sign of life for the others
		return
	}
	if p.prof != nil {
		k := [2]uint32{p.prof.Stack(rec.Frames, java), p.prof.Comm(rec.Comm)}
		ref, ok := p.refID[k]
		if !ok {
			ref = len(p.refs)
			p.refs = append(p.refs, k)
			p.refID[k] = ref
		}
		s.Ref = ref
		p.pushSample(s)
		return
	}
	// Consecutive samples mostly share their root: skip its lookup then.
	if !p.rootOK || !bytes.Equal(rec.Comm, p.lastComm) || ((p.cfg.pid || p.cfg.tid) && (rec.PID != p.lastPID || rec.TID != p.lastTID)) {
		p.root = commRoot(p.root, rec.Comm, rec.PID, rec.TID, p.cfg.pid, p.cfg.tid)
		p.rootID = p.stacks.InternName(p.root)
		p.lastComm = append(p.lastComm[:0], rec.Comm...)
		p.lastPID, p.lastTID, p.rootOK = rec.PID, rec.TID, true
	}
	rootID := p.rootID
	s.Ref = int(p.stacks.Intern(rootID, rec.Frames, java))
	p.pushSample(s)
}

// warnings returns the run's warnings, one line each.
func (p *pipeline) warnings() []string {
	var ws []string
	r := p.reader
	if n := r.Skipped(); n > 0 {
		var b strings.Builder
		fmt.Fprintf(&b, "skipped %d unparseable line(s) (and the samples they were part of):", n)
		for _, e := range r.Errors() {
			fmt.Fprintf(&b, "\n  %s: %q", e.Error(), e.Text)
		}
		ws = append(ws, b.String())
	}
	if p.absurd > 0 {
		ws = append(ws, fmt.Sprintf("dropped %d sample(s) with an absurd period (over 2^40), first at line %d", p.absurd, p.absurdLine))
	}
	if len(p.otherEvents) > 0 {
		names := make([]string, 0, len(p.otherEvents))
		for ev, n := range p.otherEvents {
			names = append(names, fmt.Sprintf("%s (%d samples)", ev, n))
		}
		sort.Strings(names)
		ws = append(ws, fmt.Sprintf("using event %s; skipped other events: %s (choose with --event)", p.event, strings.Join(names, ", ")))
	}
	if p.tracker == nil {
		return ws
	}
	st := p.tracker.Stats()
	if p.samples > 0 && st.Switches == 0 {
		ws = append(ws, "no PERF_RECORD_SWITCH records: parallelism is only estimated from sample density; record with `perf record --switch-events` and convert with `perf script --show-switch-events`")
	} else if p.samples > 0 && st.TaskEvents == 0 && p.timeBased {
		ws = append(ws, "no task events (PERF_RECORD_EXIT/FORK/COMM): thread exits were inferred from silence; add --show-task-events to perf script for exact ends")
	}
	if p.scope == state.Process && st.UnknownPID > 0 {
		ws = append(ws, fmt.Sprintf("process scope, but %d sampled thread(s) have no known process (no pid column, FORK or CPU-wide switch record names it): each is taken as its own process; add -F +pid to perf script", st.UnknownPID))
	}
	if st.LostEvents > 0 {
		ws = append(ws, fmt.Sprintf("%d PERF_RECORD_LOST record(s): %d records lost, first at %.6f s; parallelism around them is inferred from silence", st.LostEvents, st.Lost, float64(st.FirstLostAt)/1e9))
	}
	if p.noGapReason != "" && st.Switches > 0 && st.TaskEvents == 0 {
		ws = append(ws, fmt.Sprintf("%s (silence says nothing) and there are no task events, so thread ends are unknown: threads that exit without a record count as running until the end; add --show-task-events to perf script", p.noGapReason))
	}
	return ws
}

func (p *pipeline) writeFolded(w io.Writer) error {
	weight := emit.Wall
	if p.cfg.weightCPU {
		weight = emit.CPU
	}
	return emit.WriteFolded(w, p.stacks, &p.totals, weight)
}

func (p *pipeline) writePprof(w io.Writer, warnings []string) error {
	// Process-wide, so set here rather than in emit.
	defer tightGC()()
	meta := emit.Meta{
		Event:      string(p.event),
		TimeBased:  p.timeBased || !p.eventSeen, // no samples: the usual names
		Period:     p.period,
		StartNanos: p.firstTime,
		EndNanos:   p.lastTime,
	}
	meta.Comments = append(meta.Comments, "wallfold "+version, "scope: "+p.scope.String())
	for _, w := range warnings {
		meta.Comments = append(meta.Comments, "warning: "+w)
	}
	return emit.WritePprof(w, p.prof.Build(meta))
}

func (p *pipeline) writeSummary(w io.Writer, unicode bool, warnings []string) error {
	o := emit.SummaryOptions{TimeBased: p.timeBased, Unit: string(p.event), Unicode: unicode,
		IdleSamples: p.idleSamples, IdleCPU: p.idleCPU}
	return emit.WriteSummary(w, p.summaryGroups(), o, warnings)
}

// event is a record reduced to what the tracker needs, so that records can
// wait in the look-ahead window without their stacks (a sample's stack is
// interned before it waits).
type event struct {
	kind       parse.Kind
	out        bool
	time       int64
	pid, tid   int
	cpu        int
	opid, otid int
	lost       uint64
	s          state.Sample
}

// lookaheadNs is how far (in trace time) records wait in process scope so
// that hints about a thread's process reach the tracker before the thread.
const lookaheadNs = 100e6

// lookaheadMax bounds the window's memory whatever the trace's rate.
const lookaheadMax = 1 << 18

// ring is a FIFO of events.
type ring struct {
	buf        []event
	head, size int
}

func (r *ring) len() int { return r.size }

func (r *ring) push(e event) {
	if r.size == len(r.buf) {
		nb := make([]event, max(64, 2*len(r.buf)))
		for i := 0; i < r.size; i++ {
			nb[i] = r.buf[(r.head+i)%len(r.buf)]
		}
		r.buf, r.head = nb, 0
	}
	r.buf[(r.head+r.size)%len(r.buf)] = e
	r.size++
}

func (r *ring) peek() *event { return &r.buf[r.head] }

func (r *ring) pop() event {
	e := r.buf[r.head]
	r.head = (r.head + 1) % len(r.buf)
	r.size--
	return e
}

func (p *pipeline) pushSample(s state.Sample) {
	p.push(event{kind: parse.KindSample, time: s.Time, s: s})
}

// push hands an event to the tracker, through the look-ahead window when
// there is one.
func (p *pipeline) push(e event) {
	if !p.lookahead && p.ahead.len() == 0 {
		p.apply(e)
		return
	}
	if p.lookahead {
		p.hint(e)
	}
	p.ahead.push(e)
	for p.ahead.len() > 0 {
		h := p.ahead.peek()
		if p.ahead.len() < lookaheadMax {
			if p.scopePending && (!p.haveTime || e.time-p.firstTime < lookaheadNs) {
				break // perf's synthesized records at time 0 do not count
			}
			if !p.scopePending && p.lookahead && e.time-h.time < lookaheadNs {
				break
			}
		}
		if p.scopePending {
			p.guessScope()
		}
		p.apply(p.ahead.pop())
	}
}

// flushAhead applies what waits in the look-ahead window (at the end).
func (p *pipeline) flushAhead() {
	if p.scopePending && p.tracker != nil {
		p.guessScope()
	}
	for p.ahead.len() > 0 {
		p.apply(p.ahead.pop())
	}
}

// hint learns what an event says about processes, before it waits.
func (p *pipeline) hint(e event) {
	switch e.kind {
	case parse.KindSample:
		if e.s.PID > 0 {
			p.tracker.Hint(e.s.PID, e.s.TID)
		}
	case parse.KindSwitch, parse.KindSwitchCPUWide:
		if e.pid > 0 {
			p.tracker.Hint(e.pid, e.tid)
		}
		if e.kind == parse.KindSwitchCPUWide && e.opid > 0 {
			p.tracker.Hint(e.opid, e.otid)
		}
	case parse.KindFork, parse.KindExit, parse.KindComm:
		p.tracker.Hint(e.opid, e.otid)
	}
}

func (p *pipeline) apply(e event) {
	t := p.tracker
	switch e.kind {
	case parse.KindSample:
		t.Sample(e.s)
	case parse.KindSwitch:
		t.Switch(e.time, e.pid, e.tid, e.cpu, e.out)
	case parse.KindSwitchCPUWide:
		t.SwitchCPUWide(e.time, e.pid, e.tid, e.cpu, e.out, e.opid, e.otid)
	case parse.KindFork:
		t.Fork(e.time, e.opid, e.otid)
	case parse.KindExit:
		t.Exit(e.time, e.opid, e.otid)
	case parse.KindComm:
		t.Comm(e.time, e.opid, e.otid)
	case parse.KindLost:
		t.Lost(e.time, e.lost)
	default:
		t.Tick(e.time)
	}
}

// check fails runs that must not produce output: --strict errors, and
// input with nothing that looks like perf script text.
func (p *pipeline) check() error {
	if p.strictErr != nil {
		return p.strictErr
	}
	r := p.reader
	if p.records > 0 {
		return nil
	}
	const how = "expected the text of `perf script` (e.g. perf script --show-switch-events --show-task-events | wallfold)"
	if r.Skipped() > 0 {
		e := r.Errors()[0]
		what := "it is not perf script text"
		if looksFolded(e.Text) {
			what = "it looks like folded stacks already (the output of a stack collapser), not perf script text"
		}
		return fmt.Errorf("%s: no perf records in %d line(s): %s (line %d: %q); %s", e.FileName, r.Lines(), what, e.Line, e.Text, how)
	}
	if p.cfg.strict {
		return fmt.Errorf("empty input (--strict): %s", how)
	}
	return nil
}

// looksFolded reports "a;b;c 12" lines.
func looksFolded(line string) bool {
	i := strings.LastIndexByte(line, ' ')
	if i <= 0 || !strings.Contains(line[:i], ";") {
		return false
	}
	for _, c := range line[i+1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return i+1 < len(line)
}

// tightPercent is GOGC while a profile is built and encoded.
const tightPercent = 50

// tightGC makes the collector keep the heap within half above what is
// live (instead of double) until the returned function is called: a pprof
// run's memory peaks while the profile is built and encoded (the
// encoder's copies of every sample's labels and locations, its buffer),
// and there a little more collector time is worth less peak memory (on
// the 120 MB go build trace: peak RSS about 92 MB instead of 102, time
// unchanged within noise; GOGC 25 gave 84 MB but 0.1 s more).
func tightGC() (restore func()) {
	old := debug.SetGCPercent(tightPercent)
	if old < 0 || old <= tightPercent {
		debug.SetGCPercent(old) // GOGC=off or already lower: leave it
		return func() {}
	}
	return func() { debug.SetGCPercent(old) }
}
