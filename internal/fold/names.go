package fold

import (
	"maps"

	"github.com/wallfold/wallfold/parse"
	"github.com/wallfold/wallfold/state"
)

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
// Memory: 4 bytes per thread (the index of its name, tidtable.go; the
// names once each), and the time of the EXIT of the threads that exited
// lately: those are forgotten some time after it once the table has grown.
type threadNames struct {
	byTID state.TIDTable    // tid -> 1 + the index of its name in list
	gone  map[int]int64     // tids in byTID that EXITed -> when
	list  [][]byte          // the names, each once: never written once stored (records point into them)
	pool  map[string]uint32 // name -> its index in list
	// Names learnt or confirmed lately, by tid modulo its size: a record
	// of a thread seen lately costs a comparison, no map lookup (9 ns a
	// record instead of 25, BenchmarkThreadNames; 64 slots were too few
	// for a 64-CPU build's threads: 10 M instructions more, callgrind).
	recent [recentSlots]recentName
	now    int64 // the latest record time seen
	onCPU  []int // CPU -> the tid of its last record (0 idle), -1 none
	limit  int   // table size at which exited threads are forgotten
}

type recentName struct {
	tid  int // 0: empty
	name []byte
}

const (
	// keepAfterExit is how long (trace time) a thread's name outlives its
	// EXIT: its records after it come within milliseconds; records in
	// perf's flush order may lag by tens of ms. 1 s, as long as the model
	// kept an exited thread (state's reapDelay, now 0.2 s).
	keepAfterExit = 1e9
	namesMinLimit = 1 << 12
	maxCPUs       = 1 << 16 // a larger CPU column is no CPU: not followed
	recentSlots   = 1 << 10
)

func newThreadNames() threadNames {
	return threadNames{gone: make(map[int]int64), pool: make(map[string]uint32), limit: namesMinLimit}
}

// name returns thread tid's name, if known.
func (n *threadNames) name(tid int) ([]byte, bool) {
	if i := n.byTID.Get(tid); i != 0 {
		return n.list[i-1], true
	}
	return nil, false
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
		if name, ok := n.name(rec.TID); ok {
			rec.Comm = name
		}
	case rec.TID > 0:
		n.learn(rec.TID, rec.Comm)
	case rec.TID < 0 && rec.CPU >= 0 && rec.CPU < len(n.onCPU) && parse.IsPlaceholderComm(rec.Comm, rec.TID):
		if name, ok := n.name(n.onCPU[rec.CPU]); ok && n.exited(n.onCPU[rec.CPU]) {
			rec.Comm = name
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
		if rec.SubjectTID > 0 && n.byTID.Get(rec.SubjectTID) != 0 {
			n.gone[rec.SubjectTID] = n.now
		}
	}
}

// exited reports whether a known thread tid EXITed.
func (n *threadNames) exited(tid int) bool {
	_, ok := n.gone[tid]
	return ok
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
	i := n.byTID.Get(tid)
	if i == 0 || string(n.list[i-1]) != string(name) {
		if parse.LooksPlaceholderComm(name) {
			return
		}
		if i == 0 && n.byTID.Len() >= n.limit {
			n.prune()
		}
		i = n.intern(name) + 1
		n.byTID.Set(tid, i)
	}
	*r = recentName{tid, n.list[i-1]}
}

// intern returns the index of name in the list, added if new.
func (n *threadNames) intern(name []byte) uint32 {
	if i, ok := n.pool[string(name)]; ok {
		return i
	}
	b := append([]byte(nil), name...)
	n.list = append(n.list, b)
	i := uint32(len(n.list) - 1)
	n.pool[string(b)] = i
	return i
}

// born starts thread tid afresh under its parent's name.
func (n *threadNames) born(tid int, name []byte) {
	if tid <= 0 || len(name) == 0 || parse.LooksPlaceholderComm(name) {
		return
	}
	if n.exited(tid) {
		n.byTID.Set(tid, 0) // a reused tid: not the old thread
		delete(n.gone, tid)
		n.recent[tid%recentSlots] = recentName{}
	}
	n.learn(tid, name)
}

// prune forgets the threads that exited long enough ago, and lets the
// table grow to twice what is left before it looks again; the names no
// thread has any more go too.
func (n *threadNames) prune() {
	old := 0
	for tid, at := range n.gone {
		if n.now-at > keepAfterExit {
			n.byTID.Set(tid, 0)
			delete(n.gone, tid)
			old++
		}
	}
	if old > 0 {
		// A Go map keeps its largest size's buckets after deletes.
		n.gone = maps.Clone(n.gone)
	}
	if len(n.list) > 2*n.byTID.Len()+namesMinLimit {
		n.renumber()
	}
	n.recent = [recentSlots]recentName{}
	n.limit = max(namesMinLimit, 2*n.byTID.Len())
}

// renumber keeps only the names some thread has.
func (n *threadNames) renumber() {
	list := n.list
	n.list, n.pool = nil, make(map[string]uint32)
	n.byTID.Each(func(tid int, i uint32) {
		n.byTID.Set(tid, n.intern(list[i-1])+1)
	})
}
