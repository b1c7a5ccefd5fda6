package state

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// Model is the package's entry point: it takes every record of a trace as
// an Event, in input order (it puts them in time order: order.go), and
// gives back the samples with their parallelism once it is decided:
//
//	m := state.NewModel(state.Options{Scope: state.Auto})
//	for each record { m.Add(&ev); use(m.Ready()) }
//	use(m.Close())
//
// Besides the tracker it owns the policies that need the trace itself:
// the scope when it is Auto, the look-ahead that learns a thread's process
// before its records count, the silence limit (from the first sample),
// the span, and the warnings about what the trace lacks.
type Model struct {
	t       *tracker
	ready   []Weighted
	trans   []Transition
	splits  []Split
	closed  bool
	offCPU  bool // Options.OffCPU: shares are released
	cpuOnly bool // Options.CPUOnly: no thread is tracked

	scope        Scope // decided scope (Auto until decided)
	scopePending bool
	sawCPU       bool
	window

	gapSet      bool
	noGapReason string

	span
	splitWindow func(first int64) (lo, hi int64)

	profiled  int  // samples of the profiled event
	clock     bool // the profiled event is a clock
	clockSeen bool

	treeRequest
	seg segments // time order, and the trace's segments (order.go)
}

// window is the look-ahead: while ahead is set, events wait in the order
// stage (order.go) for lookahead ns of trace time at least.
type window struct {
	ahead     bool
	lookahead int64
}

// span is the trace's first and last timestamps, once it has one;
// firstIn is the first time that came in (in input order).
type span struct {
	first, last, firstIn int64
	haveTime             bool
}

// treeRequest is the tree scope as the user asked for it.
type treeRequest struct {
	treeComm []byte // the root's command, until found
	treeName string // the root as the user named it
	treeIn   int    // samples released in the tree
}

// Options set up a Model.
type Options struct {
	Scope Scope
	// OffCPU releases, besides the samples, each thread's share of the
	// time when no thread of its group runs (Weighted.State, OffCPU).
	OffCPU bool
	// Tree scope (Scope is then ignored): the root process by pid, or
	// else the first process seen with this command.
	TreePID  int
	TreeComm string
	// Splits keeps each group's split for Splits (memory grows with the
	// groups a trace ever had, as a summary's does).
	Splits bool
	// SplitWindow, if set, is asked at the trace's first record for the
	// part of the trace the splits count (a time window of the output).
	SplitWindow func(first int64) (lo, hi int64)
	// Timeline: Transitions returns each thread's going on and off CPU.
	Timeline bool
	// Lookahead is how far (trace time, ns) events wait in process and
	// tree scope for a later record to name a thread's process (0: 100
	// ms; they wait OrderWindow too). A pipe, which cannot be read twice,
	// wants more (see Seed); the window holds at most lookaheadMax events
	// whatever its length.
	Lookahead int64
	// OrderWindow is how long (trace time) a record waits for earlier
	// ones before the text shows a round record (0: orderWindow).
	OrderWindow int64
	// CPUOnly is for a caller that reads of each sample only its period,
	// stack, time and thread (a CPU profile): no thread is tracked, a
	// sample is released at its turn in time order with parallelism 0,
	// its pid as its record gave it, group 0. The records are still put
	// in time order (the span, segments, StepsBack) and LOST records
	// counted; Warnings says only what concerns the input. Not with tree
	// scope (its samples are the tree's), OffCPU, Splits or Timeline.
	CPUOnly bool
}

// lookaheadNs is how far (in trace time) events wait in process scope so
// that what a later record says of a thread's process reaches the tracker
// before the thread's first records count (perf often names a pid a little
// later, in a CPU-wide switch's next/prev pid/tid).
const lookaheadNs = 100e6

// reapDelay is how long (ns of trace time) an exited thread is kept beyond
// the silence limit: longer than the look-ahead, so that no event still in
// the window can name it, and than perf's flush order lags (tens of ms).
// Twice the look-ahead (it was ten times: a fork-heavy trace kept a
// second's exited threads, 100 000 in scripts/many-threads.sh forkexit).
const reapDelay = 2 * lookaheadNs

// lookaheadMax bounds the window's memory whatever the trace's rate.
const lookaheadMax = 1 << 18

// silencePeriods is how many sampling periods of silence end a running
// thread: a thread on a CPU is sampled once a period, with some jitter.
const silencePeriods = 3

// rateLimitPeriods bounds, in sampling periods, the gap between two
// samples of a thread that the rate estimate (no switch records) spreads
// over; a longer one means it stopped (see tracker.rateLimit).
const rateLimitPeriods = 1000

// NewModel returns a Model (scope Auto: decided by the records; see
// decide).
func NewModel(o Options) *Model {
	scope := o.Scope
	if o.TreePID > 0 || o.TreeComm != "" {
		scope = Tree
	}
	m := &Model{scope: scope}
	s := scope
	if scope == Auto {
		m.scopePending = true
		m.ahead = true
		s = Workload
	}
	m.ahead = m.ahead || scope == Process || scope == Tree
	cfg := config{Scope: s, Gap: -1, Rate: true, Release: m.release, KeepSplits: o.Splits}
	if o.OffCPU || o.Splits { // the splits' wakers come from the shares (wakeup.go)
		cfg.ReleaseOff = m.releaseOff
	}
	m.offCPU = o.OffCPU
	m.cpuOnly = o.CPUOnly
	if o.Timeline {
		cfg.OnTransition = func(tr Transition) { m.trans = append(m.trans, tr) }
	}
	m.t = newTracker(cfg)
	m.splitWindow = o.SplitWindow
	m.lookahead = o.Lookahead
	if m.lookahead <= 0 {
		m.lookahead = lookaheadNs
	}
	m.seg.ord.window = o.OrderWindow
	if m.seg.ord.window <= 0 {
		m.seg.ord.window = orderWindow
	}
	m.seg.ord.lookAhead(m.ahead, m.lookahead)
	if scope == Tree {
		if o.TreePID > 0 {
			m.t.setTreeRoot(o.TreePID)
			m.treeName = strconv.Itoa(o.TreePID)
		} else {
			m.treeComm = []byte(o.TreeComm)
			m.treeName = o.TreeComm
		}
	}
	return m
}

// Add takes the next record of the trace. It keeps no pointer to e, and
// may change *e (Name and Comm are valid only during the call): a caller
// builds each record's Event in one place, not a copy of 136 bytes a
// record (docs/performance.md).
func (m *Model) Add(e *Event) {
	if m.closed {
		return
	}
	if m.scopePending {
		m.decide(e)
	}
	if e.Kind == KindRound {
		m.seg.ord.round()
		m.pass(false)
		return
	}
	if e.Time > m.last {
		m.last = e.Time
	}
	if e.Time > 0 && m.firstIn == 0 {
		m.firstIn = e.Time
	}
	if e.Kind == KindSample {
		m.sample(e)
	}
	named := m.treeComm != nil && string(e.Comm) == string(m.treeComm)
	e.Name, e.Comm = nil, nil // valid only now: not kept
	m.arrive(e, named)
}

// enter hands the tracker a record whose turn has come in time order.
func (m *Model) enter(e *Event) {
	if e.Time > 0 && !m.haveTime {
		// perf stamps synthesized records before the trace 0.000000.
		m.first, m.haveTime = e.Time, true
		if m.splitWindow != nil {
			m.t.setSplitWindow(m.splitWindow(m.first))
		}
	}
	if m.cpuOnly {
		m.enterCPU(e)
		return
	}
	m.t.add(e)
}

// enterCPU is enter for Options.CPUOnly: a sample goes out at once (no
// parallelism to wait for), a LOST record is counted; the tracker sees
// nothing else, so it holds no thread.
func (m *Model) enterCPU(e *Event) {
	switch e.Kind {
	case KindSample:
		if e.Ref < 0 {
			return // another event's, or unwanted
		}
		pid := e.PID
		if pid < 0 && e.TID == 0 {
			pid = 0 // as release has it
		}
		m.ready = append(m.ready, Weighted{Time: e.Time, PID: pid, TID: e.TID, CPU: e.CPU, Period: e.Period, Ref: e.Ref})
	case KindLost:
		m.t.add(e)
	}
}

// Ready returns the samples released since the last call, in input order
// within each group. The slice is valid until the next Add or Close.
func (m *Model) Ready() []Weighted {
	r := m.ready
	m.ready = m.ready[:0]
	return r
}

// Transitions returns the timeline's transitions since the last call
// (Options.Timeline); the slice is reused.
func (m *Model) Transitions() []Transition {
	r := m.trans
	m.trans = m.trans[:0]
	return r
}

// Close ends the trace and returns the samples still waiting: after it
// every sample given to Add has been returned exactly once (idle samples
// with parallelism 0), but those marked OtherEvent or Unwanted.
func (m *Model) Close() []Weighted {
	if !m.closed {
		m.closed = true
		// The samples still waiting come out at once: room for them in
		// one allocation, not append's doublings (2 M threads seen once
		// release the last second's 100 000 here, 12 MB, at the peak).
		o := &m.seg.ord
		m.ready = slices.Grow(m.ready, m.t.waiting()+o.run.size+len(o.late))
		m.pass(true)
		if m.scopePending {
			m.guessScope()
		}
		m.splits = m.seg.merge(m.t.finish())
	}
	return m.Ready()
}

// Scope returns the scope in force (Workload before any record).
func (m *Model) Scope() Scope {
	if m.scope == Auto {
		return Workload
	}
	return m.scope
}

// Span returns the first and last timestamps of the trace (records at
// time 0, perf's synthesized ones, aside): the earliest record of the
// first segment (order.go), and the latest of all.
func (m *Model) Span() (first, last int64, ok bool) { return m.first, m.last, m.haveTime }

func (m *Model) release(s sample, par float64, g *group) {
	if s.Ref < 0 {
		return // a sign of life only
	}
	pid := s.PID
	if pid < 0 {
		if known, ok := m.t.processOf(s.TID); ok {
			pid = known
		} else if s.TID == 0 {
			pid = 0
		}
	}
	group := 0
	switch m.scope {
	case Process:
		group = pid
		if group < 0 {
			group = s.TID
		}
	case Tree:
		// The group that decided it: a thread is the tree's once its
		// process is known to be in the tree (setTreeRoot moves it).
		if !m.t.ofTree(g) {
			return // only takes CPUs
		}
		group = m.t.treeRoot
		m.treeIn++
	case Thread:
		group = s.TID
	}
	w := Weighted{Time: s.Time, PID: pid, TID: s.TID, CPU: s.CPU,
		Period: s.Period, Ref: s.Ref, Parallelism: int(math.Round(par)), Par: par, Group: group}
	if s.Lost {
		w.State = Lost
	}
	if s.Spin {
		w.Spin, w.Parallelism = true, 0 // idle, or a task perf no longer names
		if g != nil {
			w.Parallelism = int(math.Round(g.running()))
		}
	}
	m.ready = append(m.ready, w)
}

func (m *Model) releaseOff(th *thread, st State, ns, since, end int64, ref int) {
	if m.t.outsideTree(th.g) {
		return // only takes CPUs
	}
	waker := m.t.wokeCharge(th, st, ns) // a share without a stack counts for its waker too
	if !m.offCPU || ref < 0 {
		return
	}
	pid := th.pid
	if known, ok := m.t.processOf(th.tid); ok {
		pid = known
	}
	m.ready = append(m.ready, Weighted{Time: since, PID: pid, TID: th.tid, CPU: -1,
		Ref: ref, Group: th.g.key, State: st, OffCPU: ns, OffEnd: end, Waker: waker})
}

// sample sets the silence limit at the first sample, of whatever event, so
// that samples never wait long for a profiled event that comes late.
func (m *Model) sample(e *Event) {
	if e.Ref != OtherEvent {
		m.profiled++
		if !m.clockSeen {
			m.clock, m.clockSeen = e.Clock, true
		}
	}
	if m.gapSet {
		return
	}
	m.gapSet = true
	gap := int64(0)
	switch {
	case !e.Clock:
		m.noGapReason = fmt.Sprintf("event %s is not time-based", e.Name)
	case !e.HasPeriod || !e.HasTime || e.Period == 0:
		m.noGapReason = "samples carry no period or time"
	default:
		gap = int64(silencePeriods * float64(e.Period))
	}
	m.t.setGap(gap)
}

// decide picks the scope from the records: CPU-wide switch records mean a
// system-wide trace (process scope), per-task ones a per-task trace
// (workload scope). Until one comes, events wait in the look-ahead
// window; if none comes, samples with a CPU mean system-wide. (perf's
// synthesized COMM/FORK records say nothing either way.)
func (m *Model) decide(e *Event) {
	switch e.Kind {
	case KindSwitchCPUWide:
		m.setScope(Process)
	case KindSwitch:
		m.setScope(Workload)
	case KindSample:
		if e.CPU >= 0 {
			m.sawCPU = true
		}
	}
}

// guessScope decides when the window is full without a switch record.
func (m *Model) guessScope() {
	if m.sawCPU {
		m.setScope(Process)
	} else {
		m.setScope(Workload)
	}
}

// setScope ends the wait for the scope, before the first event reaches the
// tracker. Per-process parallelism needs each thread's process before its
// first record counts: look ahead for it.
func (m *Model) setScope(s Scope) {
	m.scopePending = false
	m.scope = s
	m.ahead = s == Process
	m.seg.ord.lookAhead(m.ahead, m.lookahead)
	m.t.setScope(s)
}

// undecided reports whether records must still wait for the scope: up
// to min(lookaheadNs, lookahead) of trace time after the first timed
// record (perf's synthesized records at time 0 do not count), unless the
// order stage is full.
func (m *Model) undecided() bool {
	return (m.firstIn == 0 || m.seg.ord.newest-m.firstIn < min(lookaheadNs, m.lookahead)) && !m.seg.ord.full()
}

// hint learns what an event says about processes before it waits.
func (m *Model) hint(e *Event) {
	switch e.Kind {
	case KindSample, KindSwitch:
		if e.PID > 0 {
			m.t.learn(e.PID, e.TID)
		}
	case KindSwitchCPUWide:
		if e.PID > 0 {
			m.t.learn(e.PID, e.TID)
		}
		if e.PeerPID > 0 {
			m.t.learn(e.PeerPID, e.PeerTID)
		}
	case KindFork:
		m.t.learn(e.PID, e.TID)
		m.t.noteParent(e.PID, e.ParentPID)
	case KindExit, KindComm:
		m.t.learn(e.PID, e.TID)
	}
}

// findRoot makes the process of e, a record with the tree's command,
// its root.
func (m *Model) findRoot(e *Event) {
	if e.TID <= 0 {
		return
	}
	switch e.Kind {
	case KindSample, KindSwitch, KindSwitchCPUWide, KindComm, KindBlockStack:
	default:
		return
	}
	pid := e.PID
	if pid <= 0 {
		p, ok := m.t.processOf(e.TID)
		if !ok {
			return // wait for a record that names its process
		}
		pid = p
	}
	m.t.setTreeRoot(pid)
	m.treeComm = nil
}

// Seed tells the model, before the trace, what a first pass over it found
// (parse.ScanTaskIDs): thread tid is in process pid (ppid < 0), or
// process pid was forked by ppid (tid < 0). The first fact about a tid or
// a pid wins: later ones (a reused tid) are learnt in their place in the
// trace.
func (m *Model) Seed(pid, tid, ppid int) { m.t.seed(pid, tid, ppid) }

// Warnings says what the trace lacks for exact answers, one line each,
// with what to record; call it after Close.
func (m *Model) Warnings() []string {
	if m.cpuOnly {
		return m.inputWarnings()
	}
	var ws []string
	st := m.t.counts()
	if m.profiled > 0 && st.Switches == 0 {
		ws = append(ws, "no PERF_RECORD_SWITCH records: parallelism is only estimated from sample density; record with `perf record --switch-events` and convert with `perf script --show-switch-events`")
	} else if m.profiled > 0 && st.TaskEvents == 0 && m.clock {
		ws = append(ws, "no task events (PERF_RECORD_EXIT/FORK/COMM): thread exits were inferred from silence; add --show-task-events to perf script for exact ends")
	}
	if (m.scope == Process || m.scope == Tree) && st.LateNamed > 0 {
		ws = append(ws, fmt.Sprintf("%d thread(s) were named to their process only after their first records counted, up to %.2f s late: until then each counted as a process of its own; wallfold reads a file's pids first (give it the file rather than a pipe), or add -F +pid,+ip,+sym,+symoff,+dso to perf script (+pid alone drops tracepoint stacks)", st.LateNamed, float64(st.LateBy)/1e9))
	}
	if m.scope == Process && st.UnknownPID > 0 {
		ws = append(ws, fmt.Sprintf("process scope, but %d sampled thread(s) have no known process (no pid column, FORK or CPU-wide switch record names it): each is taken as its own process; add -F +pid,+ip,+sym,+symoff,+dso to perf script (+pid alone drops tracepoint stacks)", st.UnknownPID))
	}
	if m.scope == Tree && m.profiled > 0 && m.treeIn == 0 {
		ws = append(ws, fmt.Sprintf("--tree=%s: no sample of that process or its descendants: nothing is counted; name a pid or command the trace has (perf script --show-task-events names processes)", m.treeName))
	} else if m.scope == Tree && m.t.treeLate > 0 && m.treeComm == nil && m.treeName != strconv.Itoa(m.t.treeRoot) {
		ws = append(ws, fmt.Sprintf("--tree=%s: the root (pid %d) took that name after %d of the tree's thread(s) had run: what they did before counts outside the tree; --tree=%d counts the process from its start", m.treeName, m.t.treeRoot, m.t.treeLate, m.t.treeRoot))
	}
	if m.scope == Tree && st.UnknownPID > 0 {
		ws = append(ws, fmt.Sprintf("--tree, but %d sampled thread(s) have no known process (no pid column, FORK or CPU-wide switch record names it): each is taken as its own process, outside the tree unless its tid is in it; add -F +pid,+ip,+sym,+symoff,+dso and --show-task-events to perf script", st.UnknownPID))
	}
	if st.LostEvents > 0 {
		ws = append(ws, lostCount(&st)+"; threads sampled just before a loss and seen on their CPU just after it ran through it (their time in it under [lost]), others are taken from their records and silence; record with a larger buffer (perf record -m) to lose none")
	}
	if st.StaleRecords > 0 {
		ws = append(ws, fmt.Sprintf("%d record(s) were written out of order by CPUs whose clocks disagree (by up to %.0f µs): they were taken in their true order where the records show it, and a sample printed that close to another thread's switch may count it wrongly; record with a clock all CPUs share (perf record -k mono)", st.StaleRecords, float64(st.StaleBy)/1e3))
	}
	if w := m.seg.ord.warning(); w != "" {
		ws = append(ws, w)
	}
	if c := &m.t.cold; c.dropped > 0 {
		ws = append(ws, fmt.Sprintf("%d quiet thread(s) were forgotten whole, the oldest first, past the bound on what is kept of quiet threads (%d MiB, some %d 000 threads sampled once): each was ended then (its time waiting off CPU counted up to that moment), and %d of them came back later and counted as new threads (what they did before is not joined to it: an estimate); most traces have far fewer threads", c.dropped, coldBoundChunks<<coldChunkBits>>20, coldBoundChunks<<coldChunkBits/coldOnceEntry/1000, c.returned))
	}
	if m.noGapReason != "" && st.Switches > 0 && st.TaskEvents == 0 {
		ws = append(ws, fmt.Sprintf("%s (silence says nothing) and there are no task events, so thread ends are unknown: threads that exit without a record count as running until the end; add --show-task-events to perf script", m.noGapReason))
	}
	return ws
}

// inputWarnings are Warnings for Options.CPUOnly: what the input lost or
// could not put in order. The others concern the parallelism (switch
// and task records, processes named late, clocks that disagree, quiet
// threads forgotten), which a CPU profile does not weigh by.
func (m *Model) inputWarnings() []string {
	var ws []string
	st := m.t.counts()
	if st.LostEvents > 0 {
		// No thread runs through a loss here: its samples are gone.
		ws = append(ws, lostCount(&st)+": the samples in them are missing from this CPU profile; record with a larger buffer (perf record -m) to lose none")
	}
	if w := m.seg.ord.warning(); w != "" {
		ws = append(ws, w)
	}
	return ws
}

// lostCount is how many records perf lost, and when first.
func lostCount(st *stats) string {
	return fmt.Sprintf("%d PERF_RECORD_LOST record(s): %d records lost, first at %.6f s", st.LostEvents, st.Lost, float64(st.FirstLostAt)/1e9)
}
