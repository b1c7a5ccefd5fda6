// Package state owns threads and time: it keeps, per scope group (the
// whole workload, or each process), the set of threads that are on a CPU,
// and gives each sample the number of threads running at its moment: its
// parallelism. Model is its entry point (Add an Event per record, take the
// Weighted samples from Ready and Close); it also decides the scope, looks
// ahead for each thread's process, sets the silence limit, measures the
// span and says what the trace lacks.
//
// It must not know text or output formats: it imports nothing of the
// module, and its callers turn records into Events.
//
// # Model
//
// Every record of a thread is a sign of life: a sample or a SWITCH IN says
// it is running from then on; a SWITCH OUT or EXIT says it is not. Between
// a "running" sign at time L and the thread's next sign N, the thread is
// taken as running throughout [L, N] unless the gap N-L is longer than the
// silence limit (config.Gap): a thread on a CPU is sampled every period by
// a time-based event, so a long silence means it stopped at L (it exited
// without a record, or a record was lost). Whether a thread's gap is short
// is known only when its next sign arrives or the limit passes, so samples
// wait in a queue until every gap that could cover them is decided; the
// wait is bounded by the limit (a few sampling periods).
//
// The queue holds samples in input order with a sequence number. A decided
// running gap adds +1 to the samples between its two signs (a difference
// array over the queue); a sample leaves the queue when no open gap starts
// at or before it, and its parallelism is the prefix sum plus one for its
// own thread.
package state

import "fmt"

// Scope says which threads count towards a sample's parallelism.
type Scope uint8

const (
	// Auto decides from the records: workload for per-task traces,
	// process for system-wide ones (see Model.decide).
	Auto Scope = iota
	// Workload counts every traced thread (perf record -- make).
	Workload
	// Process counts the threads of the sample's own process.
	Process
	// Tree counts the threads of one process and all its descendants
	// (Options.TreePID or TreeComm); other processes only take CPUs.
	Tree
)

var scopeNames = [...]string{"auto", "workload", "process", "tree"}

func (s Scope) String() string {
	if int(s) < len(scopeNames) {
		return scopeNames[s]
	}
	return "unknown"
}

// UnmarshalText decodes "auto", "workload" or "process" (for flags).
func (s *Scope) UnmarshalText(b []byte) error {
	for i, n := range scopeNames[:Tree] { // a tree needs its root
		if string(b) == n {
			*s = Scope(i)
			return nil
		}
	}
	return fmt.Errorf("scope %q: want auto, workload or process", b)
}

// sample is what the tracker needs of a sample. Ref is the caller's
// handle, passed back on release.
type sample struct {
	Time   int64 // ns
	PID    int   // -1 if unknown
	TID    int
	CPU    int // -1 if unknown
	Period uint64
	Ref    int
	Lost   bool // a thread's CPU time whose samples were lost (lost.go)
}

// config sets up a tracker.
type config struct {
	Scope Scope
	// Gap is the silence limit in ns: a running thread with no record for
	// longer than this is taken as stopped since its last record. 0 means
	// silence is no evidence (non-time events): records alone decide.
	// Negative means not known yet (see setGap).
	Gap int64
	// Rate: while no switch record has come, estimate each silent thread
	// by its sampling rate (closeGap) rather than by the silence limit.
	Rate bool

	// Release receives every sample with its parallelism.
	Release releaseFunc
	// ReleaseOff receives shares of off-CPU time (nil: none wanted).
	ReleaseOff func(th *thread, s State, ns, since, end int64, ref int)
	// OnTransition receives the timeline (nil: none wanted).
	OnTransition func(Transition)
	// KeepSplits keeps the split of every group, also of those forgotten
	// before the end (reap).
	KeepSplits bool
}

// releaseFunc receives each sample with its parallelism (0 for idle
// samples, tid 0). Samples are released in input order within a group, and
// every sample given to the tracker is released exactly once (by flush at
// the latest). g is the group whose threads decided it (nil: idle, or a
// task perf no longer names).
type releaseFunc func(s sample, parallelism float64, g *group)

// stats counts what the tracker saw (for Model's warnings).
type stats struct {
	Switches     int // SWITCH and SWITCH_CPU_WIDE records
	CPUWide      int // SWITCH_CPU_WIDE records
	TaskEvents   int // FORK, EXIT, COMM records
	Exits        int
	Lost         uint64 // records reported lost
	LostEvents   int    // LOST records
	FirstLostAt  int64
	SilentStops  int // running threads taken as stopped after silence
	ImplicitOuts int // threads taken off a CPU another thread took
	// StaleRecords counts switch-outs, samples and forks taken as written
	// out of order by a CPU whose clock is behind (skew.go); the latest by
	// StaleBy ns.
	StaleRecords int
	StaleBy      int64
	// Bridged counts silences taken as running through lost records.
	Bridged int
	// Discontinuities counts steps back in time longer than the silence
	// limit: every open gap ended there.
	Discontinuities int
	Samples         int
	Threads         int
	UnknownPID      int // sampled threads whose process was never learnt
	// LateNamed counts sampled threads whose process was learnt only after
	// their first records counted (as a process of their own); the latest
	// by LateBy ns.
	LateNamed int
	LateBy    int64
	Groups    int
}

// thread is a task the tracker follows: who it is and, in parts declared
// beside the code that uses them, its running gap, its switch records,
// its samples' spacing and its off-CPU accounting.
type thread struct {
	tid, pid int
	g        *group
	sampled  bool // has samples (for stats.UnknownPID)
	exited   bool // an EXIT said so (or its tid was reused)
	// pidGuessed: its process was unknown when it was first seen (at
	// firstAt), so it is its own for now.
	pidGuessed bool
	firstAt    int64

	runGap        // running or not, and the gap to decide
	switchSigns   // its switch records, for clock skew (skew.go)
	sampleSpacing // its samples' spacing, for losses (lost.go)
	offThread     // its off-CPU accounting (offcpu.go)
}

// runGap is a thread's running state: per its last record, and the
// running gap since its last sign while it is undecided.
type runGap struct {
	running     bool // per the last record: on a CPU
	cpu         int  // CPU it runs on, when known
	segOpen     bool // an undecided running gap starts at segTime
	segGen      uint32
	segSeq      uint64 // first sample seq the gap covers
	segTime     int64  // the sign that opened the gap
	committed   bool   // records-only mode: +1 already added at segSeq
	splitOff    bool   // the split has taken the open gap as silent
	segBySample bool   // the open gap's sign is a sample (not an IN)
}

// openSeg is an entry of an open-gap list (group.open, tracker.exp): th's
// gap number gen. Deciding a gap leaves its entries in place; they are
// skipped when they reach a list's head.
type openSeg struct {
	th  *thread
	gen uint32
}

// live reports whether the gap is still open (not decided since).
func (o openSeg) live() bool { return o.th.segOpen && o.th.segGen == o.gen }

type pending struct {
	s    sample
	diff int64 // in units of 1/parOne of a thread
}

type group struct {
	key     int
	threads int    // live thread structs in the group
	seq     uint64 // seq of the next sample to enqueue
	base    uint64 // seq of q[head]
	q       []pending
	head    int
	tail    int64 // diff for seq == g.seq (not yet enqueued)
	acc     int64
	open    []openSeg
	ohead   int
	off     offAcct
	// The samples released so far and the sum of their 1/parallelism,
	// and these sums where a loss's window began (lost.go).
	relN       int64
	relInv     float64
	lossMark   map[uint64]relSums // seq where a loss began -> sums there
	pseudoMark map[uint64]uint64  // a loss's pseudo-sample's seq -> where it began
	marks      []uint64           // lossMark's seqs not released yet, in order
}

// tracker is the state machine. It is not safe for concurrent use.
type tracker struct {
	cfg     config
	threads map[int]*thread
	pidOf   map[int]int // tid -> pid learned from FORK, pid/tid columns, CPU-wide switches
	groups  map[int]*group
	one     *group          // the only group in workload scope; the tree's in tree scope
	cpuCur  map[int]*thread // CPU -> the thread last seen on it
	now     int64
	stats   stats
	exp     []openSeg // open gaps of all groups, in time order
	ehead   int
	esplit  int          // exp[esplit:]: gaps the split has not heard are silent
	dead    []deadThread // exited threads, to forget later

	lossTrack  // losses of records (lost.go)
	splitTrack // the splits' window and the forgotten groups' (offcpu.go)
	treeTrack  // the process tree (tree.go)
}

// newGroup returns an empty group with key.
func (t *tracker) newGroup(key int) *group {
	g := &group{key: key}
	g.off.lo, g.off.hi = t.splitLo, t.splitHi
	return g
}

// setSplitWindow makes the splits count only [lo, hi] of the trace.
func (t *tracker) setSplitWindow(lo, hi int64) {
	t.splitLo, t.splitHi = lo, hi
	for _, g := range t.allGroups() {
		g.off.lo, g.off.hi = lo, hi
	}
}

// newTracker returns a tracker set up by cfg (Release is required).
func newTracker(cfg config) *tracker {
	t := &tracker{
		cfg:        cfg,
		threads:    make(map[int]*thread),
		pidOf:      make(map[int]int),
		groups:     make(map[int]*group),
		cpuCur:     make(map[int]*thread),
		splitTrack: splitTrack{splitLo: -1 << 62, splitHi: 1 << 62},
		treeTrack:  treeTrack{treeRoot: -1, parent: make(map[int]int), inTree: make(map[int]bool)},
	}
	return t
}

// counts returns the counts so far (Threads, UnknownPID and Groups as the
// maps are now).
func (t *tracker) counts() stats {
	s := t.stats
	s.Threads = len(t.threads)
	for tid, th := range t.threads {
		if _, ok := t.pidOf[tid]; !ok && th.sampled && tid > 0 {
			s.UnknownPID++
		}
	}
	s.Groups = len(t.groups)
	if t.one != nil {
		s.Groups = 1
	}
	return s
}

// setScope changes the scope; it has effect only before the first thread
// is seen (records that name no running thread may come first).
func (t *tracker) setScope(s Scope) {
	if len(t.threads) == 0 {
		t.cfg.Scope = s
		t.one = nil
		t.groups = make(map[int]*group)
	}
}

// setGap sets the silence limit once it is known (from the first sample's
// event and period). With 0, open gaps are committed as running.
func (t *tracker) setGap(gap int64) {
	t.cfg.Gap = gap
	if gap != 0 {
		return
	}
	for _, g := range t.allGroups() {
		for i := g.ohead; i < len(g.open); i++ {
			o := g.open[i]
			if o.live() {
				t.commit(o.th)
			}
		}
		g.open = g.open[:0]
		g.ohead = 0
		t.drain(g)
	}
}

func (t *tracker) allGroups() []*group {
	if t.cfg.Scope == Tree {
		var gs []*group
		for _, g := range []*group{t.one, t.outside} {
			if g != nil {
				gs = append(gs, g)
			}
		}
		return gs
	}
	if t.one != nil {
		return []*group{t.one}
	}
	gs := make([]*group, 0, len(t.groups))
	for _, g := range t.groups {
		gs = append(gs, g)
	}
	return gs
}

func (t *tracker) group(pid int) *group {
	if t.cfg.Scope == Tree {
		if t.treeMember(pid) {
			if t.one == nil {
				t.one = t.newGroup(t.treeRoot)
			}
			return t.one
		}
		if t.outside == nil {
			t.outside = t.newGroup(-1)
		}
		return t.outside
	}
	if t.cfg.Scope == Workload {
		if t.one == nil {
			t.one = t.newGroup(0)
		}
		return t.one
	}
	g := t.groups[pid]
	if g == nil {
		g = t.newGroup(pid)
		t.groups[pid] = g
	}
	return g
}

// learn records that tid belongs to pid.
func (t *tracker) learn(pid, tid int) {
	if pid < 0 || tid <= 0 {
		return
	}
	if old, ok := t.pidOf[tid]; ok && old == pid {
		return
	}
	t.pidOf[tid] = pid
	if th := t.threads[tid]; th != nil && th.pid != pid {
		if th.pidGuessed && th.sampled {
			// Its samples so far counted as a process of its own.
			t.stats.LateNamed++
			t.stats.LateBy = max(t.stats.LateBy, t.now-th.firstAt)
		}
		th.pidGuessed = false
		t.move(th, pid)
	}
}

// processOf returns the process learnt for tid, if any.
func (t *tracker) processOf(tid int) (int, bool) {
	pid, ok := t.pidOf[tid]
	return pid, ok
}

// seed learns what a first pass over the trace found (Model.Seed): tid is
// in pid (ppid < 0), or pid was forked by ppid (tid < 0), unless the tid
// or pid is known already.
func (t *tracker) seed(pid, tid, ppid int) {
	switch {
	case tid > 0 && pid >= 0:
		if _, ok := t.pidOf[tid]; !ok {
			t.pidOf[tid] = pid
		}
	case tid < 0 && pid > 0 && ppid >= 0:
		if _, ok := t.parent[pid]; !ok {
			t.noteParent(pid, ppid)
		}
	}
}

// move puts a thread whose process was learnt late (e.g. from a CPU-wide
// switch record after its first record) into its process's group: its
// running gap ends in the old group and goes on in the new one.
func (t *tracker) move(th *thread, pid int) {
	ng := t.group(pid)
	th.pid = pid
	if ng == th.g {
		return // workload scope: one group
	}
	wasRunning := th.running && (th.segOpen || th.committed)
	old := th.g
	if wasRunning {
		t.closeGap(th, t.now)
	}
	t.runOff(th, t.now, offGone)
	th.g = ng
	old.threads--
	ng.threads++
	t.drain(old)
	if wasRunning {
		t.start(th, t.now)
	}
}

func (t *tracker) thread(pid, tid int) *thread {
	th := t.threads[tid]
	if th != nil {
		return th
	}
	guessed := false
	if pid < 0 {
		if p, ok := t.pidOf[tid]; ok {
			pid = p
		} else {
			pid, guessed = tid, true // a tid with no known pid is its own process
		}
	}
	th = &thread{tid: tid, pid: pid, pidGuessed: guessed, firstAt: t.now,
		runGap:        runGap{cpu: -1},
		sampleSpacing: sampleSpacing{sampleAt: noTime},
		offThread:     offThread{lastRef: OtherEvent, blockRef: OtherEvent, switchRef: OtherEvent, offRef: OtherEvent}}
	th.g = t.group(pid)
	th.g.threads++
	t.threads[tid] = th
	return th
}

func (t *tracker) advance(now int64) {
	// The clock follows the records, not their maximum: one wild
	// timestamp must not make every later gap overdue. A step back longer
	// than the silence limit (a corrupt line just before, or traces
	// concatenated) ends every open gap: nothing is known across it.
	back := t.now - now
	t.now = now
	if t.cfg.Gap > 0 && back > t.cfg.Gap {
		t.discontinuity()
	}
	t.reap()
	if t.cfg.Gap <= 0 {
		return
	}
	// Gaps open in time order, so the oldest is overdue first. The split
	// hears of a silence at the silence limit (its transitions must come
	// in time order); the parallelism is decided later, when no LOST
	// record can explain the silence any more (or at the rate limit).
	t.esplit = max(t.esplit, t.ehead)
	for t.esplit < len(t.exp) {
		o := t.exp[t.esplit]
		if o.live() {
			if t.now-o.th.segTime <= t.cfg.Gap {
				break
			}
			t.splitSilent(o.th)
		}
		t.esplit++
	}
	for t.ehead < len(t.exp) {
		o := t.exp[t.ehead]
		if !o.live() {
			t.ehead++
			continue
		}
		limit := t.cfg.Gap + lossHold // a LOST record may yet say why it was silent
		if t.rateMode() {
			limit = t.rateLimit()
		}
		if t.now-o.th.segTime <= limit {
			break
		}
		// Silent too long: it stopped at its last sign.
		o.th.segOpen = false
		o.th.running = false
		t.splitSilent(o.th)
		t.stats.SilentStops++
		t.ehead++
		t.drain(o.th.g)
	}
	if t.ehead > 1024 && t.ehead >= len(t.exp)/2 {
		n := copy(t.exp, t.exp[t.ehead:])
		t.exp = t.exp[:n]
		t.esplit -= t.ehead
		t.ehead = 0
	}
}

// discontinuity decides every open gap as "stopped at its last sign".
func (t *tracker) discontinuity() {
	t.stats.Discontinuities++
	for _, o := range t.exp[t.ehead:] {
		if o.live() {
			o.th.segOpen = false
			o.th.running = false
			t.splitSilent(o.th)
		}
	}
	t.exp = t.exp[:0]
	t.ehead, t.esplit = 0, 0
	for _, g := range t.allGroups() {
		t.drain(g)
	}
}

// reap forgets threads that exited long enough ago that no record in
// flight can still name them (the silence limit plus the caller's
// look-ahead), and processes left without threads: memory follows the
// live threads, not all the threads a long trace ever had.
func (t *tracker) reap() {
	for len(t.dead) > 0 {
		d := t.dead[0]
		if t.now-d.at < t.cfg.Gap+reapDelay && t.now >= d.at {
			return
		}
		t.dead = t.dead[1:]
		th := t.threads[d.tid]
		if th == nil || th != d.th || th.running || th.segOpen || th.committed {
			continue // reused, or alive again
		}
		delete(t.threads, d.tid)
		if p, ok := t.pidOf[d.tid]; ok && p == th.pid {
			delete(t.pidOf, d.tid)
		}
		if g := th.g; g != t.one && g != t.outside {
			g.threads--
			if g.threads <= 0 && g.head >= len(g.q) && t.groups[g.key] == g {
				if t.cfg.KeepSplits {
					t.splits = append(t.splits, t.closeSplit(g, nil)) // no thread left
				}
				delete(t.groups, g.key)
			}
		}
	}
	if cap(t.dead) > 1024 && len(t.dead) < cap(t.dead)/4 {
		t.dead = append([]deadThread(nil), t.dead...)
	}
}

type deadThread struct {
	tid int
	th  *thread
	at  int64
}

func (t *tracker) compactOpen(g *group) {
	if g.ohead > 0 && g.ohead >= len(g.open)/2 {
		n := copy(g.open, g.open[g.ohead:])
		g.open = g.open[:n]
		g.ohead = 0
	}
}

// addAt adds d to the diff of sample seq s in g.
// parOne is one thread in the difference array: fixed point, so that a
// gap's +w and -w cancel exactly (in float64 a rate estimate's fractions
// left 1e-16 behind, and integer counts with switch records were no
// longer exact).
const parOne = 1 << 32

func (g *group) addAt(s uint64, d int64) {
	if s >= g.seq {
		g.tail += d
		return
	}
	g.q[g.head+int(s-g.base)].diff += d
}

// commit adds the running thread's +1 from its gap start on, for good.
func (t *tracker) commit(th *thread) {
	th.g.addAt(th.segSeq, parOne)
	th.segOpen = false
	th.committed = true
}

// stop ends a thread's running state at a sign that says how.
func (t *tracker) stop(th *thread, now int64, how offHow) {
	t.closeGap(th, now)
	t.runOff(th, now, how)
	th.running = false
	if th.cpu >= 0 && t.cpuCur[th.cpu] == th {
		delete(t.cpuCur, th.cpu)
	}
}

// closeGap decides the thread's open gap at a new sign at time now.
func (t *tracker) closeGap(th *thread, now int64) {
	g := th.g
	if th.committed {
		g.addAt(g.seq, -parOne)
		th.committed = false
		return
	}
	if !th.segOpen {
		return
	}
	th.segOpen = false
	if t.cfg.Gap > 0 && now-th.segTime > t.cfg.Gap {
		t.splitSilent(th) // the split takes it as off since its last sign
		if t.ranThroughLoss(th, th.segTime, now) {
			t.stats.Bridged++ // its records were lost, not its CPU
			// It counts for the others as much as it ran (lossRun).
			w := int64(parOne * (float64(t.lossRun(th, th.segTime, now)) / float64(now-th.segTime)))
			g.addAt(th.segSeq, w)
			g.addAt(g.seq, -w)
			// The split took it as off since its last sign: it ran.
			t.ranThrough(th, th.segTime, now)
			th.splitOff = false
			t.lostTime(th, th.segTime, now)
			return
		}
	}
	limit, w := t.cfg.Gap, int64(parOne)
	if t.rateMode() {
		// No switch records: a thread sampled every period of its CPU
		// time ran P of the gap between two of its samples, on average:
		// it counts P/gap (at most 1) throughout.
		limit = t.rateLimit()
		w = int64(parOne * min(1, float64(t.cfg.Gap/silencePeriods)/float64(max(now-th.segTime, 1))))
	}
	if t.cfg.Gap > 0 && now-th.segTime > limit {
		t.stats.SilentStops++
		return // silent too long: not running in between
	}
	g.addAt(th.segSeq, w)
	g.addAt(g.seq, -w)
}

// rateMode reports the rate estimate: no switch records so far, a
// time-based event.
func (t *tracker) rateMode() bool { return t.cfg.Rate && t.stats.Switches == 0 && t.cfg.Gap > 0 }

// rateLimit is how long a gap between a thread's samples may be in the
// rate estimate: a worker that runs 50 µs every 20 ms is sampled every
// 400 ms, and counts 1/400 of a thread meanwhile. Samples wait up to this
// long (in trace time) for their parallelism.
func (t *tracker) rateLimit() int64 { return rateLimitPeriods * t.cfg.Gap / silencePeriods }

// splitSilent tells the split that th has been off its CPU since its
// last sign (once per gap).
func (t *tracker) splitSilent(th *thread) {
	if !th.splitOff {
		th.splitOff = true
		t.runOff(th, th.segTime, offSilent)
	}
}

// start opens a running gap at time now, covering later samples.
func (t *tracker) start(th *thread, now int64) {
	th.splitOff, th.segBySample = false, false
	t.runOn(th, now)
	th.running = true
	g := th.g
	th.segSeq = g.seq
	th.segTime = now
	if t.cfg.Gap == 0 {
		t.commit(th)
		return
	}
	th.segGen++
	th.segOpen = true
	g.open = append(g.open, openSeg{th, th.segGen})
	t.exp = append(t.exp, openSeg{th, th.segGen})
}

// onCPU notes that th runs on cpu; another thread seen there before has
// left it even if its SWITCH OUT was lost.
func (t *tracker) onCPU(th *thread, cpu int, now int64) {
	if cpu < 0 {
		return
	}
	if cur := t.cpuCur[cpu]; cur != nil && cur != th && cur.running && cur.cpu == cpu && !t.rateMode() {
		t.stats.ImplicitOuts++
		t.stop(cur, now, offBlocked)
		t.drain(cur.g)
	}
	t.cpuCur[cpu] = th
	th.cpu = cpu
}

// drain releases the samples no open gap can still cover.
func (t *tracker) drain(g *group) {
	for {
		// Skip decided entries at the head of the open list (also with no
		// sample waiting: a group with switches but no samples must not
		// pile them up).
		for g.ohead < len(g.open) {
			o := g.open[g.ohead]
			if o.live() && o.th.g == g {
				break
			}
			g.ohead++
		}
		if g.head >= len(g.q) {
			break
		}
		if g.ohead < len(g.open) && g.open[g.ohead].th.segSeq <= g.base {
			break
		}
		p := &g.q[g.head]
		g.acc += p.diff
		par := float64(g.acc)/parOne + 1
		s := p.s
		if t.lostAt != nil { // sums for a loss's parallelism (lost.go)
			if len(g.marks) > 0 {
				g.releasedSums(g.base)
			}
			if s.Lost {
				par = g.lossParallelism(g.base, par)
			} else {
				g.relN++
				g.relInv += 1 / par
			}
		}
		g.head++
		g.base++
		t.cfg.Release(s, par, g)
	}
	if g.head == len(g.q) {
		g.q = g.q[:0]
		g.head = 0
	} else if g.head > 1024 && g.head >= len(g.q)/2 {
		n := copy(g.q, g.q[g.head:])
		g.q = g.q[:n]
		g.head = 0
	}
	t.compactOpen(g)
}
