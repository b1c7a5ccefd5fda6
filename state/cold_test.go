package state

import (
	"math/rand"
	"reflect"
	"runtime"
	"sort"
	"testing"
)

// deadWhenDormant are the thread's fields a dormant thread does not keep:
// no record reads them before setting them anew (the running gap's,
// start; the time on CPU's, runOn; the off set's, joinSet), or they
// have one value in every dormant thread (dormant checks it).
var deadWhenDormant = map[string]bool{
	"g": true, "tid": true, // its group and tid: where it is found again
	"exited": true, "running": true, "segOpen": true, "committed": true, "on": true,
	"exitAt": true, "exitOff": true, "waker": true,
	"segGen": true, "segSeq": true, "segTime": true, "splitOff": true, "segBySample": true,
	"spinning": true, "segSpin": true, "segQuiet": true, "quietCPU": true,
	"onSince": true, "runFrom": true, "runCum": true,
}

// inSetOnly are kept only while the thread is in its group's off set
// (joinSet sets them when it joins).
var inSetOnly = map[string]bool{"offState": true, "joinCum": true, "offSince": true, "offRef": true}

// leafFields returns th's fields by name, embedded structs' included.
func leafFields(v reflect.Value, out map[string]reflect.Value) {
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		if f.Anonymous {
			leafFields(v.Field(i), out)
			continue
		}
		out[f.Name] = v.Field(i)
	}
}

// TestColdRoundTrip: a dormant thread, its fields drawn at random, comes
// back from the cold store with every field it keeps as it was. A field
// added to thread must be kept (encodeCold) or named dead here.
func TestColdRoundTrip(t *testing.T) {
	rnd := rand.New(rand.NewSource(27))
	for _, scope := range []Scope{Workload, Process, Thread} {
		for i := 0; i < 2000; i++ {
			tr := newTracker(config{Scope: scope, Gap: 3 * ms, Release: func(sample, float64, *group) {}})
			tid := 1 + rnd.Intn(1<<23) // beyond the dense pages too
			if rnd.Intn(3) == 0 {
				tr.pidOf.set(tid, rnd.Intn(1<<33)-1) // a pid out of 32 bits too
			}
			th := &thread{}
			fields := map[string]reflect.Value{}
			leafFields(reflect.ValueOf(th).Elem(), fields)
			for name, f := range fields {
				if !f.CanSet() {
					f = reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem()
				}
				switch f.Kind() {
				case reflect.Bool:
					f.SetBool(rnd.Intn(2) == 0)
				case reflect.Int, reflect.Int64, reflect.Uint32, reflect.Uint64, reflect.Uint8:
					v := []int64{0, -1, noTime, OtherEvent, rnd.Int63n(1 << 40), -rnd.Int63n(1 << 40), 1 << 62}[rnd.Intn(7)]
					if f.Kind() == reflect.Int || f.Kind() == reflect.Int64 {
						f.SetInt(v)
					} else {
						f.SetUint(uint64(v) & 0xff)
					}
				case reflect.Float64:
					f.SetFloat([]float64{0, rnd.Float64() * 1e9, -rnd.Float64()}[rnd.Intn(3)])
				case reflect.Pointer:
				default:
					t.Fatalf("field %s of kind %v: teach the test", name, f.Kind())
				}
			}
			th.tid, th.on, th.running, th.segOpen, th.committed, th.exited = tid, false, false, false, false, false
			th.exitAt, th.exitOff, th.waker = 0, false, NoWaker
			th.offState = []State{Blocked, Runnable}[rnd.Intn(2)]
			th.g = tr.group(th.pid, tid)
			th.g.threads++
			tr.threads[tid] = th
			if !tr.dormant(th) {
				t.Fatalf("not dormant: %+v", th)
			}
			tr.forget(th)
			if tr.threads[tid] != nil || tr.cold.at.Len() != 1 {
				t.Fatalf("not forgotten")
			}
			back := tr.lookup(tid)
			if back == nil || back == th {
				t.Fatalf("not brought back: %v", back)
			}
			was, got := map[string]reflect.Value{}, map[string]reflect.Value{}
			leafFields(reflect.ValueOf(th).Elem(), was)
			leafFields(reflect.ValueOf(back).Elem(), got)
			for name := range was {
				if deadWhenDormant[name] || inSetOnly[name] && !th.inSet {
					continue
				}
				a, b := reflect.NewAt(was[name].Type(), was[name].Addr().UnsafePointer()).Elem().Interface(),
					reflect.NewAt(got[name].Type(), got[name].Addr().UnsafePointer()).Elem().Interface()
				if a != b {
					t.Fatalf("scope %v, tid %d: field %s was %v, back %v", scope, tid, name, a, b)
				}
			}
			if back.g != th.g || back.tid != tid {
				t.Fatalf("group or tid not kept")
			}
		}
	}
}

// randomTrace is a trace of threads that run, block, are preempted,
// woken, go silent, fork and exit, some for a long while, with losses:
// records in time order, per-task switches or CPU-wide ones.
func randomTrace(rnd *rand.Rand, cpuWide, switches bool) []Event {
	var evs []Event
	const threads = 40
	now := int64(1e9)
	ref := 0
	running := map[int]int{} // tid -> cpu
	exited := map[int]bool{}
	for step := 0; step < 3000; step++ {
		now += int64(rnd.Intn(400)) * 1000 // up to 0.4 ms apart
		if rnd.Intn(200) == 0 {
			now += int64(rnd.Intn(3000)) * 1e6 // up to 3 s of nothing
		}
		tid := 100 + rnd.Intn(threads)
		pid := 100 + (tid-100)%5
		if exited[tid] {
			if rnd.Intn(3) != 0 {
				continue
			}
			evs = append(evs, Event{Kind: KindFork, Time: now, PID: pid, TID: tid, ParentPID: pid, CPU: -1, Ref: OtherEvent})
			exited[tid] = false
		}
		cpu := -1
		if cpuWide {
			cpu = (tid - 100) % 4
		}
		ref++
		sw := func(out, preempt bool) Event {
			k := KindSwitch
			if cpuWide {
				k = KindSwitchCPUWide
			}
			return Event{Kind: k, Time: now, PID: pid, TID: tid, CPU: cpu, Out: out, Preempt: preempt, Ref: ref, PeerPID: -1, PeerTID: -1}
		}
		_, on := running[tid]
		switch r := rnd.Intn(20); {
		case r < 9:
			evs = append(evs, clockSample(now, pid, tid, cpu, ref))
			running[tid] = cpu
		case r < 12 && switches && !on:
			evs = append(evs, sw(false, false))
			running[tid] = cpu
		case r < 15 && switches && on:
			evs = append(evs, Event{Kind: KindBlockStack, Time: now, PID: pid, TID: tid, CPU: cpu, Ref: ref})
			evs = append(evs, sw(true, rnd.Intn(3) == 0))
			delete(running, tid)
		case r < 16:
			evs = append(evs, Event{Kind: KindWakeup, Time: now, PeerPID: -1, PeerTID: tid, Ref: 1 + rnd.Intn(3), CPU: -1})
		case r < 17 && rnd.Intn(4) == 0:
			evs = append(evs, Event{Kind: KindExit, Time: now, PID: pid, TID: tid, CPU: cpu, Ref: ref})
			delete(running, tid)
			exited[tid] = true
		case r < 18 && rnd.Intn(4) == 0:
			evs = append(evs, Event{Kind: KindLost, Time: now, Lost: uint64(1 + rnd.Intn(5)), CPU: cpu})
		case r < 19:
			evs = append(evs, Event{Kind: KindComm, Time: now, PID: pid, TID: tid, CPU: cpu, Ref: OtherEvent})
		}
	}
	return evs
}

// modelRun is all a Model gives for evs.
type modelRun struct {
	released []Weighted
	trans    []Transition
	result   Result
	warnings []string
	threads  int
}

func runModel(evs []Event, o Options, soon bool) (modelRun, int) {
	m := NewModel(o)
	m.t.forgetSoon = soon
	var r modelRun
	forgot := 0
	for _, e := range evs {
		m.Add(&e)
		r.released = append(r.released, m.Ready()...)
		r.trans = append(r.trans, m.Transitions()...)
		forgot = max(forgot, m.t.cold.at.Len())
	}
	r.released = append(r.released, m.Close()...)
	r.trans = append(r.trans, m.Transitions()...)
	r.result, r.warnings, r.threads = m.Result(), m.Warnings(), m.t.counts().Threads
	// Groups release in the order of a map's iteration where several
	// drain at once (endGaps): the order is the model's within a group.
	sort.SliceStable(r.released, func(i, j int) bool { return r.released[i].Group < r.released[j].Group })
	sort.SliceStable(r.trans, func(i, j int) bool { return r.trans[i].Group < r.trans[j].Group })
	return r, forgot
}

// TestForgetSame: random traces give the same samples, parallelism,
// off-CPU shares, timeline, splits, wakers, counts and warnings whether
// quiet threads are forgotten at the first moment they may be or kept
// to the end.
func TestForgetSame(t *testing.T) {
	rnd := rand.New(rand.NewSource(1))
	traces := 60
	if testing.Short() {
		traces = 20
	}
	forgotten := 0
	for i := 0; i < traces; i++ {
		cpuWide, switches := rnd.Intn(2) == 0, rnd.Intn(4) != 0
		evs := randomTrace(rnd, cpuWide, switches)
		o := Options{Scope: []Scope{Auto, Workload, Process, Thread}[i%4], OffCPU: i%3 != 0, Splits: i%2 == 0, Timeline: i%5 == 0}
		keep, _ := runModel(evs, o, false)
		soon, n := runModel(evs, o, true)
		forgotten += n
		if !reflect.DeepEqual(keep, soon) {
			for j := range min(len(keep.released), len(soon.released)) {
				if keep.released[j] != soon.released[j] {
					t.Fatalf("trace %d (%+v, cpu-wide %v, switches %v): release %d: kept %+v, forgotten %+v", i, o, cpuWide, switches, j, keep.released[j], soon.released[j])
				}
			}
			t.Fatalf("trace %d (%+v): kept %+v\nforgotten %+v", i, o, keep.result, soon.result)
		}
	}
	if forgotten == 0 {
		t.Fatal("no thread was forgotten: the test tests nothing")
	}
}

// TestForgottenThreadReturns: a thread blocked for 4 s, forgotten while
// another process runs, comes back and is charged its blocked time as a
// thread never forgotten would be. By hand: process 10's thread 11 runs
// 1-3 ms (a sample at 2 ms), is switched out (blocked), and runs again
// 4.000-4.002 s (a sample at 4.001 s); nothing else of process 10 runs.
// Its group is blocked 3 ms - 4 s: 3.997 s, charged to thread 11 at its
// last stack before it (the sample at 2 ms), dated from 3 ms; on CPU 4 ms
// by its switches, of which its two samples (1 ms each) cover 2 ms: 2 ms
// unsampled, at its last sample's stack, from it (4.001 s) to its end.
func TestForgottenThreadReturns(t *testing.T) {
	sw := func(at int64, out bool) Event {
		return Event{Kind: KindSwitch, Time: at, PID: 10, TID: 11, CPU: -1, Out: out, Ref: OtherEvent}
	}
	before := []Event{sw(1*ms, false), clockSample(2*ms, 10, 11, -1, 1), sw(3*ms, true),
		clockSample(1000*ms, 20, 21, -1, 2), clockSample(2000*ms, 20, 21, -1, 3), clockSample(3000*ms, 20, 21, -1, 4)}
	after := []Event{sw(4000*ms, false), clockSample(4001*ms, 10, 11, -1, 5), sw(4002*ms, true)}
	for _, soon := range []bool{false, true} {
		m := NewModel(Options{Scope: Process, OffCPU: true, Splits: true})
		m.t.forgetSoon = soon
		var got []Weighted
		for _, e := range before {
			m.Add(&e)
			got = append(got, m.Ready()...)
		}
		if m.t.cold.at.Get(11) == 0 {
			t.Fatalf("soon %v: thread 11 not forgotten while quiet", soon)
		}
		for _, e := range after {
			m.Add(&e)
			got = append(got, m.Ready()...)
		}
		got = append(got, m.Close()...)
		var blocked []Weighted
		for _, w := range got {
			if w.TID == 11 && w.State == OnCPU && w.Par != 1 {
				t.Errorf("soon %v: sample %d parallelism %v, want 1", soon, w.Ref, w.Par)
			}
			if w.TID == 11 && w.State != OnCPU && w.OffCPU > 0 {
				blocked = append(blocked, w)
			}
		}
		want := []Weighted{{Time: 3 * ms, PID: 10, TID: 11, CPU: -1, Ref: 1, Group: 10, State: Blocked, OffCPU: 3997 * ms, OffEnd: 4000 * ms},
			{Time: 4001 * ms, PID: 10, TID: 11, CPU: -1, Ref: 5, Group: 10, State: Unsampled, OffCPU: 2 * ms, OffEnd: 4002 * ms}}
		if !reflect.DeepEqual(blocked, want) {
			t.Errorf("soon %v: thread 11's off-CPU shares %+v, want %+v", soon, blocked, want)
		}
		for _, sp := range m.Result().Splits {
			if sp.Group == 10 && (sp.OnCPU != 4*ms || sp.Blocked != 3997*ms || sp.CPU != 4*ms || sp.Unsampled.CPU != 2*ms) {
				t.Errorf("soon %v: process 10's split %+v, want 4 ms on CPU, 3.997 s blocked", soon, sp)
			}
		}
	}
}

// TestMemoryPerThread: threads seen once each (one sample, a thread every
// 100 µs; with switch records, and without) cost the model a few tens of
// bytes each once quiet, not their thread struct and map entries (some
// 400 bytes: two million took 637 MB). What stays is what a record of
// them could still read (cold.go); the threads of the last second or so
// (the rate estimate decides a gap within 1000 periods) are the same
// number at the half and at the end, and do not count.
func TestMemoryPerThread(t *testing.T) {
	threads := 1 << 17
	if testing.Short() {
		threads = 1 << 16
	}
	for _, switches := range []bool{false, true} {
		m := NewModel(Options{Scope: Workload})
		var base int64
		for i := 0; i < threads; i++ {
			if i == threads/2 {
				base = heapInUse() // from here: what each thread more costs
			}
			at, tid := 1e9+int64(i)*100_000, 1000+i
			if switches {
				m.Add(&Event{Kind: KindSwitch, Time: at, PID: 1000, TID: tid, CPU: -1, Ref: OtherEvent})
			}
			m.Add(new(clockSample(at+10_000, 1000, tid, -1, i)))
			if switches {
				m.Add(&Event{Kind: KindSwitch, Time: at + 20_000, PID: 1000, TID: tid, CPU: -1, Out: true, Ref: OtherEvent})
			}
			m.Ready()
		}
		grew := heapInUse() - base
		perThread := float64(grew) / float64(threads/2)
		t.Logf("switches %v: %.0f bytes a thread", switches, perThread)
		if perThread > 100 {
			t.Errorf("switches %v: %.0f bytes a thread (heap %d bytes more for the last %d threads), want at most 100", switches, perThread, grew, threads/2)
		}
		m.Close()
		if got := m.t.counts().Threads; got != threads {
			t.Errorf("switches %v: %d threads counted, want %d", switches, got, threads)
		}
		runtime.KeepAlive(m)
	}
}

// heapInUse is the heap in use after a collection.
func heapInUse() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapInuse)
}

// TestMemoryPerProcess: threads seen once each, each a process of its own
// (CPU-wide switch records, process scope), cost what their group and
// their record keep once quiet; before, a forgotten thread stayed
// reachable through its group's list of open gaps, and its group kept its
// queues (1 008 bytes a thread before, 582 after, measured).
func TestMemoryPerProcess(t *testing.T) {
	threads := 1 << 15
	m := NewModel(Options{Scope: Process})
	var base int64
	for i := 0; i < threads; i++ {
		if i == threads/2 {
			base = heapInUse()
		}
		at, tid, cpu := 1e9+int64(i)*100_000, 1000+i, i%8
		m.Add(&Event{Kind: KindSwitchCPUWide, Time: at, PID: tid, TID: tid, CPU: cpu, Ref: OtherEvent})
		m.Add(new(clockSample(at+10_000, tid, tid, cpu, i)))
		m.Add(&Event{Kind: KindSwitchCPUWide, Time: at + 20_000, PID: tid, TID: tid, CPU: cpu, Out: true, Ref: OtherEvent})
		m.Ready()
	}
	perThread := float64(heapInUse()-base) / float64(threads/2)
	t.Logf("%.0f bytes a thread", perThread)
	if perThread > 700 {
		t.Errorf("%.0f bytes a thread (each its own process), want at most 700", perThread)
	}
	runtime.KeepAlive(m)
}
