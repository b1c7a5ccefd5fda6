package state

import (
	"sort"
	"testing"
)

// Thread scope: every thread is a group of its own, and its span (its
// first record, a FORK or its first sign, to its EXIT or last record)
// divides into its own time on CPU, runnable and blocked.

// lifeRun is a stretch a thread runs, and how it ends: SWITCH OUT
// (blocked), SWITCH OUT preempt (runnable) or EXIT.
type lifeRun struct {
	start, end int64
	how        offHow
}

// life is a thread of process 1 as the test designs it: forked at fork
// (0: it was running before the trace), then its runs.
type life struct {
	tid  int
	fork int64
	runs []lifeRun
}

// lifeEvents writes the records perf writes for lives: FORK, SWITCH IN, a
// cpu-clock sample of 1 ms at each ms of a run (the run's ms end at
// samples, so the samples cover it exactly), SWITCH OUT or EXIT. Refs:
// 1000*tid + k (k = 0: the FORK, which names the thread).
func lifeEvents(lives []life) []Event {
	var evs []Event
	for _, l := range lives {
		if l.fork > 0 {
			evs = append(evs, Event{Kind: KindFork, Time: l.fork, PID: 1, TID: l.tid, ParentPID: 1, Ref: 1000 * l.tid}) // its name
		}
		k := 0
		for _, r := range l.runs {
			evs = append(evs, Event{Kind: KindSwitch, Time: r.start, PID: 1, TID: l.tid, CPU: -1, Ref: OtherEvent})
			for at := r.start + ms; at <= r.end; at += ms {
				k++
				evs = append(evs, Event{Kind: KindSample, Clock: true, HasPeriod: true, HasTime: true,
					Time: at, PID: 1, TID: l.tid, CPU: -1, Period: uint64(ms), Ref: 1000*l.tid + k})
			}
			if r.how == offGone {
				evs = append(evs, Event{Kind: KindExit, Time: r.end, PID: 1, TID: l.tid})
			} else {
				evs = append(evs, Event{Kind: KindSwitch, Time: r.end, PID: 1, TID: l.tid, CPU: -1, Out: true,
					Preempt: r.how == offRunnable, Ref: OtherEvent})
			}
		}
	}
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].Time < evs[j].Time })
	return evs
}

// Four threads of one process, at the same time: a main thread that
// computes and sleeps, a worker forked at 5 ms that waits 3 ms for its
// first run and is preempted, a helper that runs 1 ms and sleeps, and a
// worker that is preempted and exits. By hand, each thread's span is its
// first record to its last, on CPU its runs, runnable its waits after a
// FORK or a preemption, blocked the rest.
func TestThreadScopeSpanIsEachThreadsOwn(t *testing.T) {
	lives := []life{
		{tid: 10, runs: []lifeRun{{1 * ms, 20 * ms, offBlocked}, {70 * ms, 90 * ms, offBlocked}, {95 * ms, 100 * ms, offGone}}},
		{tid: 11, fork: 5 * ms, runs: []lifeRun{{8 * ms, 30 * ms, offRunnable}, {45 * ms, 60 * ms, offRunnable}, {62 * ms, 80 * ms, offGone}}},
		{tid: 12, runs: []lifeRun{{2 * ms, 3 * ms, offBlocked}, {50 * ms, 51 * ms, offBlocked}}},
		{tid: 13, runs: []lifeRun{{10 * ms, 40 * ms, offRunnable}, {41 * ms, 44 * ms, offGone}}},
	}
	type want struct{ first, last, on, runnable, blocked int64 }
	wants := map[int]want{}
	for _, l := range lives {
		w := want{first: l.runs[0].start, last: l.runs[len(l.runs)-1].end}
		if l.fork > 0 {
			w.first = l.fork
			w.runnable += l.runs[0].start - l.fork // forked, not yet run
		}
		for i, r := range l.runs {
			w.on += r.end - r.start
			if i+1 == len(l.runs) {
				break
			}
			if gap := l.runs[i+1].start - r.end; r.how == offRunnable {
				w.runnable += gap
			} else {
				w.blocked += gap
			}
		}
		wants[l.tid] = w
	}

	m, off, pars := feedThreads(t, lifeEvents(lives))
	splits := map[int]Split{}
	for _, sp := range m.Result().Splits {
		if _, dup := splits[sp.Group]; dup {
			t.Errorf("group %d split twice", sp.Group)
		}
		splits[sp.Group] = sp
	}
	if len(splits) != len(lives) {
		t.Errorf("%d splits %+v, want one per thread (%d)", len(splits), m.Result().Splits, len(lives))
	}
	for tid, w := range wants {
		sp := splits[tid]
		t.Logf("tid %d: span %d = on %d + runnable %d + blocked %d µs (want %+v)", tid, sp.Span()/us, sp.OnCPU/us, sp.Runnable/us, sp.Blocked/us, w)
		if sp.First != w.first || sp.Last != w.last || sp.OnCPU != w.on || sp.Runnable != w.runnable || sp.Blocked != w.blocked || sp.CPU != w.on {
			t.Errorf("tid %d: split %+v, want first %d last %d on %d runnable %d blocked %d", tid, sp, w.first, w.last, w.on, w.runnable, w.blocked)
		}
		if got := sp.OnCPU + sp.Runnable + sp.Blocked; got != sp.Span() {
			t.Errorf("tid %d: on+runnable+blocked %d, span %d", tid, got, sp.Span())
		}
	}
	// The profile: each thread's samples at parallelism 1 (it counts only
	// itself), its shares off CPU under its own group, in its states.
	for ref, p := range pars {
		if p.par != 1 || p.group != ref/1000 {
			t.Errorf("sample %d: parallelism %d group %d, want 1 and its tid %d", ref, p.par, p.group, ref/1000)
		}
	}
	got := map[int]want{}
	for _, w := range off {
		if w.Group != w.TID {
			t.Errorf("share %+v: group %d, want its tid", w, w.Group)
		}
		g := got[w.TID]
		switch w.State {
		case Runnable:
			g.runnable += w.OffCPU
		case Blocked:
			g.blocked += w.OffCPU
		}
		got[w.TID] = g
	}
	for _, p := range pars {
		g := got[p.group]
		g.on += ms
		got[p.group] = g
	}
	for tid, w := range wants {
		g := got[tid]
		if g.on != w.on || g.runnable != w.runnable || g.blocked != w.blocked {
			t.Errorf("tid %d: profile on %d runnable %d blocked %d µs, want %d %d %d", tid, g.on/us, g.runnable/us, g.blocked/us, w.on/us, w.runnable/us, w.blocked/us)
		}
	}
}

type threadSample struct{ par, group int }

// feedThreads runs evs through a thread-scope Model with off-CPU time and
// splits: the samples on CPU by ref, and the off-CPU shares.
func feedThreads(t *testing.T, evs []Event) (*Model, []Weighted, map[int]threadSample) {
	t.Helper()
	m := NewModel(Options{Scope: Thread, OffCPU: true, Splits: true})
	var off []Weighted
	pars := map[int]threadSample{}
	take := func(ws []Weighted) {
		for _, w := range ws {
			switch w.State {
			case OnCPU:
				if _, dup := pars[w.Ref]; dup {
					t.Fatalf("sample %d released twice", w.Ref)
				}
				pars[w.Ref] = threadSample{w.Parallelism, w.Group}
			case Runnable, Blocked:
				off = append(off, w)
			}
		}
	}
	for _, e := range evs {
		m.Add(&e)
		take(m.Ready())
	}
	take(m.Close())
	if m.Scope() != Thread {
		t.Errorf("scope %v, want thread", m.Scope())
	}
	return m, off, pars
}

func TestThreadScopeFlagName(t *testing.T) {
	var s Scope
	if err := s.UnmarshalText([]byte("thread")); err != nil || s != Thread || s.String() != "thread" {
		t.Errorf("thread: %v %v", s, err)
	}
	if err := s.UnmarshalText([]byte("tree")); err == nil {
		t.Errorf("tree without a root accepted")
	}
}
