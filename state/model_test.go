package state

import (
	"strings"
	"testing"
)

// feed gives evs to a new Model and returns what it released, by Ref.
func feed(t *testing.T, scope Scope, evs []Event) (*Model, map[int]Weighted) {
	t.Helper()
	m := NewModel(Options{Scope: scope})
	got := map[int]Weighted{}
	take := func(ws []Weighted) {
		for _, w := range ws {
			if _, dup := got[w.Ref]; dup {
				t.Fatalf("sample %d released twice", w.Ref)
			}
			got[w.Ref] = w
		}
	}
	for _, e := range evs {
		m.Add(&e)
		take(m.Ready())
	}
	take(m.Close())
	return m, got
}

func clockSample(at int64, pid, tid, cpu, ref int) Event {
	return Event{Kind: KindSample, Clock: true, HasPeriod: true, HasTime: true, Time: at,
		PID: pid, TID: tid, CPU: cpu, Period: uint64(ms), Ref: ref}
}

// Two threads of one process, sampled without a pid from 1 ms on; a
// CPU-wide switch names their process only at 50 ms (within the
// look-ahead), another thread's process only at 350 ms (beyond it: records
// wait the order stage's 250 ms window too, order.go). By
// hand: 101 and 102 run together from their first samples (parallelism
// 2, group 100); 201 counts alone in its own group until it is named.
func TestModelLookahead(t *testing.T) {
	var evs []Event
	ref := 0
	for i := int64(1); i <= 400; i++ {
		for _, tid := range []int{101, 102, 201} {
			ref++
			evs = append(evs, clockSample(i*ms+int64(tid), -1, tid, tid%4, ref))
		}
		switch i {
		case 50:
			evs = append(evs, Event{Kind: KindSwitchCPUWide, Time: i*ms + 500, PID: -1, TID: 0, CPU: 1, Out: true, PeerPID: 100, PeerTID: 101},
				Event{Kind: KindSwitchCPUWide, Time: i*ms + 600, PID: -1, TID: 0, CPU: 2, Out: true, PeerPID: 100, PeerTID: 102})
		case 350:
			evs = append(evs, Event{Kind: KindSwitchCPUWide, Time: i*ms + 700, PID: -1, TID: 0, CPU: 3, Out: true, PeerPID: 200, PeerTID: 201})
		}
	}
	m, got := feed(t, Auto, evs)
	if m.Scope() != Process {
		t.Fatalf("scope %v, want process (CPU-wide switches)", m.Scope())
	}
	if len(got) != ref {
		t.Fatalf("released %d samples, want %d", len(got), ref)
	}
	first101, first102 := got[1], got[2]
	if first101.PID != 100 || first101.Group != 100 || first102.Parallelism != 2 {
		t.Errorf("first samples: 101 %+v, 102 %+v; want pid 100, group 100, parallelism 2", first101, first102)
	}
	first201 := got[3]
	if first201.Group != 201 || first201.Parallelism != 1 {
		t.Errorf("201's first sample %+v: want its own group 201 (named too late), parallelism 1", first201)
	}
	if last201 := got[ref]; last201.Group != 200 || last201.PID != 200 {
		t.Errorf("201's last sample %+v: want group and pid 200", last201)
	}
}

func TestModelAutoScope(t *testing.T) {
	for _, tt := range []struct {
		name  string
		first Event
		cpu   int
		want  Scope
	}{
		{"per-task switch", Event{Kind: KindSwitch, Time: 1 * ms, PID: 1, TID: 1, CPU: -1}, 0, Workload},
		{"CPU-wide switch", Event{Kind: KindSwitchCPUWide, Time: 1 * ms, PID: 1, TID: 1, CPU: 0}, -1, Process},
		{"samples with a CPU", Event{Kind: KindTick, Time: 1 * ms}, 0, Process},
		{"samples without a CPU", Event{Kind: KindTick, Time: 1 * ms}, -1, Workload},
	} {
		evs := []Event{tt.first}
		for i := int64(2); i < 300; i++ {
			evs = append(evs, clockSample(i*ms, 1, 1, tt.cpu, int(i)))
		}
		m, got := feed(t, Auto, evs)
		if m.Scope() != tt.want || len(got) != 298 {
			t.Errorf("%s: scope %v, %d released; want %v, 298", tt.name, m.Scope(), len(got), tt.want)
		}
	}
	if m := NewModel(Options{}); m.Scope() != Workload {
		t.Errorf("scope before any record: %v, want workload", m.Scope())
	}
}

// The first sample sets the silence limit: 3 periods of a clock event.
// Thread 102 is silent 5 ms (over 3 ms) in the middle: by hand, 101's
// samples in that time are alone.
func TestModelSilenceLimit(t *testing.T) {
	evs := []Event{
		clockSample(1*ms, 100, 101, -1, 1), clockSample(1*ms+500, 100, 102, -1, 2),
		clockSample(2*ms, 100, 101, -1, 3), clockSample(2*ms+500, 100, 102, -1, 4),
		clockSample(3*ms, 100, 101, -1, 5), clockSample(4*ms, 100, 101, -1, 6),
		clockSample(5*ms, 100, 101, -1, 7), clockSample(6*ms, 100, 101, -1, 8),
		clockSample(7*ms, 100, 101, -1, 9), clockSample(7*ms+500, 100, 102, -1, 10),
		clockSample(8*ms, 100, 101, -1, 11),
	}
	_, got := feed(t, Workload, evs)
	want := map[int]int{2: 2, 3: 2, 4: 2, 5: 1, 6: 1, 7: 1, 8: 1, 10: 2, 11: 1}
	for ref, p := range want {
		if got[ref].Parallelism != p {
			t.Errorf("sample %d: parallelism %d, want %d", ref, got[ref].Parallelism, p)
		}
	}
	// Not a clock: silence says nothing (102 counts as running through).
	for i := range evs {
		evs[i].Clock, evs[i].Name = false, []byte("cycles:u")
	}
	m, got := feed(t, Workload, append([]Event{{Kind: KindSwitch, Time: 1, PID: 100, TID: 103, CPU: -1, Out: true}}, evs...))
	if got[6].Parallelism != 2 {
		t.Errorf("non-clock event: sample 6 parallelism %d, want 2", got[6].Parallelism)
	}
	ws := strings.Join(m.Warnings(), "\n")
	if !strings.Contains(ws, "event cycles:u is not time-based (silence says nothing)") {
		t.Errorf("warnings %q: want the non-clock silence warning", ws)
	}
}

// Samples of other events and unwanted ones keep their threads alive but
// are never released; only the profiled ones count for the warnings.
func TestModelSignsOfLife(t *testing.T) {
	var evs []Event
	for i := int64(1); i <= 10; i++ {
		other := clockSample(i*ms, 100, 101, -1, OtherEvent)
		unwanted := clockSample(i*ms+300, 100, 102, -1, Unwanted)
		evs = append(evs, other, unwanted, clockSample(i*ms+600, 100, 103, -1, int(i)))
	}
	m, got := feed(t, Workload, evs)
	if len(got) != 10 {
		t.Fatalf("released %d, want the 10 profiled samples", len(got))
	}
	for ref := 2; ref < 10; ref++ { // the last one: the others have no later sign
		if got[ref].Parallelism != 3 {
			t.Errorf("sample %d: parallelism %d, want 3", ref, got[ref].Parallelism)
		}
	}
	if ws := m.Warnings(); len(ws) != 1 || !strings.Contains(ws[0], "no PERF_RECORD_SWITCH") {
		t.Errorf("warnings %q", ws)
	}
	// Only other events: nothing profiled, nothing to warn about.
	m, got = feed(t, Workload, evs[:1])
	if len(got) != 0 || len(m.Warnings()) != 0 {
		t.Errorf("other events only: %d released, warnings %q", len(got), m.Warnings())
	}
}

func TestModelSpan(t *testing.T) {
	m, _ := feed(t, Workload, []Event{
		{Kind: KindFork, Time: 0, PID: 1, TID: 1}, // perf's synthesized records
		{Kind: KindTick, Time: 5 * ms}, clockSample(7*ms, 1, 1, -1, 1),
		{Kind: KindTick, Time: 6 * ms}, // out of order: the span keeps the latest
	})
	if first, last, ok := m.Span(); !ok || first != 5*ms || last != 7*ms {
		t.Errorf("Span() = %d, %d, %v; want 5 ms, 7 ms", first, last, ok)
	}
}
