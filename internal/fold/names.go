package fold

import "github.com/wallfold/wallfold/parse"

// threadNames names the records that perf printed with a ":TID" comm
// (perf 7 forgets a thread at its EXIT: its last samples and switch-outs
// come after it) by the name the thread's earlier records, COMM and FORK
// gave it, as perf 6.1 named them; with no name known, perf's stays. The
// comm is where a stack's root, a process's name in the summary, the
// pprof comm label and --comm's filter come from, so this is done to the
// record before anything reads it. Names are the trace's, not the model's
// (state knows no text), hence here.
//
// perf (6.1 too) prints ":-1  -1" (tid unknown) for the last records of
// a task already unhashed; in a CPU-wide trace it is the task whose
// records the CPU printed last, when that task has EXITed: its name is
// given too (the tid stays -1: who runs is the model's to say).
//
// Memory: one entry per thread, forgotten some time after the thread's
// EXIT once the table has grown.
type threadNames struct {
	byTID map[int]threadName
	// Names learnt or confirmed lately, by tid modulo its size: a record
	// of a thread seen lately costs a comparison, no map lookup (9 ns a
	// record instead of 25, BenchmarkThreadNames; 64 slots were too few
	// for a 64-CPU build's threads: 10 M instructions more, callgrind).
	recent [recentSlots]recentName
	now    int64 // the latest record time seen
	onCPU  []int // CPU -> the tid of its last record (0 idle), -1 none
	limit  int   // table size at which exited threads are forgotten
	// Each name once: a build's thousands of threads have a few names.
	pool map[string][]byte
}

type recentName struct {
	tid  int // 0: empty
	name []byte
}

type threadName struct {
	name   []byte // never written once stored: records point into it
	exited int64  // the time of the thread's EXIT, when gone
	gone   bool
}

const (
	// keepAfterExit is how long (trace time) a thread's name outlives its
	// EXIT: its records after it come within milliseconds; records in
	// perf's flush order may lag by tens of ms. 1 s, as long as the model
	// keeps an exited thread (state's reapDelay).
	keepAfterExit = 1e9
	namesMinLimit = 1 << 12
	maxCPUs       = 1 << 16 // a larger CPU column is no CPU: not followed
	recentSlots   = 1 << 10
)

func newThreadNames() threadNames {
	return threadNames{byTID: make(map[int]threadName), pool: make(map[string][]byte), limit: namesMinLimit}
}

// fix learns the names rec tells, and sets rec.Comm to its thread's
// last known name when perf printed ":TID".
func (n *threadNames) fix(rec *parse.Record) {
	if rec.HasTime && rec.Time > n.now {
		n.now = rec.Time
	}
	switch {
	case !rec.HasTID:
	case rec.TID > 0 && parse.IsPlaceholderComm(rec.Comm, rec.TID):
		if e, ok := n.byTID[rec.TID]; ok {
			rec.Comm = e.name
		}
	case rec.TID > 0:
		n.learn(rec.TID, rec.Comm)
	case rec.TID < 0 && rec.CPU >= 0 && rec.CPU < len(n.onCPU) && parse.IsPlaceholderComm(rec.Comm, rec.TID):
		if e, ok := n.byTID[n.onCPU[rec.CPU]]; ok && e.gone {
			rec.Comm = e.name
		}
	}
	if rec.HasTID && rec.TID >= 0 && rec.CPU >= 0 {
		n.ran(rec.CPU, rec.TID)
	}
	switch rec.Kind {
	case parse.KindComm:
		n.learn(rec.SubjectTID, rec.NewComm)
	case parse.KindFork:
		// A new thread (or a reused tid) starts with its parent's name.
		if rec.TID == rec.ParentTID && rec.SubjectTID != rec.TID {
			n.born(rec.SubjectTID, rec.Comm)
		}
	case parse.KindExit:
		if e, ok := n.byTID[rec.SubjectTID]; ok && rec.SubjectTID > 0 {
			e.gone, e.exited = true, n.now
			n.byTID[rec.SubjectTID] = e
		}
	}
}

// ran notes a record of thread tid on cpu.
func (n *threadNames) ran(cpu, tid int) {
	if cpu >= len(n.onCPU) {
		if cpu >= maxCPUs {
			return
		}
		for len(n.onCPU) <= cpu {
			n.onCPU = append(n.onCPU, -1)
		}
	}
	n.onCPU[cpu] = tid
}

// learn notes that thread tid is called name now.
func (n *threadNames) learn(tid int, name []byte) {
	if tid <= 0 || len(name) == 0 {
		return
	}
	r := &n.recent[tid%recentSlots]
	if r.tid == tid && string(name) == string(r.name) {
		return
	}
	e, ok := n.byTID[tid]
	if !ok || string(e.name) != string(name) {
		if parse.LooksPlaceholderComm(name) {
			return
		}
		if !ok && len(n.byTID) >= n.limit {
			n.prune()
		}
		e.name = n.intern(name)
		n.byTID[tid] = e
	}
	*r = recentName{tid, e.name}
}

// intern returns a copy of name kept for the run, the same for the same
// name.
func (n *threadNames) intern(name []byte) []byte {
	if b, ok := n.pool[string(name)]; ok {
		return b
	}
	if len(n.pool) >= n.limit {
		n.pool = make(map[string][]byte) // the names kept stay valid
	}
	b := append([]byte(nil), name...)
	n.pool[string(b)] = b
	return b
}

// born starts thread tid afresh under its parent's name.
func (n *threadNames) born(tid int, name []byte) {
	if tid <= 0 || len(name) == 0 || parse.LooksPlaceholderComm(name) {
		return
	}
	if e, ok := n.byTID[tid]; ok && e.gone {
		delete(n.byTID, tid) // a reused tid: not the old thread
		n.recent[tid%recentSlots] = recentName{}
	}
	n.learn(tid, name)
}

// prune forgets the threads that exited long enough ago, and lets the
// table grow to twice what is left before it looks again.
func (n *threadNames) prune() {
	old := 0
	for _, e := range n.byTID {
		if e.gone && n.now-e.exited > keepAfterExit {
			old++
		}
	}
	if 2*old >= len(n.byTID) {
		// Most go: copied rather than deleted from, since a Go map keeps
		// its largest size's buckets, and memory is to follow the live
		// threads. (Copying a map most of which stays would double it.)
		live := make(map[int]threadName, len(n.byTID)-old)
		for tid, e := range n.byTID {
			if !e.gone || n.now-e.exited <= keepAfterExit {
				live[tid] = e
			}
		}
		n.byTID = live
	} else if old > 0 {
		for tid, e := range n.byTID {
			if e.gone && n.now-e.exited > keepAfterExit {
				delete(n.byTID, tid)
			}
		}
	}
	n.recent = [recentSlots]recentName{}
	n.limit = max(namesMinLimit, 2*len(n.byTID))
}
