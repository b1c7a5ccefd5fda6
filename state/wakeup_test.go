package state

import (
	"sort"
	"testing"
)

// wake is a wakeup of tid at at by the caller's waker handle.
func wake(at int64, tid, waker int) Event {
	return Event{Kind: KindWakeup, Time: at, PID: -1, TID: 0, CPU: 0, PeerTID: tid, Ref: waker}
}

// withEvents returns evs with more, in time order (more first at a tie).
func withEvents(evs []Event, more ...Event) []Event {
	out := append(append([]Event{}, more...), evs...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time < out[j].Time })
	return out
}

// A thread blocks at 101 ms, is woken at 400 ms and gets its CPU back at
// 600 ms (a hog held it): blocked 101..400 (ended by waker 7), runnable
// 400..600, whatever the attribution rule (one thread: it has it all).
func TestWakeupEndsBlocked(t *testing.T) {
	threads := map[int][]seg{10: {{1 * ms, 101 * ms, offBlocked}, {600 * ms, 700 * ms, offGone}}}
	m, off, _ := feedOff(t, Options{Scope: Workload}, withEvents(timeline(threads), wake(400*ms, 10, 7)))
	got := map[State]int64{}
	for _, w := range off {
		got[w.State] += w.OffCPU
		if w.State == Blocked && w.Waker != 7 || w.State != Blocked && w.Waker != NoWaker {
			t.Errorf("share %+v: want waker 7 on the blocked share only", w)
		}
		if w.State == Runnable && (w.Time != 400*ms || w.OffEnd != 600*ms) {
			t.Errorf("runnable share %+v, want from 400 to 600 ms", w)
		}
	}
	if got[Blocked] != 299*ms || got[Runnable] != 200*ms || len(got) != 2 {
		t.Errorf("shares %v, want blocked 299 ms, runnable 200 ms", got)
	}
	r := m.Result()
	sp := r.Splits
	if len(sp) != 1 || sp[0].OnCPU != 200*ms || sp[0].Blocked != 299*ms || sp[0].Runnable != 200*ms {
		t.Errorf("splits %+v, want on 200 ms, blocked 299 ms, runnable 200 ms", sp)
	}
	if len(r.Wakers) != 1 || r.Wakers[0] != (WakerTime{Group: 0, Waker: 7, Blocked: 299 * ms, Wakeups: 1}) {
		t.Errorf("wakers %+v, want waker 7: 299 ms, 1 wakeup", r.Wakers)
	}
	// The summary alone (no shares released) names the waker too.
	m2 := NewModel(Options{Scope: Workload, Splits: true})
	for _, e := range withEvents(timeline(threads), wake(400*ms, 10, 7)) {
		m2.Add(&e)
		m2.Ready()
	}
	if ws := m2.Close(); len(ws) != 0 && ws[len(ws)-1].State != OnCPU {
		t.Errorf("off-CPU shares released without OffCPU: %+v", ws)
	}
	if r2 := m2.Result(); len(r2.Wakers) != 1 || r2.Wakers[0].Blocked != 299*ms {
		t.Errorf("wakers without OffCPU %+v, want waker 7: 299 ms", r2.Wakers)
	}
}

// Wakeups that change nothing: of a thread never seen, of a running
// thread (woken before it slept), of a preempted one (runnable already),
// twice in a row (the second finds it runnable): the split is the one
// without them.
func TestWakeupNoChange(t *testing.T) {
	threads := map[int][]seg{
		10: {{1 * ms, 101 * ms, offRunnable}, {200 * ms, 300 * ms, offBlocked}, {500 * ms, 600 * ms, offGone}},
	}
	base, _, _ := feedOff(t, Options{Scope: Workload}, timeline(threads))
	evs := withEvents(timeline(threads), wake(50*ms, 99, 3), wake(60*ms, 10, 3), wake(150*ms, 10, 3),
		wake(400*ms, 10, 4), wake(450*ms, 10, 5))
	m, _, _ := feedOff(t, Options{Scope: Workload}, evs)
	want, got := base.Result().Splits, m.Result().Splits
	want[0].Blocked, want[0].Runnable = 100*ms, want[0].Runnable+100*ms // 400..500 runnable now
	if len(got) != 1 || got[0] != want[0] {
		t.Errorf("splits %+v, want %+v", got, want)
	}
	if w := m.Result().Wakers; len(w) != 1 || w[0].Waker != 4 || w[0].Blocked != 100*ms || w[0].Wakeups != 1 {
		t.Errorf("wakers %+v, want only waker 4 (the one that ended a blocked stretch): 100 ms", w)
	}
}

// A thread forks a child and waits for it: the child is runnable from
// its FORK (its sched_wakeup_new changes nothing) until it first runs;
// the parent, woken by the child's exit, is runnable until it runs.
func TestWakeupNewForkedChild(t *testing.T) {
	threads := map[int][]seg{
		10: {{1 * ms, 100 * ms, offBlocked}, {210 * ms, 300 * ms, offGone}},
		11: {{150 * ms, 200 * ms, offGone}},
	}
	fork := Event{Kind: KindFork, Time: 99 * ms, PID: 1, TID: 11, ParentPID: 1, Ref: OtherEvent}
	base, _, _ := feedOff(t, Options{Scope: Workload}, withEvents(timeline(threads), fork))
	m, _, _ := feedOff(t, Options{Scope: Workload}, withEvents(timeline(threads), fork,
		wake(99*ms+10*us, 11, 10), wake(200*ms, 10, 11)))
	b, sp := base.Result().Splits, m.Result().Splits
	if len(sp) != 1 || len(b) != 1 {
		t.Fatalf("splits %+v %+v, want one group", sp, b)
	}
	// Without the parent's wakeup 200..210 is blocked; with it, runnable.
	if b[0].Runnable != 50*ms || b[0].Blocked != 10*ms || b[0].OnCPU != 239*ms {
		t.Errorf("split without wakeups %+v, want runnable 50 ms (the child's wait), blocked 10 ms", b[0])
	}
	if sp[0].Runnable != 60*ms || sp[0].Blocked != 0 || sp[0].OnCPU != 239*ms {
		t.Errorf("split with wakeups %+v, want runnable 60 ms, blocked 0", sp[0])
	}
}

// A thread with no stack (never sampled; its switches carry no handle)
// has no share in the profile, but the wakers still count its blocked
// time: the summary's wakers add up to the blocked time wakeups ended.
func TestWakeupOfStacklessThread(t *testing.T) {
	evs := []Event{
		{Kind: KindSwitch, Time: 1 * ms, PID: 1, TID: 10, CPU: -1, Ref: OtherEvent},
		{Kind: KindSwitch, Time: 2 * ms, PID: 1, TID: 10, CPU: -1, Out: true, Ref: OtherEvent},
		wake(50*ms, 10, 7),
		{Kind: KindSwitch, Time: 60 * ms, PID: 1, TID: 10, CPU: -1, Ref: OtherEvent},
		{Kind: KindExit, Time: 61 * ms, PID: 1, TID: 10, Ref: OtherEvent},
	}
	for _, offCPU := range []bool{false, true} {
		m := NewModel(Options{Scope: Workload, Splits: true, OffCPU: offCPU})
		for _, e := range evs {
			m.Add(&e)
			m.Ready()
		}
		m.Close()
		if r := m.Result(); len(r.Wakers) != 1 || r.Wakers[0].Blocked != 48*ms {
			t.Errorf("--off-cpu %v: wakers %+v, want waker 7: 48 ms", offCPU, r.Wakers)
		}
	}
}

// A trace that steps back (two recordings concatenated) is counted in
// segments, a fresh tracker each: the wakers of every segment are told,
// as its splits are, and add up to the blocked time wakeups ended.
func TestWakeupWakersAcrossSegments(t *testing.T) {
	threads := map[int][]seg{10: {{1 * ms, 101 * ms, offBlocked}, {600 * ms, 700 * ms, offGone}}}
	one := withEvents(timeline(threads), wake(400*ms, 10, 7))
	two := append([]Event{}, one...)
	for i := range two {
		if two[i].Kind == KindSample {
			two[i].Ref += 1e6 // a sample of its own
		}
	}
	m, _, _ := feedOff(t, Options{Scope: Workload}, append(append([]Event{}, one...), two...))
	r := m.Result()
	if n, _, _ := m.StepsBack(); n == 0 {
		t.Fatalf("the second copy did not step back")
	}
	if len(r.Splits) != 1 || r.Splits[0].Blocked != 2*299*ms {
		t.Fatalf("splits %+v, want blocked 2 × 299 ms", r.Splits)
	}
	if len(r.Wakers) != 1 || r.Wakers[0] != (WakerTime{Group: 0, Waker: 7, Blocked: 2 * 299 * ms, Wakeups: 2}) {
		t.Errorf("wakers %+v, want waker 7: 2 × 299 ms, 2 wakeups", r.Wakers)
	}
}
