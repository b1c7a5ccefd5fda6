package state

import "sort"

// This file keeps the process tree: parents from FORK records (perf's
// synthesized ones at time 0 included) and, in tree scope, which
// processes descend from the root.

// treeTrack is the parents FORK records named and, in tree scope, the
// root process, the processes known to be in the tree, and the group of
// those outside it.
type treeTrack struct {
	treeRoot int
	treeLate int // sampled threads that joined the tree when its root was found
	parent   map[int]int
	inTree   map[int]bool
	outside  *group
}

// noteParent records that process pid was forked by ppid.
func (t *tracker) noteParent(pid, ppid int) {
	if pid <= 0 || ppid < 0 || pid == ppid {
		return // a thread of the same process
	}
	if old, ok := t.parent[pid]; ok && old != ppid && pid != t.treeRoot {
		delete(t.inTree, pid) // a reused pid: ask again
	}
	t.parent[pid] = ppid
}

// setTreeRoot makes pid the root of the tree (tree scope).
func (t *tracker) setTreeRoot(pid int) {
	if t.treeRoot >= 0 || pid <= 0 {
		return
	}
	t.treeRoot = pid
	t.inTree = map[int]bool{pid: true}
	if t.one != nil {
		t.one.key = pid
	}
	// Threads seen before the root was known (a shell that execs make
	// late) join the tree from now on; what they did before stays
	// outside (Model warns).
	tids := make([]int, 0, len(t.threads))
	for tid, th := range t.threads {
		if th.g != t.one && t.treeMember(th.pid) {
			tids = append(tids, tid)
		}
	}
	sort.Ints(tids) // a fixed order: the shares' order
	for _, tid := range tids {
		th := t.threads[tid]
		if th.sampled {
			t.treeLate++
		}
		t.move(th, th.pid)
	}
}

// treeMember reports whether process pid descends from the root. A
// process's answer is kept once it is yes; a no is asked again (its
// parent may be learnt later, or the root named later).
func (t *tracker) treeMember(pid int) bool {
	if t.treeRoot < 0 || pid <= 0 {
		return false
	}
	if t.inTree[pid] {
		return true
	}
	seen := 0
	for p := pid; ; {
		pp, ok := t.parent[p]
		if !ok || seen > 1<<12 { // a loop of reused pids
			return false
		}
		seen++
		if t.inTree[pp] {
			t.inTree[pid] = true
			return true
		}
		p = pp
	}
}

// ofTree reports whether g is the tree's group (tree scope).
func (t *tracker) ofTree(g *group) bool { return g != nil && g == t.one }

// outsideTree reports whether g is the group of the processes outside the
// tree (tree scope).
func (t *tracker) outsideTree(g *group) bool { return g == t.outside }
