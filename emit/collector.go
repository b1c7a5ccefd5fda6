package emit

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/google/pprof/profile"
	"github.com/wallfold/wallfold/parse"
	"github.com/wallfold/wallfold/state"
)

// Format is the output a Collector builds.
type Format uint8

const (
	// Folded is stackcollapse-perf.pl's "root;...;leaf WEIGHT" lines.
	Folded Format = iota
	// Pprof is a gzipped profile.proto.
	Pprof
	// Summary is the parallelism story as text.
	Summary
	// Top is a table of functions by wall time, beside CPU time.
	Top
	// SVG is a self-contained flame graph coloured by parallelism.
	SVG
	// ChromeTrace is the timeline as Chrome trace-event JSON.
	ChromeTrace
)

// Options say what a Collector gathers.
type Options struct {
	Format Format
	// WithSummary gathers the summary besides a Folded or Pprof output.
	WithSummary bool
	Weight      Weight // folded weight
	Names       NameOptions
	// PID and TID name folded roots comm-PID and comm-PID/TID.
	PID, TID bool
	// ParallelismFrame roots folded stacks at "[parallelism N]".
	ParallelismFrame bool
	// Event selects the samples profiled ("": the first event seen, but
	// sched:sched_switch, whose samples are block stacks).
	Event  string
	Filter Filter
	// OffCPU adds the model's off-CPU shares under leaf frames [blocked]
	// and [runnable] (folded, pprof).
	OffCPU bool
	// TopGroups bounds the summary's groups (0: a screenful).
	TopGroups int
	// Labels: the pprof samples' labels.
	Labels Labels
	// Start is the Unix time of the trace's first record (zero: from
	// perf's header, else the time of the run minus the span).
	Start time.Time
	// Split makes one pprof profile per window of this length (0: one).
	Split time.Duration
}

// Trace is what a Collector asks of the model: the span (time windows,
// the profile's duration) and the scope (the summary's group names).
type Trace interface {
	Span() (first, last int64, ok bool)
	Scope() state.Scope
	// After the model's Close: how each group's span divided, the
	// process tree, the tree's root (tree scope).
	Splits() []state.Split
	Parent(pid int) (int, bool)
}

// Collector gathers the samples of one run for its outputs: it selects the
// profiled event, interns each sample's stack before the sample waits in
// the model (a record's frames die at the next Scan), filters what the
// model releases and adds it to the folded totals or the profile, and to
// the summary.
type Collector struct {
	o     Options
	trace Trace

	event       []byte // the selected event, once known
	otherEvents map[string]int
	eventSeen   bool
	timeBased   bool
	period      int64 // the first profiled sample's period

	stacks  *Stacks // folded
	totals  Totals
	roots   rootCache
	parRoot map[[2]uint32]uint32 // (par name, stack) -> stack with it as root
	// --pid/--tid without a pid column: the stacks rooted at "comm-?"
	// (their thread's comm), and each re-rooted at the pid the model
	// learnt, as the pprof pid label has it (see reroot).
	noPID    map[uint32][]byte
	withPIDs map[pidStack]uint32

	prof  *Profile    // pprof
	refs  [][2]uint32 // Ref -> (stack, comm)
	refID map[[2]uint32]int

	sum *summaryGatherer

	offLeaf     map[[2]uint32]uint32 // (stack, state) -> stack with its leaf
	offWait     []state.Weighted     // off-CPU shares before the first profiled sample
	offDropped  int                  // off-CPU shares of an event not in ns
	offNoEvent  int                  // off-CPU shares of a trace without profiled samples
	offCPUOnly  int                  // off-CPU shares left out of a --weight=cpu profile
	blockStacks int                  // sched:sched_switch samples seen

	window   windowState
	deferred []state.Weighted // % windows on a pipe: applied at Close

	tl         *traceWriter     // the ChromeTrace output, once started
	header     parse.PerfHeader // what perf's header says of the calendar
	splitWhole bool             // a --time window the model's splits could not cut
	now        func() time.Time
}

// NewCollector returns a Collector for o; trace is asked for the span and
// scope when samples come.
func NewCollector(o Options, trace Trace) *Collector {
	c := &Collector{o: o, trace: trace, otherEvents: make(map[string]int), now: time.Now}
	if o.Event != "" {
		c.event = []byte(o.Event)
	}
	if o.Format == Pprof {
		c.prof = NewProfile(o.Names, o.Labels)
		c.refID = make(map[[2]uint32]int)
	} else {
		c.stacks = NewStacks(o.Names)
	}
	if o.WithSummary || o.Format == Summary {
		c.sum = newSummaryGatherer()
	}
	if o.ParallelismFrame {
		c.parRoot = make(map[[2]uint32]uint32)
	}
	c.window.deferAll = o.Filter.Time.Percent() && o.Filter.End == 0
	c.splitWhole = o.Filter.Time.set && o.Filter.SplitWindow() == nil
	return c
}

// BlockStack reports whether a sample record is a block stack (a
// sched:sched_switch sample, unless that is the profiled event) and
// returns its Ref for the model: its stack interned when off-CPU time is
// wanted, else state.OtherEvent.
func (c *Collector) BlockStack(rec *parse.Record) (ref int, ok bool) {
	if !parse.IsSchedSwitch(rec.Event) || (c.event != nil && parse.EventMatches(rec.Event, c.event)) {
		return 0, false
	}
	c.blockStacks++
	if !c.o.OffCPU {
		return state.OtherEvent, true
	}
	return c.intern(rec, rec.Frames), true
}

// SwitchRef returns, for a switch record, the Ref of a stack of its
// thread's name alone: where its off-CPU time goes when no sample or
// block stack of it says more (state.OtherEvent without off-CPU).
func (c *Collector) SwitchRef(rec *parse.Record) int {
	if !c.o.OffCPU || rec.TID <= 0 {
		return state.OtherEvent
	}
	return c.intern(rec, nil)
}

// Sample interns a sample record and returns its Ref for the model:
// state.OtherEvent for another event than the profiled one, state.Unwanted
// for one the filter drops by its thread name.
func (c *Collector) Sample(rec *parse.Record) int {
	if c.event == nil {
		c.event = append([]byte(nil), parse.EventBase(rec.Event)...)
	}
	if !parse.EventMatches(rec.Event, c.event) {
		c.otherEvents[string(rec.Event)]++
		return state.OtherEvent
	}
	if !c.eventSeen {
		c.eventSeen = true
		c.timeBased = parse.IsClockEvent(rec.Event)
		c.period = int64(rec.Period)
	}
	return c.intern(rec, rec.Frames)
}

// intern returns the Ref of a record's thread name and frames, or
// state.Unwanted when the filter drops its thread name.
func (c *Collector) intern(rec *parse.Record, frames []parse.Frame) int {
	if !c.o.Filter.keepComm(rec.Comm) {
		return state.Unwanted
	}
	java := string(rec.Comm) == "java"
	if c.prof != nil {
		k := [2]uint32{c.prof.Stack(frames, java), c.prof.Comm(rec.Comm)}
		ref, ok := c.refID[k]
		if !ok {
			ref = len(c.refs)
			c.refs = append(c.refs, k)
			c.refID[k] = ref
		}
		return ref
	}
	root := c.roots.lookup(c.stacks, rec, c.o.PID, c.o.TID)
	id := c.stacks.Intern(root, frames, java)
	if rec.PID < 0 && (c.o.PID || c.o.TID) {
		if c.noPID == nil {
			c.noPID = make(map[uint32][]byte)
			c.withPIDs = make(map[pidStack]uint32)
		}
		if _, ok := c.noPID[id]; !ok {
			c.noPID[id] = append([]byte(nil), rec.Comm...)
		}
	}
	return int(id)
}

// pidStack is a stack rooted at "comm-?" and the pid learnt for it.
type pidStack struct {
	stack uint32
	pid   int
}

// reroot returns the folded stack of w: when it was rooted at "comm-?"
// (--pid or --tid, no pid column) and the model learnt the thread's
// process (Weighted.PID, from FORK, COMM, EXIT or CPU-wide switch
// records, as the pprof pid label has it), the same stack rooted at
// comm-PID[/TID].
func (c *Collector) reroot(w *state.Weighted) uint32 {
	ref := uint32(w.Ref)
	if c.noPID == nil || w.PID < 0 {
		return ref
	}
	comm, ok := c.noPID[ref]
	if !ok {
		return ref
	}
	k := pidStack{ref, w.PID}
	if id, ok := c.withPIDs[k]; ok {
		return id
	}
	root := c.stacks.InternName(commRoot(nil, comm, w.PID, w.TID, c.o.PID, c.o.TID))
	id := c.stacks.Reroot(ref, root)
	c.withPIDs[k] = id
	return id
}

// Add takes samples the model released.
func (c *Collector) Add(ws []state.Weighted) {
	for i := range ws {
		c.add(&ws[i])
	}
}

func (c *Collector) add(w *state.Weighted) {
	if c.o.Filter.Time.set {
		if c.window.deferAll {
			c.deferred = append(c.deferred, *w)
			return
		}
		if !c.window.set {
			first, _, _ := c.trace.Span()
			c.window.lo, c.window.hi = c.o.Filter.Time.bounds(first, c.o.Filter.End)
			c.window.set = true
		}
		if w.State != state.OnCPU && w.State != state.Lost {
			// A share of off-CPU time: the part in the window.
			ns := spread(w.Time, w.OffEnd, float64(w.OffCPU), c.window.lo, c.window.hi)
			if ns <= 0 {
				return
			}
			cut := *w
			cut.OffCPU = int64(math.Round(ns))
			cut.Time, cut.OffEnd = max(w.Time, c.window.lo), min(w.OffEnd, c.window.hi)
			w = &cut
		} else if w.Time < c.window.lo || w.Time > c.window.hi {
			return
		}
	}
	if !c.o.Filter.keep(w) {
		return
	}
	if c.noPID != nil {
		if ref := c.reroot(w); ref != uint32(w.Ref) {
			rw := *w
			rw.Ref = int(ref)
			w = &rw
		}
	}
	if w.State == state.Lost {
		c.addLost(w)
		return
	}
	if w.State != state.OnCPU {
		c.addOff(w)
		return
	}
	var wall float64
	switch {
	case w.Par > 0:
		wall = float64(w.Period) / w.Par // estimated parallelism is fractional
	case w.Parallelism > 0:
		wall = float64(w.Period) / float64(w.Parallelism)
	}
	if c.sum != nil {
		c.sum.add(c, w, wall)
	}
	if c.prof != nil {
		r := c.refs[w.Ref]
		c.prof.Add(c.splitWindow(w.Time), r[0], r[1], w.PID, w.TID, w.Parallelism, w.Period, wall)
		return
	}
	ref := uint32(w.Ref)
	if c.parRoot != nil {
		ref = c.withParFrame(ref, w.Parallelism)
	}
	c.totals.Add(ref, w.Period, wall)
}

// addOff adds a share of off-CPU time at its thread's stack, under a
// leaf frame that names the state. Its unit is ns: only a time-based
// profile takes it.
func (c *Collector) addOff(w *state.Weighted) {
	if !c.eventSeen {
		c.offWait = append(c.offWait, *w) // is the profile in ns?
		return
	}
	if !c.timeBased {
		c.offDropped++
		return
	}
	if c.stacks != nil && c.o.Weight == CPU {
		c.offCPUOnly++ // no CPU time: lines of weight 0
		return
	}
	wall := float64(w.OffCPU)
	st, comm := c.leafStack(w)
	if c.prof != nil {
		if c.o.Split <= 0 || w.OffEnd <= w.Time {
			c.prof.AddOff(c.splitWindow(w.Time), st, comm, w.PID, w.TID, w.State.String(), wall)
			return
		}
		// Spread over the --split windows it overlaps.
		first, _, _ := c.trace.Span()
		for win := c.splitWindow(w.Time); ; win++ {
			lo := first + int64(win)*int64(c.o.Split)
			hi := lo + int64(c.o.Split)
			if part := spread(w.Time, w.OffEnd, wall, lo, hi); part > 0 {
				c.prof.AddOff(win, st, comm, w.PID, w.TID, w.State.String(), part)
			}
			if hi >= w.OffEnd {
				break
			}
		}
		return
	}
	if c.parRoot != nil {
		st = c.withParFrame(st, 0)
	}
	c.totals.Add(st, 0, wall)
}

// addLost adds a thread's CPU time whose samples were lost, at its last
// stack under a leaf [lost]: wall time only (no sample was in the text:
// the CPU totals stay the text's periods).
func (c *Collector) addLost(w *state.Weighted) {
	if !c.timeBased || w.Par <= 0 || (c.stacks != nil && c.o.Weight == CPU) {
		return
	}
	wall := float64(w.Period) / w.Par
	st, comm := c.leafStack(w)
	if c.prof != nil {
		c.prof.AddOff(c.splitWindow(w.Time), st, comm, w.PID, w.TID, w.State.String(), wall)
		return
	}
	if c.parRoot != nil {
		st = c.withParFrame(st, w.Parallelism)
	}
	c.totals.Add(st, 0, wall)
}

// leafStack returns the stack of w's Ref with a leaf frame that names its
// state ([blocked], [runnable], [lost]), in the profile or the folded
// stacks, and (pprof) its comm.
func (c *Collector) leafStack(w *state.Weighted) (stack, comm uint32) {
	if c.offLeaf == nil {
		c.offLeaf = make(map[[2]uint32]uint32)
	}
	ref := uint32(w.Ref)
	if c.prof != nil {
		r := c.refs[w.Ref]
		ref, comm = r[0], r[1]
	}
	k := [2]uint32{ref, uint32(w.State)}
	if st, ok := c.offLeaf[k]; ok {
		return st, comm
	}
	leaf := "[" + w.State.String() + "]"
	var st uint32
	if c.prof != nil {
		st = c.prof.WithLeaf(ref, leaf)
	} else {
		st = c.stacks.Append(ref, c.stacks.InternName([]byte(leaf)))
	}
	c.offLeaf[k] = st
	return st, comm
}

// Close adds the samples that waited for the trace's end (a window in
// percent of a span not known beforehand); call it after the model's.
func (c *Collector) Close() {
	if len(c.offWait) > 0 {
		wait := c.offWait
		c.offWait = nil
		if !c.eventSeen {
			c.offNoEvent += len(wait) // no profiled sample: no unit
		} else {
			for i := range wait {
				c.addOff(&wait[i])
			}
		}
	}
	if !c.window.deferAll {
		return
	}
	_, c.o.Filter.End, _ = c.trace.Span()
	c.window.deferAll = false
	d := c.deferred
	c.deferred = nil
	c.Add(d)
}

// windowState is the time window in ns, once the trace's start is known.
type windowState struct {
	lo, hi   int64
	set      bool
	deferAll bool
}

// Warnings says which samples were not profiled (other events), and
// what the off-CPU view lacks.
func (c *Collector) Warnings() []string {
	var ws []string
	if c.offNoEvent > 0 {
		ws = append(ws, fmt.Sprintf("--off-cpu: no samples of a profiled event, so off-CPU time (%d shares) has no profile to go to; record with -e cpu-clock", c.offNoEvent))
	}
	if c.offCPUOnly > 0 {
		ws = append(ws, fmt.Sprintf("--off-cpu adds wall time only: with --weight=cpu the profile has none of it (%d shares left out)", c.offCPUOnly))
	}
	if c.offDropped > 0 {
		ws = append(ws, fmt.Sprintf("--off-cpu: the profiled event %s does not count nanoseconds, so off-CPU time (%d shares) cannot be added to it; record with -e cpu-clock", c.event, c.offDropped))
	}
	if c.blockStacks > 0 && !c.o.OffCPU {
		ws = append(ws, fmt.Sprintf("%d sched:sched_switch samples are block stacks (where threads went off CPU), not CPU samples: --off-cpu charges the wait to them", c.blockStacks))
	}
	if len(c.otherEvents) == 0 {
		return ws
	}
	names := make([]string, 0, len(c.otherEvents))
	for ev, n := range c.otherEvents {
		names = append(names, fmt.Sprintf("%s (%d samples)", ev, n))
	}
	sort.Strings(names)
	return append(ws, fmt.Sprintf("using event %s; skipped other events: %s (choose with --event)", c.event, strings.Join(names, ", ")))
}

// WriteTop writes the table of functions (the Top format), n rows (0: a
// screenful).
func (c *Collector) WriteTop(w io.Writer, n int) error {
	return WriteTop(w, c.stacks, &c.totals, n, c.timeBased || !c.eventSeen, string(c.event))
}

// WriteSVG writes the flame graph (the SVG format).
func (c *Collector) WriteSVG(w io.Writer, title string) error {
	return WriteSVG(w, c.stacks, &c.totals, SVGOptions{Weight: c.o.Weight,
		TimeBased: c.timeBased || !c.eventSeen, Unit: string(c.event), Title: title})
}

// WriteFolded writes the folded stacks (the Folded format).
func (c *Collector) WriteFolded(w io.Writer) error {
	return WriteFolded(w, c.stacks, &c.totals, c.o.Weight)
}

// offAdded reports whether the profile could take off-CPU time.
func (c *Collector) offAdded() bool {
	return c.eventSeen && c.timeBased && !(c.stacks != nil && c.o.Weight == CPU)
}

// spread returns the part of ns, taken evenly from start to end, that
// falls in [lo, hi]; all of it or nothing when start = end.
func spread(start, end int64, ns float64, lo, hi int64) float64 {
	if end <= start {
		if start >= lo && start <= hi {
			return ns
		}
		return 0
	}
	a, b := max(start, lo), min(end, hi)
	if b <= a {
		return 0
	}
	return ns * float64(b-a) / float64(end-start)
}

// Header takes a line of perf's header (a parse.KindHeader record).
func (c *Collector) Header(rec *parse.Record) { c.header.Add(rec) }

// WritePprof writes the profile (the Pprof format), all of it in one
// (whatever Options.Split); comments go into it.
func (c *Collector) WritePprof(w io.Writer, comments []string) error {
	pr := c.prof.Build(c.pprofMeta(-1, comments))
	return WritePprof(w, pr)
}

// WritePprofs writes one profile per window of Options.Split that has
// samples, in order: open is called with the window's number (from 0 at
// the trace's first record) and a function that writes its profile.
func (c *Collector) WritePprofs(comments []string, open func(win int, write func(io.Writer) error) error) error {
	return c.prof.BuildEach(func(win int32) Meta { return c.pprofMeta(win, comments) }, false,
		func(win int32, pr *profile.Profile) error {
			return open(int(win), func(w io.Writer) error { return WritePprof(w, pr) })
		})
}

// splitWindow returns the --split window of trace time t.
func (c *Collector) splitWindow(t int64) int32 {
	if c.o.Split <= 0 {
		return 0
	}
	first, _, _ := c.trace.Span()
	if t <= first {
		return 0
	}
	return int32((t - first) / int64(c.o.Split))
}

// pprofMeta is what the profile of window win (-1: all) says of its
// trace: its time and duration in Unix time are those of the window, of
// --time's window, or of the trace.
func (c *Collector) pprofMeta(win int32, comments []string) Meta {
	first, last, _ := c.trace.Span()
	lo, hi := first, last
	if c.o.Filter.Time.set {
		wlo, whi := c.o.Filter.Time.bounds(first, c.o.Filter.End)
		lo, hi = max(lo, wlo), min(hi, whi)
	}
	if win >= 0 && c.o.Split > 0 {
		wlo := first + int64(win)*int64(c.o.Split)
		lo, hi = max(lo, wlo), min(hi, wlo+int64(c.o.Split))
	}
	if hi < lo {
		hi = lo
	}
	return Meta{
		Event:         string(c.event),
		TimeBased:     c.timeBased || !c.eventSeen, // no samples: the usual names
		Period:        c.period,
		TimeNanos:     c.unixOffset(first, last) + lo,
		DurationNanos: hi - lo,
		Comments:      comments,
	}
}

// unixOffset returns what turns perf's clock (seconds since boot) into
// Unix time: --start (the first record's time), else perf's header (its
// "captured on" is when the recording ended: the last sample), else the
// run's own time minus the span (the trace just ended, as in a pipe
// behind perf script).
func (c *Collector) unixOffset(first, last int64) int64 {
	switch h := c.header; {
	case !c.o.Start.IsZero():
		return c.o.Start.UnixNano() - first
	case !h.CapturedOn.IsZero():
		end := last
		if h.LastSample > 0 {
			end = h.LastSample
		}
		return h.CapturedOn.UnixNano() - end
	default:
		return c.now().UnixNano() - last
	}
}

// WriteSummary writes the summary, then the warnings; unicode draws block
// bars (for a terminal).
func (c *Collector) WriteSummary(w io.Writer, unicode bool, warnings []string) error {
	o := SummaryOptions{TimeBased: c.timeBased, Unit: string(c.event), Unicode: unicode,
		IdleSamples: c.sum.idleSamples, IdleCPU: c.sum.idleCPU, TopGroups: c.o.TopGroups, OffCPU: c.o.OffCPU && c.offAdded(), SplitWhole: c.splitWhole}
	if c.trace.Scope() == state.Process {
		if h, ok := c.sum.treeHint(c); ok {
			o.Tree = &h
		}
	}
	return WriteSummary(w, c.sum.list(c, c.trace.Scope()), o, warnings)
}

// rootCache names folded roots as stackcollapse-perf.pl does (comm, or
// comm-PID[/TID]): consecutive samples mostly share their root, and then
// skip its lookup.
type rootCache struct {
	name     []byte
	id       uint32
	ok       bool
	comm     []byte
	pid, tid int
}

func (r *rootCache) lookup(s *Stacks, rec *parse.Record, withPID, withTID bool) uint32 {
	if r.ok && bytes.Equal(rec.Comm, r.comm) && (!(withPID || withTID) || (rec.PID == r.pid && rec.TID == r.tid)) {
		return r.id
	}
	r.name = commRoot(r.name, rec.Comm, rec.PID, rec.TID, withPID, withTID)
	r.id = s.InternName(r.name)
	r.comm = append(r.comm[:0], rec.Comm...)
	r.pid, r.tid, r.ok = rec.PID, rec.TID, true
	return r.id
}

// commRoot formats the root frame as stackcollapse-perf.pl does.
func commRoot(dst, comm []byte, pid, tid int, withPID, withTID bool) []byte {
	dst = dst[:0]
	for _, c := range comm {
		if c == ' ' {
			c = '_'
		}
		dst = append(dst, c)
	}
	if withPID || withTID {
		dst = append(dst, '-')
		if pid >= 0 {
			dst = fmt.Appendf(dst, "%d", pid)
		} else {
			dst = append(dst, '?')
		}
		if withTID {
			dst = fmt.Appendf(dst, "/%d", tid)
		}
	}
	return dst
}

// withParFrame returns the stack ref with "[parallelism N]" as its root.
func (c *Collector) withParFrame(ref uint32, par int) uint32 {
	name := c.stacks.InternName([]byte(fmt.Sprintf("[parallelism %d]", par)))
	k := [2]uint32{name, ref}
	if id, ok := c.parRoot[k]; ok {
		return id
	}
	id := c.stacks.Prepend(name, ref)
	c.parRoot[k] = id
	return id
}
