package main

// An independent reference for the off-CPU wall-clock split of the traces in
// testdata/offcpu/. It uses only the standard library and its own small line
// parser: it must not share code (or bugs) with the package it checks.
//
// From the switch, fork and exit records (samples only mark a thread as
// present, and their periods are summed for a sanity check), it follows each
// thread of a group through the states running / runnable (last switched out
// with `OUT preempt`) / blocked (plain `OUT`) / dead, and splits the group's
// span into: on (>= 1 thread running), runnable (none running, >= 1
// runnable), blocked (none running or runnable, >= 1 alive and switched
// out). Records at 0.000000 (perf's synthesized ones) only feed the pid and
// comm maps.
//
// Rules, for a thread T:
//   - T's records: lines whose own tid is T, plus the FORK that creates T
//     (printed under the parent). Records with tid <= 0 are not threads.
//   - T's first record starts it: a FORK (as the child) makes it runnable,
//     a SWITCH IN running, anything else (sample, COMM, OUT) running, then
//     the record applies (an OUT switches it out at once).
//   - T's end: its first EXIT, or without one its last record. Whatever
//     comes after the EXIT (CPU-wide traces give an exiting task one last
//     switch-out after its EXIT, and it may be sampled in between) is
//     ignored: it does not make T alive again.
//   - per-task traces: `PERF_RECORD_SWITCH IN/OUT [preempt]` on T's line;
//     CPU-wide traces: `PERF_RECORD_SWITCH_CPU_WIDE IN/OUT [preempt]` on T's
//     line (the next/prev pid/tid only teach which process a tid is in).
//   - cpu: the sum over threads of their running time.

import (
	"bufio"
	"bytes"
	"math"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wallfold/wallfold/internal/testtrace"
)

// refSplit is the reference wall-clock split of a group of threads.
type refSplit struct {
	Span, On, Runnable, Blocked, CPU time.Duration
	// SamplePeriods: the sum of the periods of the group's cpu-clock
	// samples (ns), to compare with CPU.
	SamplePeriods time.Duration
	Threads       int // threads of the group with at least one timed record
	Procs         int // processes (distinct pids) among them
}

// refGroup selects the threads to follow. The zero value (or refAll()) is
// every tid > 0. With Root or RootComm set, it is the process tree: the
// root process and all its descendants through the FORK records that
// create processes (pid != ppid); RootComm picks the root as the first
// process seen with that comm (refRootPID).
type refGroup struct {
	Name     string
	Root     int
	RootComm string
}

func refAll() refGroup { return refGroup{Name: "all"} }
func refTree(root int) refGroup {
	return refGroup{Name: "tree(" + strconv.Itoa(root) + ")", Root: root}
}
func refTreeOfComm(comm string) refGroup { return refGroup{Name: "tree(" + comm + ")", RootComm: comm} }

type refKind int

const (
	rkSample refKind = iota
	rkIn
	rkOut
	rkOutPreempt
	rkFork
	rkExit
	rkComm
	rkOther
)

type refRec struct {
	comm     string
	pid, tid int // pid is -2 when the line has no pid column
	cpu      int // -1 when the line has no CPU column
	t        time.Duration
	kind     refKind
	// FORK/EXIT: (a:b):(c:d); COMM: a/b = pid/tid; CPU-wide switches:
	// a/b = next or prev pid/tid.
	a, b, c, d int
	event      string
	period     int64
}

var (
	refHeaderRE = regexp.MustCompile(`^(.*?)\s+(-?\d+)(?:/(-?\d+))?\s+(?:\[(\d+)\]\s+)?(\d+)\.(\d+):\s*(.*)$`)
	refSwitchRE = regexp.MustCompile(`^PERF_RECORD_SWITCH(_CPU_WIDE)?\s+(IN|OUT)(\s+preempt)?(?:\s+(?:next|prev) pid/tid:\s*(-?\d+)/(-?\d+))?`)
	refForkRE   = regexp.MustCompile(`^PERF_RECORD_(FORK|EXIT)\((-?\d+):(-?\d+)\):\((-?\d+):(-?\d+)\)`)
	refCommRE   = regexp.MustCompile(`^PERF_RECORD_COMM(?: exec)?: (.*):(-?\d+)/(-?\d+)\s*$`)
	refSampleRE = regexp.MustCompile(`^(?:(\d+)\s+)?(\S+?):(?:\s|$)`)
)

func refAtoi(s string) int { n, _ := strconv.Atoi(s); return n }

// refParse reads a whole trace (gzip-aware) into its records (samples and
// side-band records; frames, comments and blank lines are skipped).
func refParse(tb testing.TB, path string) []refRec {
	tb.Helper()
	sc := bufio.NewScanner(bytes.NewReader(testtrace.Read(tb, path)))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var recs []refRec
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' || line[0] == ' ' || line[0] == '\t' {
			continue
		}
		m := refHeaderRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		rec := refRec{comm: strings.TrimSpace(m[1]), pid: -2, tid: refAtoi(m[2]), cpu: -1}
		if m[4] != "" {
			rec.cpu = refAtoi(m[4])
		}
		if m[3] != "" {
			rec.pid, rec.tid = refAtoi(m[2]), refAtoi(m[3])
		}
		frac := (m[6] + "000000000")[:9]
		sec, _ := strconv.ParseInt(m[5], 10, 64)
		ns, _ := strconv.ParseInt(frac, 10, 64)
		rec.t = time.Duration(sec*1e9 + ns)
		rest := m[7]
		switch {
		case strings.HasPrefix(rest, "PERF_RECORD_SWITCH"):
			s := refSwitchRE.FindStringSubmatch(rest)
			if s == nil {
				tb.Fatalf("%s: bad switch record %q", path, line)
			}
			switch {
			case s[2] == "IN":
				rec.kind = rkIn
			case s[3] != "":
				rec.kind = rkOutPreempt
			default:
				rec.kind = rkOut
			}
			rec.a, rec.b = -2, -2
			if s[4] != "" {
				rec.a, rec.b = refAtoi(s[4]), refAtoi(s[5])
			}
		case strings.HasPrefix(rest, "PERF_RECORD_FORK"), strings.HasPrefix(rest, "PERF_RECORD_EXIT"):
			s := refForkRE.FindStringSubmatch(rest)
			if s == nil {
				tb.Fatalf("%s: bad fork/exit record %q", path, line)
			}
			rec.kind = rkFork
			if s[1] == "EXIT" {
				rec.kind = rkExit
			}
			rec.a, rec.b, rec.c, rec.d = refAtoi(s[2]), refAtoi(s[3]), refAtoi(s[4]), refAtoi(s[5])
		case strings.HasPrefix(rest, "PERF_RECORD_COMM"):
			s := refCommRE.FindStringSubmatch(rest)
			if s == nil {
				tb.Fatalf("%s: bad comm record %q", path, line)
			}
			rec.kind = rkComm
			rec.event = s[1] // the new comm
			rec.a, rec.b = refAtoi(s[2]), refAtoi(s[3])
		case strings.HasPrefix(rest, "PERF_RECORD_"):
			rec.kind = rkOther
		default:
			s := refSampleRE.FindStringSubmatch(rest)
			if s == nil {
				continue
			}
			rec.kind = rkSample
			rec.event = s[2]
			if s[1] != "" {
				rec.period, _ = strconv.ParseInt(s[1], 10, 64)
			}
		}
		recs = append(recs, rec)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	// perf script prints in time order; keep file order for equal times.
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].t < recs[j].t })
	return recs
}

// refMaps is what a first pass learns: each tid's process and each
// process's parent (from FORKs with pid != ppid).
type refMaps struct {
	pidOf  map[int]int
	parent map[int]int
}

func refLearn(recs []refRec) refMaps {
	mp := refMaps{pidOf: map[int]int{}, parent: map[int]int{}}
	set := func(pid, tid int) {
		if tid > 0 && pid > 0 {
			if _, ok := mp.pidOf[tid]; !ok {
				mp.pidOf[tid] = pid
			}
		}
	}
	for _, r := range recs {
		if r.pid != -2 {
			set(r.pid, r.tid)
		}
		switch r.kind {
		case rkFork:
			set(r.a, r.b)
			set(r.c, r.d)
			if r.a != r.c && r.a > 0 && r.c > 0 {
				if _, ok := mp.parent[r.a]; !ok {
					mp.parent[r.a] = r.c
				}
			}
		case rkExit:
			set(r.a, r.b)
		case rkComm:
			set(r.a, r.b)
		case rkIn, rkOut, rkOutPreempt:
			if r.a != -2 {
				set(r.a, r.b)
			}
		}
	}
	// a tid never tied to a pid (per-task traces) is its own process
	for _, r := range recs {
		if r.tid > 0 {
			if _, ok := mp.pidOf[r.tid]; !ok {
				mp.pidOf[r.tid] = r.tid
			}
		}
	}
	return mp
}

// inTree reports whether process pid is root or one of its descendants.
func (mp refMaps) inTree(pid, root int) bool {
	for seen := 0; pid > 0 && seen < 1<<16; seen++ {
		if pid == root {
			return true
		}
		p, ok := mp.parent[pid]
		if !ok {
			return false
		}
		pid = p
	}
	return false
}

// refRootOf: the first process seen with comm (COMM record, or a sample /
// FORK / other line printed under that comm). 0 if none.
func refRootOf(recs []refRec, mp refMaps, comm string) int {
	for _, r := range recs {
		if r.kind == rkComm && r.event == comm && r.a > 0 {
			return r.a
		}
		if r.comm == comm && r.tid > 0 {
			if r.kind == rkFork && r.a > 0 && r.tid == r.b {
				return r.a
			}
			return mp.pidOf[r.tid]
		}
	}
	return 0
}

// refRootPID returns the pid of the first process with comm in the trace.
func refRootPID(tb testing.TB, path, comm string) int {
	tb.Helper()
	recs := refParse(tb, path)
	return refRootOf(recs, refLearn(recs), comm)
}

// refTreeProcs counts the processes (pids > 0) of the trace inside and
// outside root's tree; active counts only those with a record after 0.
func refTreeProcs(tb testing.TB, path string, root int) (in, out, activeIn, activeOut int) {
	tb.Helper()
	recs := refParse(tb, path)
	mp := refLearn(recs)
	all, active := map[int]bool{}, map[int]bool{}
	for _, r := range recs {
		add := func(tid int) {
			if pid := mp.pidOf[tid]; tid > 0 && pid > 0 {
				all[pid] = true
				if r.t > 0 {
					active[pid] = true
				}
			}
		}
		add(r.tid)
		if r.kind == rkFork || r.kind == rkExit || r.kind == rkComm {
			add(r.b)
		}
	}
	for pid := range all {
		t := mp.inTree(pid, root)
		switch {
		case t && active[pid]:
			in, activeIn = in+1, activeIn+1
		case t:
			in++
		case active[pid]:
			out, activeOut = out+1, activeOut+1
		default:
			out++
		}
	}
	return
}

type refState int

const (
	stNone refState = iota
	stRunning
	stRunnable
	stBlocked
	stDead
)

// referenceSplit computes the reference split of group in the trace at path.
func referenceSplit(tb testing.TB, path string, group refGroup) refSplit {
	tb.Helper()
	recs := refParse(tb, path)
	mp := refLearn(recs)
	evs, last, periods := refThreadRecords(recs, refMember(tb, path, recs, mp, group))
	sp := refWalk(recs, mp, evs, last)
	sp.SamplePeriods = periods
	return sp
}

// refMember returns the test of a tid's membership in group: every tid
// > 0, or with a root (Root, or RootComm's first process) those of the
// root's process tree.
func refMember(tb testing.TB, path string, recs []refRec, mp refMaps, group refGroup) func(tid int) bool {
	tb.Helper()
	root := group.Root
	if group.RootComm != "" {
		root = refRootOf(recs, mp, group.RootComm)
		if root == 0 {
			tb.Fatalf("%s: no process with comm %q", path, group.RootComm)
		}
	}
	return func(tid int) bool {
		if tid <= 0 {
			return false
		}
		if root == 0 {
			return true
		}
		return mp.inTree(mp.pidOf[tid], root)
	}
}

// refEvent is a record of one thread's: recs[i], about thread tid; child
// marks the FORK that creates tid (printed under its parent).
type refEvent struct {
	i     int
	tid   int
	child bool
}

// refThreadRecords lists, in time order, each member thread's records
// after 0.000000: its own lines, plus the FORK creating it, up to its
// first EXIT. last[tid] is the index in evs of the record that ends the
// thread (that EXIT, or its last record). periods is the sum of the
// periods of the members' cpu-clock samples (those at 0 too).
func refThreadRecords(recs []refRec, member func(tid int) bool) (evs []refEvent, last map[int]int, periods time.Duration) {
	last = map[int]int{}
	exited := map[int]bool{}
	add := func(i, tid int, child bool) {
		if !member(tid) || exited[tid] {
			return
		}
		evs = append(evs, refEvent{i, tid, child})
		last[tid] = len(evs) - 1
	}
	for i, r := range recs {
		if r.kind == rkSample && member(r.tid) && strings.HasPrefix(r.event, "cpu-clock") {
			periods += time.Duration(r.period)
		}
		if r.t == 0 {
			continue
		}
		if r.kind == rkExit {
			add(i, r.b, false)
			exited[r.b] = true
			continue
		}
		add(i, r.tid, false)
		if r.kind == rkFork && r.b != r.tid {
			add(i, r.b, true)
		}
	}
	return evs, last, periods
}

// refStates is each thread's state, and how many threads are in each.
type refStates struct {
	of                         map[int]refState
	running, runnable, blocked int
}

func (s *refStates) set(tid int, st refState) {
	s.count(s.of[tid], -1)
	s.of[tid] = st
	s.count(st, +1)
}

func (s *refStates) count(st refState, d int) {
	switch st {
	case stRunning:
		s.running += d
	case stRunnable:
		s.runnable += d
	case stBlocked:
		s.blocked += d
	}
}

// refWalk follows the threads through evs (refThreadRecords) and splits
// the time from the first record to the last: on CPU while one runs,
// runnable while none runs and one is runnable, blocked while none runs
// or is runnable and one is blocked; and counts the threads and their
// processes. A thread's first record starts it (runnable if that is the
// FORK creating it, else running), its switch records move it, the one
// that ends it (last) makes it dead.
func refWalk(recs []refRec, mp refMaps, evs []refEvent, last map[int]int) refSplit {
	var sp refSplit
	st := refStates{of: map[int]refState{}}
	var first, prev time.Duration = -1, -1
	procs := map[int]bool{}
	for k, e := range evs {
		r, tid := recs[e.i], e.tid
		if first < 0 {
			first, prev = r.t, r.t
		}
		if dt := r.t - prev; dt > 0 {
			switch {
			case st.running > 0:
				sp.On += dt
				sp.CPU += time.Duration(st.running) * dt
			case st.runnable > 0:
				sp.Runnable += dt
			case st.blocked > 0:
				sp.Blocked += dt
			}
		}
		prev = r.t
		if st.of[tid] == stNone {
			sp.Threads++
			procs[mp.pidOf[tid]] = true
			if e.child {
				st.set(tid, stRunnable)
			} else {
				st.set(tid, stRunning)
			}
		}
		if !e.child {
			switch r.kind {
			case rkIn:
				st.set(tid, stRunning)
			case rkOut:
				st.set(tid, stBlocked)
			case rkOutPreempt:
				st.set(tid, stRunnable)
			}
		}
		if last[tid] == k {
			st.set(tid, stDead)
		}
	}
	if first >= 0 {
		sp.Span = prev - first
	}
	sp.Procs = len(procs)
	return sp
}

func refSec(d time.Duration) float64 { return d.Seconds() }

func TestReferenceSplit(t *testing.T) {
	dir := filepath.Join("testdata", "offcpu")
	near := func(got, want, tol float64) bool { return math.Abs(got-want) <= tol }
	check := func(name string, ok bool, format string, args ...any) {
		t.Helper()
		if !ok {
			t.Errorf("%s: "+format, append([]any{name}, args...)...)
		}
	}
	show := func(name string, g refGroup, s refSplit) {
		t.Logf("%-22s %-12s span %.3f on %.3f runnable %.3f blocked %.3f cpu %.3f samples %.3f threads %d procs %d",
			name, g.Name, refSec(s.Span), refSec(s.On), refSec(s.Runnable), refSec(s.Blocked), refSec(s.CPU),
			refSec(s.SamplePeriods), s.Threads, s.Procs)
	}
	covered := func(s refSplit) float64 { return refSec(s.On + s.Runnable + s.Blocked) }

	for _, name := range []string{"sleep.txt.gz", "sleep.notask.txt.gz", "sleep.sched.txt.gz"} {
		s := referenceSplit(t, filepath.Join(dir, name), refAll())
		show(name, refAll(), s)
		check(name, near(refSec(s.Blocked), 0.5, 0.06), "blocked %.3f s, want 0.5 ± 0.06", refSec(s.Blocked))
		check(name, near(refSec(s.Span), 1.4, 0.07), "span %.3f s, want ≈ 1.4", refSec(s.Span))
		check(name, near(covered(s), refSec(s.Span), 0.015*refSec(s.Span)), "on+runnable+blocked %.3f s, span %.3f s", covered(s), refSec(s.Span))
		check(name, s.Threads == 3, "%d threads, want 3", s.Threads)
		check(name, near(refSec(s.CPU), refSec(s.SamplePeriods), 0.1*refSec(s.CPU)), "cpu %.3f s, samples %.3f s", refSec(s.CPU), refSec(s.SamplePeriods))
	}
	for _, name := range []string{"busy.txt.gz", "busy.notask.txt.gz"} {
		s := referenceSplit(t, filepath.Join(dir, name), refAll())
		show(name, refAll(), s)
		check(name, refSec(s.Runnable) > 0.2, "runnable %.3f s, want > 0.2", refSec(s.Runnable))
		check(name, near(covered(s), refSec(s.Span), 0.015*refSec(s.Span)), "on+runnable+blocked %.3f s, span %.3f s", covered(s), refSec(s.Span))
		check(name, s.Threads == 3, "%d threads, want 3", s.Threads)
	}
	for _, name := range []string{"make.txt.gz", "make.nopid.txt.gz"} {
		path := filepath.Join(dir, name)
		g := refTreeOfComm("make")
		s := referenceSplit(t, path, g)
		show(name, g, s)
		par := refSec(s.CPU) / refSec(s.On)
		check(name, par > 1 && par < 2, "cpu/on %.3f, want in (1, 2)", par)
		check(name, s.On <= s.Span, "on %.3f s > span %.3f s", refSec(s.On), refSec(s.Span))
		check(name, near(refSec(s.CPU), refSec(s.SamplePeriods), 0.1*refSec(s.CPU)), "cpu %.3f s, samples %.3f s", refSec(s.CPU), refSec(s.SamplePeriods))
		check(name, refSec(s.Span) >= 1.5 && refSec(s.Span) <= 3.2, "span %.3f s, want 1.5-3", refSec(s.Span))
		root := refRootPID(t, path, "make")
		in, out, ain, aout := refTreeProcs(t, path, root)
		t.Logf("%-22s root pid %d: %d processes in the tree (%d active), %d outside (%d active after 0.000000)", name, root, in, ain, out, aout)
		check(name, in >= 14, "%d processes in the tree, want >= 14 (make, 7 cc, 6+ cc1, 6+ as, ld)", in)
		// the unrelated hog is outside the tree, and busy
		hogPID := refRootPID(t, path, "spin")
		check(name, hogPID > 0 && hogPID != root, "spin hog pid %d", hogPID)
		hog := referenceSplit(t, path, refTree(hogPID))
		check(name, refSec(hog.CPU) > 0.3, "the spin hog outside the tree ran %.3f s", refSec(hog.CPU))
		t.Logf("%-22s spin hog (pid %d, outside): on %.3f runnable %.3f", name, hogPID, refSec(hog.On), refSec(hog.Runnable))
	}
}
