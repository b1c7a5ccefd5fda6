package state

import (
	"strings"
	"testing"
)

// With CPUOnly the model tracks no thread: each sample comes out once at
// its full period as soon as its turn in time order comes; records out
// of order are still put in order, a LOST record still counted and said,
// a trace that begins again said; the switch records' absence is not.
func TestModelCPUOnly(t *testing.T) {
	m := NewModel(Options{Scope: Auto, CPUOnly: true})
	var got []Weighted
	ref := 0
	add := func(e Event) {
		m.Add(&e)
		got = append(got, m.Ready()...)
	}
	for i := int64(1); i <= 300; i++ {
		ref++
		add(clockSample(i*ms+int64(ref%3)*10, -1, 10+ref%3, ref%2, ref)) // in order
		if i == 100 {
			add(clockSample(i*ms-5*ms, -1, 20, 0, -1))                       // another event's: never out
			add(Event{Kind: KindLost, Time: i * ms, CPU: 1, Lost: 7})        // counted
			add(Event{Kind: KindSample, Time: i*ms - 3*ms, TID: 30, Ref: 0}) // late, within the window
		}
	}
	got = append(got, m.Close()...)
	if len(got) != ref+1 {
		t.Fatalf("%d samples out, want %d", len(got), ref+1)
	}
	seen := map[int]bool{}
	for i, w := range got {
		if w.Period != uint64(ms) && w.Ref != 0 || w.Parallelism != 0 || w.Group != 0 || w.State != OnCPU || seen[w.Ref] {
			t.Fatalf("sample %+v: want each once at its period, parallelism 0, group 0, on CPU", w)
		}
		seen[w.Ref] = true
		if i > 0 && w.Time < got[i-1].Time {
			t.Fatalf("sample at %d after one at %d: not in time order", w.Time, got[i-1].Time)
		}
	}
	if n := len(m.t.threads); n != 0 {
		t.Errorf("%d threads tracked, want none", n)
	}
	first, last, _ := m.Span()
	if first != 1*ms+10 || last != 300*ms+10*int64(300%3) {
		t.Errorf("span %d..%d", first, last)
	}
	ws := strings.Join(m.Warnings(), "\n")
	if !strings.Contains(ws, "1 PERF_RECORD_LOST record(s): 7 records lost") || strings.Contains(ws, "PERF_RECORD_SWITCH") {
		t.Errorf("warnings:\n%s\nwant the lost records, not the switch records' absence", ws)
	}
	if strings.Contains(ws, "[lost]") || !strings.Contains(ws, "missing from this CPU profile") {
		t.Errorf("warnings:\n%s\nwant the lost samples said missing: a CPU profile has no [lost] time", ws)
	}
	// The same trace twice: a step back.
	m2 := NewModel(Options{Scope: Auto, CPUOnly: true})
	for pass := 0; pass < 2; pass++ {
		for i := int64(1); i <= 300; i++ {
			m2.Add(new(clockSample(i*ms, -1, 10, 0, int(i))))
			m2.Ready()
		}
	}
	m2.Close()
	if ws := strings.Join(m2.Warnings(), "\n"); !strings.Contains(ws, "time stepped back 1 time(s)") {
		t.Errorf("warnings:\n%s\nwant the step back", ws)
	}
}
