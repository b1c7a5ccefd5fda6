package state

// This file holds the tracker's setup and state: its threads, and the
// groups they count in.

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
	Spin   bool // its stack shows a spin-wait (Event.Spin)
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
	// Stalls counts silences taken as running because nothing else was
	// printed in them (stall.go).
	Stalls     int
	Samples    int
	Threads    int
	UnknownPID int // sampled threads whose process was never learnt
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
	firstAt  int64
	sampled  bool // has samples (for stats.UnknownPID)
	exited   bool // an EXIT said so (or its tid was reused)
	// pidGuessed: its process was unknown when it was first seen (at
	// firstAt), so it is its own for now.
	pidGuessed bool
	// The small fields of the parts below, here in one word (a struct of
	// 256 bytes, not 288, each with its bytes of padding): swIn is
	// switchSigns', exitOff exitRun's, on, inSet and offState offThread's.
	swIn, exitOff bool
	on, inSet     bool  // on CPU; in the off set
	offState      State // in the set: Blocked or Runnable

	runGap        // running or not, and the gap to decide
	switchSigns   // its switch records, for clock skew (skew.go)
	sampleSpacing // its samples' spacing, for losses (lost.go)
	offThread     // its off-CPU accounting (offcpu.go)
	unsampledRun  // its time on CPU and its samples' (unsampled.go)
	quietMark     // where its silence's quiet time counts from (stall.go)
	exitRun       // its last moments, after its EXIT (offcpu.go)
	wokenBy       // the waker of the share being charged (wakeup.go)
}

// group is a scope group: its samples waiting in input order (the queue
// and its difference array, gap.go), its threads' open gaps, and its
// off-CPU split.
type group struct {
	key     int
	threads int    // live thread structs in the group
	seq     uint64 // seq of the next sample to enqueue
	base    uint64 // seq of q's oldest
	q       fifo[pending]
	tail    int64 // diff for seq == g.seq (not yet enqueued)
	acc     int64
	// The spinning threads' diffs (pending.spinDiff), apart.
	spinTail, spinAcc int64
	open              fifo[openSeg]
	off               offAcct

	lossSums // the released samples' sums, for losses (lost.go)
}

// tracker is the state machine. It is not safe for concurrent use.
type tracker struct {
	cfg     config
	threads map[int]*thread
	pidOf   *pidTable // tid -> pid learned from FORK, pid/tid columns, CPU-wide switches
	groups  map[int]*group
	one     *group          // the only group in workload scope; the tree's in tree scope
	cpuCur  map[int]*thread // CPU -> the thread last seen on it
	now     int64
	stats   stats
	wake    wakeStats     // wakeups (wakeup.go)
	exp     fifo[openSeg] // open gaps of all groups, in time order
	esplit  int           // exp's entries from esplit on: gaps the split has not heard are silent
	dead    []deadThread  // exited threads, to forget later
	reaped  int           // threads forgotten since the maps were last remade
	cold    coldStore     // threads forgotten while quiet (cold.go)
	// forgetSoon: forget quiet threads as soon as they may be (tests).
	forgetSoon bool

	lossTrack  // losses of records (lost.go)
	stallTrack // the time nothing was printed (stall.go)
	splitTrack // the splits' window and the forgotten groups' (offcpu.go)
	treeTrack  // the process tree (tree.go)
}

// newGroup returns an empty group with key.
func (t *tracker) newGroup(key int) *group {
	g := &group{key: key}
	g.off.lo, g.off.hi = t.splitLo, t.splitHi
	return g
}

// newTracker returns a tracker set up by cfg (Release is required).
func newTracker(cfg config) *tracker {
	t := &tracker{
		cfg:        cfg,
		threads:    make(map[int]*thread),
		pidOf:      &pidTable{},
		groups:     make(map[int]*group),
		cpuCur:     make(map[int]*thread),
		splitTrack: splitTrack{splitLo: -1 << 62, splitHi: 1 << 62},
		treeTrack:  treeTrack{treeRoot: -1, parent: make(map[int]int), inTree: make(map[int]bool)},
	}
	t.forgetSoon = forgetSoonBuild
	return t
}

// counts returns the counts so far (Threads, UnknownPID and Groups as the
// maps are now).
func (t *tracker) counts() stats {
	s := t.stats
	s.Threads = len(t.threads) + t.cold.at.Len()
	for tid, th := range t.threads {
		if _, ok := t.pidOf.get(tid); !ok && th.sampled && tid > 0 {
			s.UnknownPID++
		}
	}
	s.UnknownPID += t.coldUnknownPID()
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

// group returns the group of a thread tid of process pid, made if new.
func (t *tracker) group(pid, tid int) *group {
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
	key := pid
	if t.cfg.Scope == Thread {
		key = tid
	}
	g := t.groups[key]
	if g == nil {
		g = t.newGroup(key)
		t.groups[key] = g
	}
	return g
}

// learn records that tid belongs to pid.
func (t *tracker) learn(pid, tid int) {
	if pid < 0 || tid <= 0 {
		return
	}
	if old, ok := t.pidOf.get(tid); ok && old == pid {
		return
	}
	th := t.lookup(tid) // first: a forgotten thread's pid is kept relative to pidOf
	t.pidOf.set(tid, pid)
	if th != nil && th.pid != pid {
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
	return t.pidOf.get(tid)
}

// seed learns what a first pass over the trace found (Model.Seed): tid is
// in pid (ppid < 0), or pid was forked by ppid (tid < 0), unless the tid
// or pid is known already.
func (t *tracker) seed(pid, tid, ppid int) {
	switch {
	case tid > 0 && pid >= 0:
		if _, ok := t.pidOf.get(tid); !ok {
			t.lookup(tid)
			t.pidOf.set(tid, pid)
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
	ng := t.group(pid, th.tid)
	th.pid = pid
	if ng == th.g {
		return // workload scope: one group; thread scope: its own
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

// newThread returns a thread as it is before its first record counts.
func newThread(tid, pid int, guessed bool, now int64) *thread {
	return &thread{tid: tid, pid: pid, pidGuessed: guessed, firstAt: now,
		runGap:        runGap{cpu: -1},
		sampleSpacing: sampleSpacing{sampleAt: noTime},
		offThread:     offThread{lastRef: OtherEvent, blockRef: OtherEvent, switchRef: OtherEvent, offRef: OtherEvent}}
}

func (t *tracker) thread(pid, tid int) *thread {
	th := t.lookup(tid)
	if th != nil {
		return th
	}
	guessed := false
	if pid < 0 {
		if p, ok := t.pidOf.get(tid); ok {
			pid = p
		} else {
			pid, guessed = tid, true // a tid with no known pid is its own process
		}
	}
	th = newThread(tid, pid, guessed, t.now)
	th.g = t.group(pid, tid)
	th.g.threads++
	t.threads[tid] = th
	return th
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
		if th.inSet {
			t.runOff(th, t.now, offGone) // preempted after its EXIT, never back
		}
		delete(t.threads, d.tid)
		t.reaped++
		if p, ok := t.pidOf.get(d.tid); ok && p == th.pid {
			t.pidOf.del(d.tid)
		}
		t.leaveGroup(th)
	}
	if cap(t.dead) > 1024 && len(t.dead) < cap(t.dead)/4 {
		t.dead = append([]deadThread(nil), t.dead...)
	}
	if t.reaped > minRemade && t.reaped > len(t.threads) {
		// A Go map keeps its largest size's buckets after deletes: remade,
		// its memory follows the live threads (a million exited threads
		// kept some 150 bytes each).
		t.threads, t.groups = remade(t.threads), remade(t.groups)
		t.pidOf.odd = remade(t.pidOf.odd)
		t.reaped = 0
	}
}

// leaveGroup takes a forgotten thread out of its group's count, and the
// group out of the map when it has no thread and no sample left.
func (t *tracker) leaveGroup(th *thread) {
	if g := th.g; g != t.one && g != t.outside {
		g.threads--
		if g.threads <= 0 && g.q.len() == 0 && t.groups[g.key] == g {
			if t.cfg.KeepSplits {
				t.splits = append(t.splits, t.closeSplit(g, nil)) // no thread left
			}
			delete(t.groups, g.key)
		}
	}
}

// remade returns a copy of m sized for what it holds: maps.Clone copies
// its tables as they are, as large as they ever grew (100 000 entries
// left of a million: 28 MB cloned, 2.3 MB remade).
func remade[K comparable, V any](m map[K]V) map[K]V {
	if m == nil {
		return nil
	}
	r := make(map[K]V, len(m))
	for k, v := range m {
		r[k] = v
	}
	return r
}

// minRemade is how many threads are forgotten before reap remakes the
// maps (a copy of the live ones), so that their copying costs nothing
// much per thread.
const minRemade = 1 << 12

type deadThread struct {
	tid int
	th  *thread
	at  int64
}
