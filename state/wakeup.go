package state

import "sort"

// This file holds wakeups (sched:sched_wakeup, sched_wakeup_new). A
// switch-out says a thread blocked; only a wakeup says when what it
// waited for came: from then to its next switch-in it waits for a CPU
// (runnable), not for its event. Without wakeups that wait for a CPU is
// counted as blocked; on a busy machine it is most of it.
//
// The waker is the caller's handle (the thread that woke it, or an
// interrupt): the blocked share the wakeup ends is told with it
// (Weighted.Waker, Result.Wakers).

// NoWaker is Weighted.Waker of off-CPU time no wakeup ended.
const NoWaker = 0

// wokenBy is a thread's part in wakeups: the waker of the blocked share
// being charged (NoWaker but while a wakeup ends it).
type wokenBy struct {
	waker int
}

// wakeStats keeps, per group and waker, the blocked time wakeups ended.
type wakeStats struct {
	ended map[wakerKey]*WakerTime
}

type wakerKey struct{ group, waker int }

// WakerTime is the blocked time of a group's threads that wakeups by one
// waker ended (the blocked shares charged to them up to those wakeups),
// and how many such wakeups there were.
type WakerTime struct {
	Group, Waker int
	Blocked      int64 // ns
	Wakeups      int
}

// wakeup notes that the thread woken was made runnable at now; waker is
// the caller's handle for who did it (> 0; NoWaker: unknown). A thread
// not known, not blocked (running, already runnable, silent) or gone is
// left as it is: a wakeup of a running thread (it had not slept yet) is
// common, and a new thread is runnable from its FORK already.
func (t *tracker) wakeup(now int64, woken, waker int) {
	t.advance(now)
	th := t.lookup(woken)
	if th == nil || th.exited || !th.inSet || th.offState != Blocked {
		return
	}
	th.g.off.touch(now)
	th.waker = waker
	t.becomeRunnable(th, now)
	th.waker = NoWaker
}

// becomeRunnable makes th, blocked in its group's off set, runnable from
// at: it leaves the set (charged its blocked share so far) and joins it
// again as waiting for a CPU.
func (t *tracker) becomeRunnable(th *thread, at int64) {
	if !th.inSet || th.offState != Blocked {
		return
	}
	a := &th.g.off
	at = a.clamp(at)
	a.update(at)
	t.leaveSet(th)
	t.joinSet(th, at, offRunnable)
}

// wokeCharge notes a share of off-CPU time charged to th and returns the
// waker it goes with: while a wakeup ends th's blocked stretch, its
// blocked share counts for the waker.
func (t *tracker) wokeCharge(th *thread, s State, ns int64) int {
	if th.waker == NoWaker || s != Blocked {
		return NoWaker
	}
	if t.wake.ended == nil {
		t.wake.ended = make(map[wakerKey]*WakerTime)
	}
	k := wakerKey{th.g.key, th.waker}
	w := t.wake.ended[k]
	if w == nil {
		w = &WakerTime{Group: k.group, Waker: k.waker}
		t.wake.ended[k] = w
	}
	w.Blocked += ns
	w.Wakeups++
	return th.waker
}

// wakerTimes returns the blocked time ended per group and waker, by
// group, then the most time first.
func (t *tracker) wakerTimes() []WakerTime {
	out := make([]WakerTime, 0, len(t.wake.ended))
	for _, w := range t.wake.ended {
		out = append(out, *w)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		if a.Blocked != b.Blocked {
			return a.Blocked > b.Blocked
		}
		return a.Waker < b.Waker
	})
	return out
}
