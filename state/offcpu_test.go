package state

import (
	"math/rand/v2"
	"sort"
	"testing"
)

const us = int64(1e3)

// seg is a stretch a thread runs, and how it ends.
type seg struct {
	start, end int64
	how        offHow // offBlocked (OUT), offRunnable (OUT preempt), offGone (EXIT)
}

// timeline turns each thread's running stretches into the records perf
// writes for them: SWITCH IN, a cpu-clock sample every ms while it runs,
// SWITCH OUT [preempt] or EXIT. Refs: 1000*tid + k for its k-th sample.
func timeline(threads map[int][]seg) []Event {
	var evs []Event
	for tid, segs := range threads {
		k := 0
		for _, s := range segs {
			evs = append(evs, Event{Kind: KindSwitch, Time: s.start, PID: 1, TID: tid, CPU: -1, Ref: OtherEvent})
			for at := s.start + 300*us; at < s.end; at += ms {
				k++
				evs = append(evs, Event{Kind: KindSample, Clock: true, HasPeriod: true, HasTime: true,
					Time: at, PID: 1, TID: tid, CPU: -1, Period: uint64(ms), Ref: 1000*tid + k})
			}
			switch s.how {
			case offGone:
				evs = append(evs, Event{Kind: KindExit, Time: s.end, PID: 1, TID: tid})
			default:
				evs = append(evs, Event{Kind: KindSwitch, Time: s.end, PID: 1, TID: tid, CPU: -1, Out: true,
					Preempt: s.how == offRunnable, Ref: OtherEvent})
			}
		}
	}
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].Time < evs[j].Time })
	return evs
}

// refSplit counts, on a 10 µs grid, what the stretches say: each step is
// on CPU (some thread runs), or runnable (some thread alive and off CPU
// last ended a stretch with preempt: the step is divided equally among
// those), or blocked (divided equally among the threads alive and off
// CPU). It returns the split and each (tid, state)'s share.
func refSplit(threads map[int][]seg) (Split, map[[2]int]int64) {
	first, last := int64(1<<62), int64(0)
	for _, segs := range threads {
		first = min(first, segs[0].start)
		last = max(last, segs[len(segs)-1].end)
	}
	const step = 10 * us
	var sp Split
	sp.First, sp.Last = first, last
	shares := map[[2]int]int64{}
	tids := make([]int, 0, len(threads))
	for tid := range threads {
		tids = append(tids, tid)
	}
	sort.Ints(tids)
	for at := first; at < last; at += step {
		running := 0
		type off struct{ tid, st int }
		var offs []off
		runnable := false
		for _, tid := range tids {
			segs := threads[tid]
			if at < segs[0].start || at >= segs[len(segs)-1].end {
				continue // not yet, or exited
			}
			on := false
			prev := -1
			for i, s := range segs {
				if at >= s.start && at < s.end {
					on = true
				}
				if s.end <= at {
					prev = i
				}
			}
			if on {
				running++
				continue
			}
			st := int(Blocked)
			if segs[prev].how == offRunnable {
				st = int(Runnable)
				runnable = true
			}
			offs = append(offs, off{tid, st})
		}
		sp.CPU += int64(running) * step
		switch {
		case running > 0:
			sp.OnCPU += step
		case runnable:
			sp.Runnable += step
		default:
			sp.Blocked += step
		}
		if running == 0 {
			charged := offs[:0:0]
			for _, o := range offs {
				if !runnable || o.st == int(Runnable) {
					charged = append(charged, o)
				}
			}
			for _, o := range charged {
				shares[[2]int{o.tid, o.st}] += step / int64(len(charged))
			}
		}
	}
	return sp, shares
}

func feedOff(t *testing.T, o Options, evs []Event) (*Model, []Weighted, map[int]int) {
	t.Helper()
	o.OffCPU, o.Splits = true, true
	m := NewModel(o)
	var off []Weighted
	pars := map[int]int{}
	take := func(ws []Weighted) {
		for _, w := range ws {
			if w.State == Unsampled {
				continue // time on CPU (unsampled_test.go), not off it
			}
			if w.State != OnCPU {
				off = append(off, w)
				continue
			}
			if _, dup := pars[w.Ref]; dup {
				t.Fatalf("sample %d released twice", w.Ref)
			}
			pars[w.Ref] = w.Parallelism
		}
	}
	for _, e := range evs {
		m.Add(&e)
		take(m.Ready())
	}
	take(m.Close())
	return m, off, pars
}

func near(a, b, tol int64) bool { return a-b <= tol && b-a <= tol }

// One thread computes 100 ms, sleeps 500 ms, computes 100 ms: the sleep
// is blocked, charged at the last sample before it.
func TestOffCPUSleep(t *testing.T) {
	threads := map[int][]seg{10: {{1 * ms, 101 * ms, offBlocked}, {601 * ms, 701 * ms, offGone}}}
	m, off, _ := feedOff(t, Options{Scope: Workload}, timeline(threads))
	if len(off) != 1 {
		t.Fatalf("off-CPU shares %+v, want one", off)
	}
	w := off[0]
	if w.State != Blocked || w.OffCPU != 500*ms || w.TID != 10 || w.Time != 101*ms || w.Ref != 1000*10+100 {
		t.Errorf("share %+v, want 500 ms blocked at 101 ms, ref 10100 (the last sample before the sleep)", w)
	}
	sp := m.Result().Splits
	if len(sp) != 1 || sp[0].OnCPU != 200*ms || sp[0].Blocked != 500*ms || sp[0].Runnable != 0 || sp[0].Span() != 700*ms || sp[0].CPU != 200*ms {
		t.Errorf("splits %+v, want on 200 ms, blocked 500 ms, span 700 ms", sp)
	}
}

// Without task events a thread's exit is its silence: it must not wait
// on forever after its last sample, and a block stack (sched_switch)
// replaces the last sample's stack.
func TestOffCPUSilentExitAndBlockStack(t *testing.T) {
	evs := []Event{
		{Kind: KindSwitch, Time: 1 * ms, PID: 1, TID: 10, CPU: -1, Ref: OtherEvent},
		{Kind: KindSwitch, Time: 1 * ms, PID: 1, TID: 11, CPU: -1, Ref: OtherEvent},
	}
	ref := 0
	for at := 1*ms + 300*us; at < 50*ms; at += ms {
		ref++
		evs = append(evs, clockSample(at, 1, 10, -1, ref), clockSample(at+10*us, 1, 11, -1, 10000+ref))
	}
	// 11 blocks at 50 ms (block stack 999 just before its OUT); 10 runs
	// on, then exits without a record at its last sample (~150 ms); 11
	// wakes at 400 ms and exits at 420.
	evs = append(evs, Event{Kind: KindBlockStack, Time: 50*ms - 5*us, PID: 1, TID: 11, Ref: 999},
		Event{Kind: KindSwitch, Time: 50 * ms, PID: 1, TID: 11, CPU: -1, Out: true, Ref: OtherEvent})
	for at := 50*ms + 300*us; at < 150*ms; at += ms {
		ref++
		evs = append(evs, clockSample(at, 1, 10, -1, ref))
	}
	last := evs[len(evs)-1].Time
	evs = append(evs, Event{Kind: KindSwitch, Time: 400 * ms, PID: 1, TID: 11, CPU: -1, Ref: OtherEvent})
	for at := 400*ms + 300*us; at < 420*ms; at += ms {
		ref++
		evs = append(evs, clockSample(at, 1, 11, -1, 10000+ref))
	}
	evs = append(evs, Event{Kind: KindExit, Time: 420 * ms, PID: 1, TID: 11})
	m, off, _ := feedOff(t, Options{Scope: Workload}, evs)
	var blocked int64
	for _, w := range off {
		if w.TID != 11 || w.Ref != 999 || w.State != Blocked {
			t.Errorf("share %+v: want only thread 11's, blocked at its block stack 999", w)
		}
		blocked += w.OffCPU
	}
	if want := 400*ms - last; !near(blocked, want, 1) {
		t.Errorf("blocked %d ns, want %d (from 10's last sample to 11's wake-up)", blocked, want)
	}
	sp := m.Result().Splits[0]
	if sp.OnCPU+sp.Blocked+sp.Runnable != sp.Span() {
		t.Errorf("split %+v does not add up to its span %d", sp, sp.Span())
	}
}

// A thread preempted while the other is blocked: the group is runnable,
// and the stretch is the preempted thread's alone, so that the profile's
// [runnable] says what the summary's runnable says.
func TestOffCPURunnable(t *testing.T) {
	threads := map[int][]seg{
		10: {{1 * ms, 20 * ms, offRunnable}, {60 * ms, 80 * ms, offGone}},
		11: {{1 * ms, 10 * ms, offBlocked}, {100 * ms, 120 * ms, offGone}},
	}
	m, off, _ := feedOff(t, Options{Scope: Workload}, timeline(threads))
	wantSplit, wantShares := refSplit(threads)
	got := map[[2]int]int64{}
	for _, w := range off {
		got[[2]int{w.TID, int(w.State)}] += w.OffCPU
	}
	for k, v := range wantShares {
		if !near(got[k], v, 10) {
			t.Errorf("thread %d %v: %d ns, want %d", k[0], State(k[1]), got[k], v)
		}
	}
	sp := m.Result().Splits[0]
	if sp.OnCPU != wantSplit.OnCPU || sp.Runnable != wantSplit.Runnable || sp.Blocked != wantSplit.Blocked {
		t.Errorf("split %+v, want %+v", sp, wantSplit)
	}
	if r := got[[2]int{10, int(Runnable)}] + got[[2]int{11, int(Runnable)}]; !near(r, sp.Runnable, 10) {
		t.Errorf("[runnable] shares %d ns, the split's runnable %d", r, sp.Runnable)
	}
}

// Random per-task timelines against the grid count: shares, split and
// the conservation law (on + runnable + blocked = span; the shares add up
// to the off-CPU time).
func TestOffCPURandomTimelines(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 12))
	for trial := 0; trial < 60; trial++ {
		threads := map[int][]seg{}
		n := 1 + rng.IntN(4)
		for i := 0; i < n; i++ {
			tid := 10 + i
			at := 1*ms + int64(i)*100*us
			var segs []seg
			k := 1 + rng.IntN(6)
			for j := 0; j < k; j++ {
				run := int64(2+rng.IntN(20)) * ms
				if j == 0 {
					run += 2 * ms // the first runs past the others' start
				}
				how := offBlocked
				if rng.IntN(3) == 0 {
					how = offRunnable
				}
				if j == k-1 {
					how = offGone
				}
				segs = append(segs, seg{at, at + run, how})
				at += run + int64(1+rng.IntN(40))*ms/2
			}
			threads[tid] = segs
		}
		m, off, _ := feedOff(t, Options{Scope: Workload}, timeline(threads))
		wantSplit, wantShares := refSplit(threads)
		got := map[[2]int]int64{}
		var sum int64
		for _, w := range off {
			got[[2]int{w.TID, int(w.State)}] += w.OffCPU
			sum += w.OffCPU
		}
		tol := int64(len(threads)) * 100 // rounding, and the grid's integer division
		for k, v := range wantShares {
			if !near(got[k], v, tol*int64(len(off)+1)) {
				t.Errorf("trial %d: thread %d %v: %d ns, want %d", trial, k[0], State(k[1]), got[k], v)
			}
		}
		sp := m.Result().Splits[0]
		if sp.OnCPU != wantSplit.OnCPU || sp.Runnable != wantSplit.Runnable || sp.Blocked != wantSplit.Blocked || sp.CPU != wantSplit.CPU {
			t.Errorf("trial %d: split %+v, want %+v", trial, sp, wantSplit)
		}
		if sp.OnCPU+sp.Runnable+sp.Blocked != sp.Span() || !near(sum, sp.Runnable+sp.Blocked, int64(len(off)+1)) {
			t.Errorf("trial %d: split %+v (span %d), shares %d: conservation broken", trial, sp, sp.Span(), sum)
		}
		var byState [3]int64
		for k, v := range got {
			byState[k[1]] += v
		}
		if !near(byState[Runnable], sp.Runnable, int64(len(off)+1)) || !near(byState[Blocked], sp.Blocked, int64(len(off)+1)) {
			t.Errorf("trial %d: shares runnable %d blocked %d, split %+v: told twice", trial, byState[Runnable], byState[Blocked], sp)
		}
	}
}

// In CPU-wide traces an exiting task gets a last switch-out after its
// EXIT: it must not wait again.
func TestOffCPUExitTail(t *testing.T) {
	evs := []Event{
		{Kind: KindSwitchCPUWide, Time: 1 * ms, PID: 1, TID: 10, CPU: 0, Ref: OtherEvent},
		{Kind: KindSwitchCPUWide, Time: 1 * ms, PID: 1, TID: 11, CPU: 1, Ref: OtherEvent},
		clockSample(2*ms, 1, 10, 0, 1), clockSample(2*ms, 1, 11, 1, 2),
		{Kind: KindSwitchCPUWide, Time: 3 * ms, PID: 1, TID: 11, CPU: 1, Out: true, Ref: OtherEvent},
		{Kind: KindExit, Time: 4 * ms, PID: 1, TID: 10},
		clockSample(4*ms+10*us, 1, 10, 0, 3),
		{Kind: KindSwitchCPUWide, Time: 4*ms + 20*us, PID: 1, TID: 10, CPU: 0, Out: true, Ref: OtherEvent},
		{Kind: KindSwitchCPUWide, Time: 50 * ms, PID: 1, TID: 11, CPU: 1, Ref: OtherEvent},
		{Kind: KindExit, Time: 51 * ms, PID: 1, TID: 11},
	}
	_, off, _ := feedOff(t, Options{Scope: Process}, evs)
	var byTID = map[int]int64{}
	for _, w := range off {
		byTID[w.TID] += w.OffCPU
	}
	// 10 runs on after its EXIT (its tail sample) until its last
	// switch-out; 11 waits alone from then on.
	if want := 50*ms - (4*ms + 20*us); byTID[10] != 0 || byTID[11] != want {
		t.Errorf("off-CPU by thread %v: want none for 10 (exited), %d for 11", byTID, want)
	}
}

// --tree: the root and its descendants (FORK records, the synthesized
// ones at time 0 too) are one group; others only take CPUs.
func TestTreeScope(t *testing.T) {
	evs := []Event{
		{Kind: KindFork, Time: 0, PID: 100, TID: 100, ParentPID: 1},
		{Kind: KindFork, Time: 0, PID: 400, TID: 400, ParentPID: 1},
		{Kind: KindFork, Time: 1 * ms, PID: 200, TID: 200, ParentPID: 100},
		{Kind: KindFork, Time: 2 * ms, PID: 300, TID: 300, ParentPID: 200},
		{Kind: KindFork, Time: 2 * ms, PID: 300, TID: 301, ParentPID: 300},
	}
	ref := 0
	want := map[int]int{}
	for at := 3 * ms; at < 30*ms; at += ms {
		for cpu, tid := range []int{200, 300, 301, 400} {
			ref++
			// no pid column: the FORK records name the processes
			evs = append(evs, clockSample(at+int64(tid), -1, tid, cpu, ref))
			if tid != 400 {
				want[ref] = 3
				if at == 3*ms || at == 29*ms { // the first and last rows: the others not started, or their gaps ended at their last sign
					want[ref] = 0
				}
			}
		}
	}
	m, _, pars := feedOff(t, Options{TreePID: 100}, evs)
	if m.Scope() != Tree {
		t.Fatalf("scope %v", m.Scope())
	}
	for r, p := range want {
		if _, ok := pars[r]; !ok {
			t.Fatalf("sample %d not released", r)
		}
		if p != 0 && pars[r] != p {
			t.Fatalf("sample %d: parallelism %d, want %d (200, 300, 301 run together)", r, pars[r], p)
		}
	}
	if len(pars) != len(want) {
		t.Errorf("released %d samples, want the tree's %d (not 400's)", len(pars), len(want))
	}
	if sp := m.Result().Splits; len(sp) != 1 || sp[0].Group != 100 {
		t.Errorf("splits %+v, want the tree's only (group 100)", sp)
	}
	if p, ok := m.Result().Parents[300]; !ok || p != 200 {
		t.Errorf("Parent(300) = %d, %v", p, ok)
	}

	// By command: the first process named cc is the root.
	evs2 := append([]Event{{Kind: KindComm, Time: 0, PID: 200, TID: 200, Comm: []byte("cc")}}, evs...)
	m2, _, pars2 := feedOff(t, Options{TreeComm: "cc"}, evs2)
	if m2.t.treeRoot != 200 || len(pars2) != len(want) {
		t.Errorf("tree by comm: root %d, %d samples; want 200, %d", m2.t.treeRoot, len(pars2), len(want))
	}
}

// A thread still waiting at the end gets its share at Close, with or
// without the splits kept (the summary's).
func TestOffCPUWaitingAtEnd(t *testing.T) {
	threads := map[int][]seg{
		10: {{1 * ms, 10 * ms, offBlocked}, {30 * ms, 40 * ms, offGone}},
		11: {{1 * ms, 5 * ms, offBlocked}},
	}
	evs := timeline(threads)
	// 11 never runs again: it waits from 5 ms to the group's last record.
	for _, keep := range []bool{true, false} {
		m := NewModel(Options{Scope: Workload, OffCPU: true, Splits: keep})
		var got int64
		for _, e := range evs {
			m.Add(&e)
			for _, w := range m.Ready() {
				if w.TID == 11 && w.State != Unsampled {
					got += w.OffCPU
				}
			}
		}
		for _, w := range m.Close() {
			if w.TID == 11 && w.State != Unsampled {
				got += w.OffCPU
			}
		}
		// 10..30 ms nothing runs: half is 11's; at 40 ms the group ends
		if want := 10 * ms; got != want {
			t.Errorf("keep splits %v: thread 11 waited %d ns, want %d", keep, got, want)
		}
		if keep != (len(m.Result().Splits) == 1) {
			t.Errorf("keep splits %v: %d splits", keep, len(m.Result().Splits))
		}
	}
}
