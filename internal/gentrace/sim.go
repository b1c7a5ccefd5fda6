package gentrace

import (
	"container/heap"
	"math/rand/v2"
	"strconv"
)

const (
	Period  = 1001001        // cpu-clock at 999 Hz, ns of CPU time
	Base    = 1000e9         // trace time of simulated instant 0, ns
	Forever = int64(1 << 60) // a run burst that ends only with its phase
	Ms      = int64(1e6)

	exitRun = 20_000 // CPU a thread burns to exit after waking at its end
)

// Dist is a uniform distribution of durations, Mean*(1±Jitter).
type Dist struct {
	Mean   int64
	Jitter float64
}

func (d Dist) draw(r *rand.Rand) int64 {
	if d.Mean >= Forever {
		return Forever
	}
	v := float64(d.Mean) * (1 + d.Jitter*(2*r.Float64()-1))
	return max(1, int64(v))
}

// CPUBound is a run burst that never blocks.
var CPUBound = Dist{Mean: Forever}

// Phase: until the absolute time Until, the thread runs Fn in bursts of
// Run CPU time separated by Block waits.
type Phase struct {
	Fn         string
	Until      int64
	Run, Block Dist
}

// ThreadSpec is one thread of a workload; the thread of a pid whose tid
// is the pid is its leader. A thread exists from Start to End (End: it
// exits the next time it is on a CPU at or after End).
type ThreadSpec struct {
	Comm       string
	PID, TID   int
	Start, End int64
	Phases     []Phase // the last one lasts until End
}

// Config is a workload: CPUs, span, scheduler knobs and threads.
type Config struct {
	Name    string
	CPUs    int
	Span    int64
	Slice   int64 // time slice: a waiting thread preempts a runner after it
	Migrate bool  // put a woken thread on a random free CPU, not its last one
	Seed    uint64
	Threads []ThreadSpec
	Parent  map[int]int // pid -> parent pid (FORK records)
}

// NewConfig is an empty workload with a 3 ms time slice.
func NewConfig(name string, cpus int, span int64, seed uint64) Config {
	return Config{Name: name, CPUs: cpus, Span: span, Slice: 3 * Ms, Seed: seed, Parent: map[int]int{}}
}

// Add appends a thread.
func (c *Config) Add(comm string, pid, tid int, start, end int64, phases ...Phase) {
	c.Threads = append(c.Threads, ThreadSpec{Comm: comm, PID: pid, TID: tid, Start: start, End: end, Phases: phases})
}

type state int

const (
	unborn state = iota
	blocked
	runnable
	running
	exited
)

// Run is a stretch on one CPU, [Start, End).
type Run struct {
	Start, End int64
	CPU        int
}

// Thread is a simulated thread: its spec, its scheduling state, and what
// it did (its runs on CPU, its CPU time and samples).
type Thread struct {
	ThreadSpec
	state                        state
	cpu                          int // current or last CPU (-1: none yet)
	phase                        int
	burstLeft                    int64 // CPU time left in the current run burst
	exiting                      bool  // woke at or after its end: runs exitRun, then exits
	runStart, lastAcct, sliceEnd int64 // this run's start, CPU counted up to, slice end
	accum                        int64 // CPU time since its last sample
	gen                          int   // invalidates stale agenda entries
	CPUTime                      int64
	Samples                      int
	Runs                         []Run
}

// Leader says whether th is its process's main thread.
func (th *Thread) Leader() bool { return th.PID == th.TID }

// ProcKey is th's process as "comm-PID".
func (th *Thread) ProcKey() string { return th.Comm + "-" + strconv.Itoa(th.PID) }

func (th *Thread) ph() *Phase { return &th.Phases[th.phase] }

// Kind is what a Rec is.
type Kind int

const (
	Sample Kind = iota
	Switch      // on CPU: Thread (nil = idle) leaves, In (nil = idle) comes
	Fork        // Thread created by its parent
	Exit
)

// Rec is a record of the simulated run; Sim.Text turns it into lines.
type Rec struct {
	Kind    Kind
	Time    int64
	CPU     int
	Thread  *Thread // sample, fork (child), exit; switch: out
	In      *Thread // switch: the incoming thread
	Preempt bool    // switch: out was still runnable
	Exited  bool    // switch: out exited
	Fn      string  // sample
	Par     int     // sample: true parallelism of its group (set by Sim.Truth)
}

// event is an agenda entry: a thread's next decision.
type event struct {
	t        int64
	seq, gen int
	th       *Thread
}

// agenda holds each thread's next decision, the earliest first (ties in
// scheduling order); stale entries (gen) are skipped.
type agenda []event

func (h agenda) Len() int      { return len(h) }
func (h agenda) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h agenda) Less(i, j int) bool {
	return h[i].t < h[j].t || h[i].t == h[j].t && h[i].seq < h[j].seq
}
func (h *agenda) Push(x any) { *h = append(*h, x.(event)) }
func (h *agenda) Pop() any {
	e := (*h)[len(*h)-1]
	*h = (*h)[:len(*h)-1]
	return e
}

// Sim is one simulated run: its threads and records, in emission order.
type Sim struct {
	Cfg     Config
	Threads []*Thread
	Recs    []Rec

	rng     *rand.Rand
	byTID   map[int]*Thread
	running []*Thread // per CPU, nil = idle
	free    []int     // idle CPUs; freeAt[cpu] = index in free or -1
	freeAt  []int
	queue   []*Thread // runnable, waiting for a CPU (FIFO)
	events  agenda
	seq     int
}

func (s *Sim) emit(r Rec) { s.Recs = append(s.Recs, r) }

func (s *Sim) schedule(th *Thread, t int64) {
	th.gen++
	s.seq++
	heap.Push(&s.events, event{t: t, seq: s.seq, th: th, gen: th.gen})
}

// Simulate runs a workload to completion.
func Simulate(cfg Config) *Sim {
	s := &Sim{Cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15)),
		byTID: map[int]*Thread{}, running: make([]*Thread, cfg.CPUs), freeAt: make([]int, cfg.CPUs)}
	for c := 0; c < cfg.CPUs; c++ {
		s.freeAt[c] = c
		s.free = append(s.free, c)
	}
	for _, sp := range cfg.Threads {
		th := &Thread{ThreadSpec: sp, cpu: -1}
		s.Threads = append(s.Threads, th)
		s.byTID[sp.TID] = th
		if sp.Start > 0 {
			s.schedule(th, sp.Start)
			continue
		}
		// A thread alive when the trace begins is running then (no SWITCH
		// IN) with the odds of its share of time on CPU, else mid-wait, so
		// that threads do not march in step.
		th.state = blocked
		ph := th.ph()
		if s.rng.Float64()*float64(ph.Run.Mean+ph.Block.Mean) < float64(ph.Run.Mean) {
			s.schedule(th, 0)
		} else {
			s.schedule(th, s.rng.Int64N(ph.Block.draw(s.rng)))
		}
	}
	for len(s.events) > 0 {
		e := heap.Pop(&s.events).(event)
		if e.gen != e.th.gen {
			continue
		}
		switch e.th.state {
		case unborn:
			s.born(e.th, e.t)
		case blocked:
			s.wake(e.th, e.t)
		case running:
			s.tick(e.th, e.t)
		}
	}
	return s
}

// born: the thread is created (FORK by its leader, or by the parent
// process for a leader) and is runnable at once.
func (s *Sim) born(th *Thread, now int64) {
	s.emit(Rec{Kind: Fork, Time: now, CPU: th.TID % s.Cfg.CPUs, Thread: th})
	s.wake(th, now)
}

// wake makes a blocked thread runnable: on a free CPU, else in the queue.
func (s *Sim) wake(th *Thread, now int64) {
	for th.phase < len(th.Phases)-1 && th.ph().Until <= now {
		th.phase++
		th.burstLeft = 0
	}
	if now >= th.End {
		th.exiting, th.burstLeft = true, exitRun
	} else if th.burstLeft <= 0 {
		th.burstLeft = th.ph().Run.draw(s.rng)
	}
	th.state = runnable
	if len(s.free) == 0 {
		s.queue = append(s.queue, th)
		return
	}
	c := s.free[s.rng.IntN(len(s.free))]
	if !s.Cfg.Migrate && th.cpu >= 0 && s.freeAt[th.cpu] >= 0 {
		c = th.cpu
	}
	if now > 0 { // at 0 the thread was already running: no SWITCH IN
		s.emit(Rec{Kind: Switch, Time: now, CPU: c, In: th, Preempt: true})
	}
	s.put(th, c, now)
}

// put starts th on CPU c (the switch record is the caller's).
func (s *Sim) put(th *Thread, c int, now int64) {
	if i := s.freeAt[c]; i >= 0 {
		last := s.free[len(s.free)-1]
		s.free[i], s.freeAt[last] = last, i
		s.free = s.free[:len(s.free)-1]
		s.freeAt[c] = -1
	}
	s.running[c] = th
	th.state, th.cpu, th.runStart, th.lastAcct, th.sliceEnd = running, c, now, now, now+s.Cfg.Slice
	s.reschedule(th)
}

// reschedule: a running thread's next decision is the first of its burst
// end, its phase end, its slice end and its own end.
func (s *Sim) reschedule(th *Thread) {
	t := min(th.lastAcct+th.burstLeft, th.sliceEnd)
	if th.phase < len(th.Phases)-1 {
		t = min(t, th.ph().Until)
	}
	if !th.exiting {
		t = min(t, th.End)
	}
	s.schedule(th, max(t, th.lastAcct))
}

// account charges the CPU time since the last decision and emits the
// samples due in it: one each time the thread's CPU time crosses a period.
func (s *Sim) account(th *Thread, now int64) {
	d := now - th.lastAcct
	for t := th.lastAcct + Period - th.accum; t < now; t += Period {
		s.emit(Rec{Kind: Sample, Time: t, CPU: th.cpu, Thread: th, Fn: th.ph().Fn})
		th.Samples++
		th.accum -= Period
	}
	th.accum += d
	th.CPUTime += d
	th.burstLeft -= d
	th.lastAcct = now
}

func (s *Sim) tick(th *Thread, now int64) {
	s.account(th, now)
	switch {
	case th.exiting && th.burstLeft <= 0 || !th.exiting && now >= th.End:
		s.emit(Rec{Kind: Exit, Time: now, CPU: th.cpu, Thread: th})
		th.state = exited
		s.release(th, now, false, true)
	case th.phase < len(th.Phases)-1 && th.ph().Until <= now:
		th.phase++
		th.burstLeft = th.ph().Run.draw(s.rng)
		s.reschedule(th)
	case th.burstLeft <= 0:
		th.state = blocked
		wake := min(now+th.ph().Block.draw(s.rng), th.End)
		s.release(th, now, false, false)
		s.schedule(th, max(wake, now+1))
	case now >= th.sliceEnd && len(s.queue) > 0:
		th.state = runnable
		s.release(th, now, true, false)
		s.queue = append(s.queue, th)
	default:
		if now >= th.sliceEnd {
			th.sliceEnd = now + s.Cfg.Slice
		}
		s.reschedule(th)
	}
}

// release takes th off its CPU and gives the CPU to the first waiting
// thread, or leaves it idle; one switch record says both.
func (s *Sim) release(th *Thread, now int64, preempt, exit bool) {
	c := th.cpu
	th.Runs = append(th.Runs, Run{Start: th.runStart, End: now, CPU: c})
	s.running[c] = nil
	var next *Thread
	if len(s.queue) > 0 {
		next, s.queue = s.queue[0], s.queue[1:]
	}
	s.emit(Rec{Kind: Switch, Time: now, CPU: c, Thread: th, In: next, Preempt: preempt, Exited: exit})
	if next != nil {
		s.put(next, c, now)
		return
	}
	s.freeAt[c] = len(s.free)
	s.free = append(s.free, c)
}
