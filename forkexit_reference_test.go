package main

// An independent count of a process tree's time on CPU in a system-wide
// (CPU-wide) trace, from the switch records alone: what each CPU runs is
// the task of its latest SWITCH_CPU_WIDE IN, until that CPU's next OUT
// (whoever it names: an exited thread's last OUT may print as tid -1). A
// task that exited still runs its exit path until its OUT, and may be
// preempted after its EXIT (OUT preempt) and switched in again (IN): only
// IN to OUT is on CPU. A CPU's samples before its first switch record
// say what it runs from then on. Standard library and the reference's
// own parser (offcpu_reference_test.go) only.

import (
	"testing"
	"time"
)

// refWideOn is a tree's time on CPU by a CPU-wide trace's switch records:
// on, at least one CPU runs a task of the tree; cpu, the sum over CPUs.
type refWideOn struct {
	On, CPU       time.Duration
	First, Last   time.Duration // the tree's first and last timed records
	Exits         int           // EXIT records of the tree's tasks
	ExitsPreempt  int           // of which the task was preempted before its last OUT
	AfterExitWait time.Duration // time the tree's exited tasks waited off CPU before their last OUT
}

// referenceWideOn counts root's process tree (root and its descendants
// by FORK records) in the CPU-wide trace at path.
func referenceWideOn(tb testing.TB, path string, root int) refWideOn {
	tb.Helper()
	recs := refParse(tb, path)
	mp := refLearn(recs)
	member := func(pid, tid int) bool {
		if pid <= 0 {
			pid = mp.pidOf[tid]
		}
		return mp.inTree(pid, root)
	}
	var r refWideOn
	cur := map[int]bool{}      // CPU -> it runs a task of the tree
	switched := map[int]bool{} // CPU -> it had a switch record
	exitedAt := map[int]bool{} // tid -> exited, not yet finally out
	waitFrom := map[int]time.Duration{}
	running, prev := 0, time.Duration(-1)
	set := func(cpu int, on bool) {
		if cur[cpu] != on {
			if on {
				running++
			} else {
				running--
			}
		}
		cur[cpu] = on
	}
	for _, rec := range recs {
		if rec.t == 0 || rec.cpu < 0 {
			continue
		}
		if prev >= 0 && running > 0 {
			r.On += rec.t - prev
			r.CPU += time.Duration(running) * (rec.t - prev)
		}
		prev = rec.t
		mine := rec.tid > 0 && member(rec.pid, rec.tid) || rec.tid < 0 && rec.pid > 0 && member(rec.pid, rec.tid)
		if mine {
			if r.First == 0 {
				r.First = rec.t
			}
			r.Last = rec.t
		}
		switch rec.kind {
		case rkIn:
			switched[rec.cpu] = true
			set(rec.cpu, mine)
			if from, ok := waitFrom[rec.tid]; ok && mine {
				r.AfterExitWait += rec.t - from
				delete(waitFrom, rec.tid)
			}
		case rkOut, rkOutPreempt:
			switched[rec.cpu] = true
			set(rec.cpu, false)
			if exitedAt[rec.tid] && mine && rec.kind == rkOutPreempt {
				r.ExitsPreempt++
				waitFrom[rec.tid] = rec.t
			}
		case rkSample:
			if !switched[rec.cpu] {
				set(rec.cpu, mine)
			}
		case rkExit:
			if member(rec.a, rec.b) {
				r.Exits++
				exitedAt[rec.b] = true
			}
		}
	}
	return r
}

// refFirstExec returns the pid of the first process that execs comm
// after 0.000000 (PERF_RECORD_COMM exec), as perf's child does.
func refFirstExec(tb testing.TB, path, comm string) int {
	tb.Helper()
	for _, r := range refParse(tb, path) {
		if r.kind == rkComm && r.t > 0 && r.event == comm && r.a > 0 {
			return r.a
		}
	}
	tb.Fatalf("%s: no process execs %q", path, comm)
	return 0
}
