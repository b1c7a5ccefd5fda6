package main

// A generator of many-CPU perf script traces with exact truth (issue 13).
//
// A simulation in integer nanoseconds schedules threads (grouped in
// processes) on N CPUs: each thread alternates run and block bursts drawn
// from seeded distributions, runnable threads wait in one FIFO queue when
// no CPU is free, and a running thread is preempted at the end of its time
// slice when another waits. cpu-clock samples fall every period of each
// thread's CPU time, at the exact instant, on its CPU. The truth (each
// sample's parallelism, wall per function and process, time on CPU per
// group) comes from the simulation's run intervals, never from the text.
// genWrite then prints the same run as perf script would, in a chosen
// style: CPU-wide or per-task switch records or none, task events or not,
// a pid column or not, per-CPU clock skew, per-CPU loss windows.

import (
	"bytes"
	"container/heap"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
)

const (
	genPeriod  = 1001001        // cpu-clock at 999 Hz, ns of CPU time
	genBase    = 1000e9         // trace time of simulated instant 0, ns
	genForever = int64(1 << 60) // a run burst that ends only with its phase
	genExitRun = 20_000         // CPU a thread burns to exit after waking at its end
)

// genDist is a uniform distribution of durations, mean*(1±jitter).
type genDist struct {
	mean   int64
	jitter float64
}

func (d genDist) draw(r *rand.Rand) int64 {
	if d.mean >= genForever {
		return genForever
	}
	v := float64(d.mean) * (1 + d.jitter*(2*r.Float64()-1))
	return max(1, int64(v))
}

// genPhase: until the absolute time until, the thread runs fn in bursts of
// run CPU time separated by block waits.
type genPhase struct {
	fn         string
	until      int64
	run, block genDist
}

// genThreadSpec is one thread of a workload; the first thread of a pid is
// its leader. A thread exists from start to end (end: it exits the next
// time it is on a CPU at or after end).
type genThreadSpec struct {
	comm       string
	pid, tid   int
	start, end int64
	phases     []genPhase // the last one lasts until end
}

// genConfig is a workload: CPUs, span, scheduler knobs and threads.
type genConfig struct {
	name    string
	cpus    int
	span    int64
	slice   int64 // time slice: a waiting thread preempts a runner after it
	migrate bool  // put a woken thread on a random free CPU, not its last one
	seed    uint64
	threads []genThreadSpec
	parent  map[int]int // pid -> parent pid (FORK records)
}

// ---- simulation ----

type genState int

const (
	genUnborn genState = iota
	genBlocked
	genRunnable
	genRunning
	genExited
)

type genThread struct {
	genThreadSpec
	state                        genState
	cpu                          int // current or last CPU (-1: none yet)
	phase                        int
	burstLeft                    int64 // CPU time left in the current run burst
	exiting                      bool  // woke at or after its end: runs genExitRun, then exits
	runStart, lastAcct, sliceEnd int64 // this run's start, CPU counted up to, slice end
	accum                        int64 // CPU time since its last sample
	gen                          int   // invalidates stale heap entries
	cpuTime                      int64 // for the sanity test
	samples                      int
	intervals                    [][2]int64 // on-CPU [start, end)
	ivCPU                        []int      // each interval's CPU
}

func (th *genThread) leader() bool  { return th.pid == th.tid }
func (th *genThread) ph() *genPhase { return &th.phases[th.phase] }

// genKind is a record of the simulated run; genWrite turns it into lines.
type genKind int

const (
	genSample genKind = iota
	genSwitch         // on cpu: out (nil = idle) leaves, in (nil = idle) comes
	genFork           // th created by parent thread
	genExit
)

type genRec struct {
	kind    genKind
	t       int64
	cpu     int
	th      *genThread // sample, fork (child), exit; switch: out
	in      *genThread // switch: the incoming thread
	preempt bool       // switch: out was still runnable
	exit    bool       // switch: out exited
	fn      string     // sample
	par     int        // sample: true parallelism of its group (set by truth)
}

// genEvs is the simulation's agenda: each thread's next decision, the
// earliest first (ties in scheduling order); stale entries (gen) are skipped.
type genEv struct {
	t        int64
	seq, gen int
	th       *genThread
}
type genEvs []genEv

func (h genEvs) Len() int      { return len(h) }
func (h genEvs) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h genEvs) Less(i, j int) bool {
	return h[i].t < h[j].t || h[i].t == h[j].t && h[i].seq < h[j].seq
}
func (h *genEvs) Push(x any) { *h = append(*h, x.(genEv)) }
func (h *genEvs) Pop() any {
	e := (*h)[len(*h)-1]
	*h = (*h)[:len(*h)-1]
	return e
}

// genSim is one simulated run: its threads and records, in emission order.
type genSim struct {
	cfg     genConfig
	rng     *rand.Rand
	threads []*genThread
	byTID   map[int]*genThread
	recs    []genRec
	running []*genThread // per CPU, nil = idle
	free    []int        // idle CPUs; freeAt[cpu] = index in free or -1
	freeAt  []int
	queue   []*genThread // runnable, waiting for a CPU (FIFO)
	events  genEvs
	seq     int
}

func (s *genSim) emit(r genRec) { s.recs = append(s.recs, r) }

func (s *genSim) schedule(th *genThread, t int64) {
	th.gen++
	s.seq++
	heap.Push(&s.events, genEv{t: t, seq: s.seq, th: th, gen: th.gen})
}

// genSimulate runs a workload to completion.
func genSimulate(cfg genConfig) *genSim {
	s := &genSim{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.seed, 0x9e3779b97f4a7c15)),
		byTID: map[int]*genThread{}, running: make([]*genThread, cfg.cpus), freeAt: make([]int, cfg.cpus)}
	for c := 0; c < cfg.cpus; c++ {
		s.freeAt[c] = c
		s.free = append(s.free, c)
	}
	for _, sp := range cfg.threads {
		th := &genThread{genThreadSpec: sp, cpu: -1}
		s.threads = append(s.threads, th)
		s.byTID[sp.tid] = th
		if sp.start > 0 {
			s.schedule(th, sp.start)
			continue
		}
		// A thread alive when the trace begins is running then (no SWITCH
		// IN) with the odds of its share of time on CPU, else mid-wait, so
		// that threads do not march in step.
		th.state = genBlocked
		ph := th.ph()
		if s.rng.Float64()*float64(ph.run.mean+ph.block.mean) < float64(ph.run.mean) {
			s.schedule(th, 0)
		} else {
			s.schedule(th, s.rng.Int64N(ph.block.draw(s.rng)))
		}
	}
	for len(s.events) > 0 {
		e := heap.Pop(&s.events).(genEv)
		if e.gen != e.th.gen {
			continue
		}
		switch e.th.state {
		case genUnborn:
			s.born(e.th, e.t)
		case genBlocked:
			s.wake(e.th, e.t)
		case genRunning:
			s.tick(e.th, e.t)
		}
	}
	return s
}

// born: the thread is created (FORK by its leader, or by the parent
// process for a leader) and is runnable at once.
func (s *genSim) born(th *genThread, now int64) {
	s.emit(genRec{kind: genFork, t: now, cpu: th.tid % s.cfg.cpus, th: th})
	s.wake(th, now)
}

// wake makes a blocked thread runnable: on a free CPU, else in the queue.
func (s *genSim) wake(th *genThread, now int64) {
	for th.phase < len(th.phases)-1 && th.ph().until <= now {
		th.phase++
		th.burstLeft = 0
	}
	if now >= th.end {
		th.exiting, th.burstLeft = true, genExitRun
	} else if th.burstLeft <= 0 {
		th.burstLeft = th.ph().run.draw(s.rng)
	}
	th.state = genRunnable
	if len(s.free) == 0 {
		s.queue = append(s.queue, th)
		return
	}
	c := s.free[s.rng.IntN(len(s.free))]
	if !s.cfg.migrate && th.cpu >= 0 && s.freeAt[th.cpu] >= 0 {
		c = th.cpu
	}
	if now > 0 { // at 0 the thread was already running: no SWITCH IN
		s.emit(genRec{kind: genSwitch, t: now, cpu: c, in: th, preempt: true})
	}
	s.put(th, c, now)
}

// put starts th on CPU c (the switch record is the caller's).
func (s *genSim) put(th *genThread, c int, now int64) {
	if i := s.freeAt[c]; i >= 0 {
		last := s.free[len(s.free)-1]
		s.free[i], s.freeAt[last] = last, i
		s.free = s.free[:len(s.free)-1]
		s.freeAt[c] = -1
	}
	s.running[c] = th
	th.state, th.cpu, th.runStart, th.lastAcct, th.sliceEnd = genRunning, c, now, now, now+s.cfg.slice
	s.reschedule(th)
}

// reschedule: a running thread's next decision is the first of its burst
// end, its phase end, its slice end and its own end.
func (s *genSim) reschedule(th *genThread) {
	t := min(th.lastAcct+th.burstLeft, th.sliceEnd)
	if th.phase < len(th.phases)-1 {
		t = min(t, th.ph().until)
	}
	if !th.exiting {
		t = min(t, th.end)
	}
	s.schedule(th, max(t, th.lastAcct))
}

// account charges the CPU time since the last decision and emits the
// samples due in it: one each time the thread's CPU time crosses a period.
func (s *genSim) account(th *genThread, now int64) {
	d := now - th.lastAcct
	for t := th.lastAcct + genPeriod - th.accum; t < now; t += genPeriod {
		s.emit(genRec{kind: genSample, t: t, cpu: th.cpu, th: th, fn: th.ph().fn})
		th.samples++
		th.accum -= genPeriod
	}
	th.accum += d
	th.cpuTime += d
	th.burstLeft -= d
	th.lastAcct = now
}

func (s *genSim) tick(th *genThread, now int64) {
	s.account(th, now)
	switch {
	case th.exiting && th.burstLeft <= 0 || !th.exiting && now >= th.end:
		s.emit(genRec{kind: genExit, t: now, cpu: th.cpu, th: th})
		th.state = genExited
		s.release(th, now, false, true)
	case th.phase < len(th.phases)-1 && th.ph().until <= now:
		th.phase++
		th.burstLeft = th.ph().run.draw(s.rng)
		s.reschedule(th)
	case th.burstLeft <= 0:
		th.state = genBlocked
		wake := min(now+th.ph().block.draw(s.rng), th.end)
		s.release(th, now, false, false)
		s.schedule(th, max(wake, now+1))
	case now >= th.sliceEnd && len(s.queue) > 0:
		th.state = genRunnable
		s.release(th, now, true, false)
		s.queue = append(s.queue, th)
	default:
		if now >= th.sliceEnd {
			th.sliceEnd = now + s.cfg.slice
		}
		s.reschedule(th)
	}
}

// release takes th off its CPU and gives the CPU to the first waiting
// thread, or leaves it idle; one switch record says both.
func (s *genSim) release(th *genThread, now int64, preempt, exit bool) {
	c := th.cpu
	th.intervals = append(th.intervals, [2]int64{th.runStart, now})
	th.ivCPU = append(th.ivCPU, c)
	s.running[c] = nil
	var next *genThread
	if len(s.queue) > 0 {
		next, s.queue = s.queue[0], s.queue[1:]
	}
	s.emit(genRec{kind: genSwitch, t: now, cpu: c, th: th, in: next, preempt: preempt, exit: exit})
	if next != nil {
		s.put(next, c, now)
		return
	}
	s.freeAt[c] = len(s.free)
	s.free = append(s.free, c)
}

// ---- truth ----

// genTruth is what a perfect parallelism model gets from the samples.
type genTruth struct {
	scope  string             // "process" or "workload"
	wall   float64            // ns
	byFn   map[string]float64 // leaf function -> wall ns
	byProc map[string]float64 // "comm-PID" -> wall ns
	group  map[string]float64 // scope group -> wall ns
	onCPU  map[string]int64   // scope group -> time with ≥1 thread on CPU
	nth    map[string]int     // scope group -> threads
	span   int64
	// printed: scope group -> wall from the records as printed, for a
	// skewed style (asPrinted); nil otherwise.
	printed map[string]float64
}

func genProcKey(th *genThread) string { return fmt.Sprintf("%s-%d", th.comm, th.pid) }

func (tr genTruth) groupOf(th *genThread) string {
	if tr.scope == "workload" {
		return "workload"
	}
	return genProcKey(th)
}

// asPrinted is each scope group's wall as a perfect model gets it from
// the records as st prints them: every time skewed by its CPU's clock.
// Only an estimate of each CPU's offset could do better; with no skew it
// is the truth's group wall.
func (s *genSim) asPrinted(tr genTruth, st genStyle) map[string]float64 {
	skew := s.skews(st, rand.New(rand.NewPCG(st.seed, 7)))
	steps, _ := s.groupSteps(tr, skew)
	wall := map[string]float64{}
	for _, r := range s.recs {
		if r.kind == genSample {
			g := tr.groupOf(r.th)
			wall[g] += float64(genPeriod) / float64(max(1, steps[g].at(r.t+skew[r.cpu])))
		}
	}
	return wall
}

// groupSteps is each scope group's threads on CPU (genStepsOf, with
// skew), and its number of threads.
func (s *genSim) groupSteps(tr genTruth, skew []int64) (map[string]genSteps, map[string]int) {
	members := map[string][]*genThread{}
	for _, th := range s.threads {
		g := tr.groupOf(th)
		members[g] = append(members[g], th)
	}
	steps, nth := map[string]genSteps{}, map[string]int{}
	for g, ths := range members {
		steps[g], nth[g] = genStepsOf(ths, skew), len(ths)
	}
	return steps, nth
}

// genSteps is a group's number of threads on CPU as a step function.
type genSteps struct {
	t []int64
	n []int // running threads from t[i] until t[i+1]
}

// genStepsOf counts ths on CPU, each interval shifted by its CPU's skew
// (nil: none).
func genStepsOf(ths []*genThread, skew []int64) genSteps {
	type d struct {
		t int64
		v int
	}
	var ds []d
	for _, th := range ths {
		for i, iv := range th.intervals {
			var k int64
			if skew != nil {
				k = skew[th.ivCPU[i]]
			}
			ds = append(ds, d{iv[0] + k, 1}, d{iv[1] + k, -1})
		}
	}
	// Ends before starts at the same instant: [start, end) intervals.
	sort.Slice(ds, func(i, j int) bool { return ds[i].t < ds[j].t || ds[i].t == ds[j].t && ds[i].v < ds[j].v })
	var st genSteps
	n := 0
	for _, x := range ds {
		n += x.v
		if k := len(st.t); k > 0 && st.t[k-1] == x.t {
			st.n[k-1] = n
		} else {
			st.t, st.n = append(st.t, x.t), append(st.n, n)
		}
	}
	return st
}

func (st genSteps) at(t int64) int {
	i := sort.Search(len(st.t), func(i int) bool { return st.t[i] > t }) - 1
	if i < 0 {
		return 0
	}
	return st.n[i]
}

func (st genSteps) busy() (d int64) {
	for i := 0; i+1 < len(st.t); i++ {
		if st.n[i] > 0 {
			d += st.t[i+1] - st.t[i]
		}
	}
	return d
}

// truth sets each sample's parallelism in scope ("process" or "workload")
// and sums the weights.
func (s *genSim) truth(scope string) genTruth {
	tr := genTruth{scope: scope, byFn: map[string]float64{}, byProc: map[string]float64{},
		group: map[string]float64{}, onCPU: map[string]int64{}, nth: map[string]int{}}
	steps, nth := s.groupSteps(tr, nil)
	for g, st := range steps {
		tr.onCPU[g], tr.nth[g] = st.busy(), nth[g]
	}
	for i := range s.recs {
		r := &s.recs[i]
		tr.span = max(tr.span, r.t)
		if r.kind != genSample {
			continue
		}
		g := tr.groupOf(r.th)
		r.par = steps[g].at(r.t)
		w := float64(genPeriod) / float64(r.par)
		tr.wall += w
		tr.byFn[r.fn] += w
		tr.byProc[genProcKey(r.th)] += w
		tr.group[g] += w
	}
	return tr
}

// ---- perf script text ----

// genStyle says how perf recorded and printed the run.
type genStyle struct {
	systemWide bool    // perf record -a: [CPU] column, CPU-wide switches, swapper
	switches   bool    // --switch-events
	taskEvents bool    // --show-task-events (FORK, EXIT, COMM)
	pidCol     bool    // -F +pid: pid/tid, else the tid alone
	skew       int64   // each CPU's clock off by a fixed amount in ±skew ns
	loss       genLoss // per-CPU loss windows, printed with --show-lost-events
	seed       uint64
}

// genLoss places each CPU's loss window.
type genLoss uint8

const (
	genNoLoss       genLoss = iota
	genLossAtRecord         // from a record of the CPU picked at random
	genLossAtSample         // from a sample of the CPU picked at random
)

func (st genStyle) scope() string {
	if st.systemWide {
		return "process"
	}
	return "workload"
}

// genWrite prints the run as perf script does: records sorted by their
// printed (skewed) time, those of a CPU's loss window left out and
// replaced by one PERF_RECORD_LOST at its end.
func (s *genSim) genWrite(st genStyle) []byte {
	r := rand.New(rand.NewPCG(st.seed, 7))
	n := s.cfg.cpus
	skew, lossFrom, lossTo := s.skews(st, r), make([]int64, n), make([]int64, n)
	for c := range lossFrom {
		lossFrom[c], lossTo[c] = -1, -1
	}
	if st.loss != genNoLoss {
		// A ring overflows where records flow: each CPU that has samples
		// loses 5-50 ms once, from the first record the full ring has no
		// room for, a record picked at random with odds by its size in the
		// ring; or (genLossAtSample) from one of its samples: the worst
		// case for a thread that runs rarely, whose one sample in a long
		// while is then always lost.
		seen, sampled := make([]int64, n), make([]bool, n)
		for _, rec := range s.recs {
			if rec.kind == genSample {
				sampled[rec.cpu] = true
			}
			if st.loss == genLossAtSample && rec.kind != genSample {
				continue
			}
			size := genRecordSize(rec, st)
			if seen[rec.cpu] += size; size > 0 && r.Int64N(seen[rec.cpu]) < size {
				lossFrom[rec.cpu] = rec.t + skew[rec.cpu]
			}
		}
		for c := range lossFrom {
			if !sampled[c] {
				lossFrom[c] = -1
			}
		}
		end := s.recs[len(s.recs)-1].t // recording stops: no loss after it
		for c := range lossTo {
			if lossFrom[c] >= 0 {
				lossTo[c] = min(lossFrom[c]+5*genMs+r.Int64N(45*genMs), end)
			}
		}
	}
	type key struct{ t, seq int64 }
	var order []key // printed time, and -1-CPU for a CPU's LOST record
	lost := make([]int, n)
	owner := make([]*genThread, n) // on the CPU when its loss ends (switches come in time order)
	var scratch []byte
	for i, rec := range s.recs {
		pt := rec.t + skew[rec.cpu]
		if rec.kind == genSwitch && pt <= lossTo[rec.cpu] {
			owner[rec.cpu] = rec.in
		}
		if pt >= lossFrom[rec.cpu] && pt < lossTo[rec.cpu] {
			// PERF_RECORD_LOST counts records: a sample is one (its
			// callchain lines included), a CPU-wide switch two (out, in).
			if rec.kind == genSample {
				lost[rec.cpu]++
			} else if scratch = s.appendRec(scratch[:0], rec, st, pt); len(scratch) > 0 {
				lost[rec.cpu] += bytes.Count(scratch, []byte("\n"))
			}
			continue
		}
		order = append(order, key{pt, int64(i)})
	}
	for c := range lost {
		if lost[c] > 0 {
			order = append(order, key{lossTo[c], -1 - int64(c)})
		}
	}
	sort.Slice(order, func(i, j int) bool {
		return order[i].t < order[j].t || order[i].t == order[j].t && order[i].seq < order[j].seq
	})
	b := make([]byte, 0, 256*len(order)) // about a sample or a CPU-wide switch
	if st.taskEvents {
		b = s.synthesized(b, st)
	}
	for _, k := range order {
		if k.seq < 0 { // perf prints a LOST with the prefix of the task then on that CPU
			c := int(-1 - k.seq)
			b = s.prefix(b, st, owner[c], c, k.t)
			b = append(b, "PERF_RECORD_LOST lost "...)
			b = append(strconv.AppendInt(b, int64(lost[c]), 10), '\n')
			continue
		}
		b = s.appendRec(b, s.recs[k.seq], st, k.t)
	}
	return b
}

// genRecordSize is the bytes rec takes in the ring buffer as st records
// it (perf's record header, fields and sample_id), 0 if not recorded: a
// sample with its 2-frame callchain 80, a CPU-wide switch's out and in
// records 40 each, a FORK or EXIT 56.
func genRecordSize(rec genRec, st genStyle) int64 {
	switch {
	case rec.kind == genSample:
		return 80
	case rec.kind == genSwitch && st.switches:
		return 80
	case (rec.kind == genFork || rec.kind == genExit) && st.taskEvents:
		return 56
	}
	return 0
}

// skews draws each CPU's clock offset from r (genWrite's first draws).
func (s *genSim) skews(st genStyle, r *rand.Rand) []int64 {
	skew := make([]int64, s.cfg.cpus)
	for c := range skew {
		if st.skew > 0 {
			skew[c] = r.Int64N(2*st.skew+1) - st.skew
		}
	}
	return skew
}

// genPad appends v right-aligned in width (left-aligned if width < 0).
func genPad(b []byte, v int64, width int) []byte {
	d := strconv.AppendInt(nil, v, 10)
	for i := len(d); i < width; i++ {
		b = append(b, ' ')
	}
	b = append(b, d...)
	for i := len(d); i < -width; i++ {
		b = append(b, ' ')
	}
	return b
}

// prefix appends "COMM PID/TID [CPU] SEC.USEC: " in the style's columns;
// t < 0 gives perf's synthesized 0.000000 (th nil = swapper).
func (s *genSim) prefix(b []byte, st genStyle, th *genThread, cpu int, t int64) []byte {
	comm, pid, tid := "swapper", 0, 0
	if th != nil {
		comm, pid, tid = th.comm, th.pid, th.tid
	}
	b = append(b, comm...)
	b = append(b, ' ')
	if st.pidCol {
		b = append(genPad(b, int64(pid), 6), '/')
		b = genPad(b, int64(tid), -6)
	} else {
		b = genPad(b, int64(tid), 6)
	}
	if st.systemWide {
		b = append(b, " ["...)
		b = append(genPad(b, int64(cpu)/100, 0), byte('0'+cpu/10%10), byte('0'+cpu%10), ']')
	}
	var us int64
	if t >= 0 {
		us = (genBase + t) / 1000
	}
	b = append(genPad(append(b, ' '), us/1e6, 5), '.')
	b = append(b, strconv.FormatInt(1e6+us%1e6, 10)[1:]...)
	return append(b, ": "...)
}

func genPidTid(b []byte, th *genThread) []byte {
	pid, tid := 0, 0
	if th != nil {
		pid, tid = th.pid, th.tid
	}
	return genPad(append(genPad(b, int64(pid), 5), '/'), int64(tid), -5)
}

// parentOf is the pid and tid a FORK or EXIT names as the parent.
func (s *genSim) parentOf(th *genThread) (int, int) {
	if th.leader() {
		p := s.cfg.parent[th.pid]
		return p, p
	}
	return th.pid, th.pid
}

// appendRec appends the lines of one record in the style, at printed time
// t (none: the style does not print it).
func (s *genSim) appendRec(b []byte, rec genRec, st genStyle, t int64) []byte {
	p := func(b []byte, th *genThread) []byte { return s.prefix(b, st, th, rec.cpu, t) }
	switch rec.kind {
	case genSample:
		root := "start_thread+0x93 (/usr/lib/x86_64-linux-gnu/libc.so.6)"
		if rec.th.leader() {
			root = "main+0x2b (/usr/bin/" + rec.th.comm + ")"
		}
		b = append(genPad(p(b, rec.th), genPeriod, 10), " cpu-clock: \n\t          4011c0 "...)
		b = append(append(append(append(b, rec.fn...), "+0x1c (/usr/bin/"...), rec.th.comm...), ")\n"...)
		return append(append(append(b, "\t          401a00 "...), root...), "\n\n"...)
	case genFork:
		if !st.taskEvents {
			return b
		}
		ppid, ptid := s.parentOf(rec.th)
		b = append(p(b, s.byTID[ptid]), fmt.Sprintf("PERF_RECORD_FORK(%d:%d):(%d:%d)\n", rec.th.pid, rec.th.tid, ppid, ptid)...)
		if rec.th.leader() {
			b = append(p(b, rec.th), fmt.Sprintf("PERF_RECORD_COMM exec: %s:%d/%d\n", rec.th.comm, rec.th.pid, rec.th.tid)...)
		}
		return b
	case genExit:
		if !st.taskEvents {
			return b
		}
		ppid, ptid := s.parentOf(rec.th)
		return append(p(b, rec.th), fmt.Sprintf("PERF_RECORD_EXIT(%d:%d):(%d:%d)\n", rec.th.pid, rec.th.tid, ppid, ptid)...)
	}
	// A switch.
	if !st.switches {
		return b
	}
	if !st.systemWide { // per-task: only traced threads, and no record for an exit
		if rec.th != nil && !rec.exit {
			how := "PERF_RECORD_SWITCH OUT        \n"
			if rec.preempt {
				how = "PERF_RECORD_SWITCH OUT preempt\n"
			}
			b = append(p(b, rec.th), how...)
		}
		if rec.in != nil {
			b = append(p(b, rec.in), "PERF_RECORD_SWITCH IN         \n"...)
		}
		return b
	}
	how := "PERF_RECORD_SWITCH_CPU_WIDE OUT          next pid/tid: "
	if rec.preempt || rec.th == nil { // the idle task is always preempted
		how = "PERF_RECORD_SWITCH_CPU_WIDE OUT preempt  next pid/tid: "
	}
	b = append(genPidTid(append(p(b, rec.th), how...), rec.in), " \n"...)
	b = append(p(b, rec.in), "PERF_RECORD_SWITCH_CPU_WIDE IN           prev pid/tid: "...)
	return append(genPidTid(b, rec.th), " \n"...)
}

// synthesized: the FORK and COMM records perf writes at 0.000000 for the
// threads alive when recording began.
func (s *genSim) synthesized(b []byte, st genStyle) []byte {
	for _, th := range s.threads {
		if th.start == 0 {
			ppid, ptid := s.parentOf(th)
			b = append(s.prefix(b, st, nil, 0, -1), fmt.Sprintf("PERF_RECORD_FORK(%d:%d):(%d:%d)\n", th.pid, th.tid, ppid, ptid)...)
			b = append(s.prefix(b, st, nil, 0, -1), fmt.Sprintf("PERF_RECORD_COMM: %s:%d/%d\n", th.comm, th.pid, th.tid)...)
		}
	}
	return b
}

// genFile writes text to a temporary file.
func genFile(t testing.TB, text []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "gen.txt")
	if err := os.WriteFile(p, text, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// ---- workloads ----

const genMs = int64(1e6)

func (c *genConfig) add(comm string, pid, tid int, start, end int64, phases ...genPhase) {
	c.threads = append(c.threads, genThreadSpec{comm: comm, pid: pid, tid: tid, start: start, end: end, phases: phases})
}

func genNew(name string, cpus int, span int64, seed uint64) genConfig {
	return genConfig{name: name, cpus: cpus, span: span, slice: 3 * genMs, seed: seed, parent: map[int]int{}}
}

var genCPUBound = genDist{mean: genForever}

// genLockContention: lockd's main thread runs serial_setup alone for 0.3 s,
// 32 workers then contend for a lock (0.3 ms on, 0.7 ms off: parallelism
// ≈ 9.6) until 1.5 s, and the main thread runs serial_merge alone to 1.65 s.
func genLockContention(cpus int, seed uint64) genConfig {
	c := genNew("lock", cpus, 1650*genMs, seed)
	c.parent[1000] = 1
	c.add("lockd", 1000, 1000, 0, c.span,
		genPhase{fn: "serial_setup", until: 300 * genMs, run: genCPUBound},
		genPhase{fn: "join", until: 1500 * genMs, run: genDist{10_000, 0}, block: genDist{1200 * genMs, 0}},
		genPhase{fn: "serial_merge", run: genCPUBound})
	for i := 1; i <= 32; i++ {
		c.add("lockd", 1000, 1000+i, 300*genMs, 1500*genMs,
			genPhase{fn: "contend_lock", run: genDist{3 * genMs / 10, 0.5}, block: genDist{7 * genMs / 10, 0.5}})
	}
	return c
}

// genIdlePool: one thread of pool busy all along (it yields for 0.05 ms
// every 150-450 ms, so that a switch record can name its pid) beside 128
// workers that run 0.05 ms every ~20 ms.
func genIdlePool(cpus int, seed uint64) genConfig {
	c := genNew("pool", cpus, 1500*genMs, seed)
	c.parent[2000] = 1
	c.add("pool", 2000, 2000, 0, c.span, genPhase{fn: "busy_loop", run: genDist{300 * genMs, 0.5}, block: genDist{genMs / 20, 0}})
	for i := 1; i <= 128; i++ {
		c.add("pool", 2000, 2000+i, 0, c.span,
			genPhase{fn: "handle_request", run: genDist{genMs / 20, 0.2}, block: genDist{20 * genMs, 0.5}})
	}
	return c
}

// genShortProcs: a build. make forks processes of 1-3 threads that live
// 5-50 ms (mostly on CPU), about 0.9 of the CPUs' worth at a time, so the
// machine is sometimes full (waits, preemptions).
func genShortProcs(cpus int, seed uint64) genConfig {
	c := genNew("build", cpus, 1500*genMs, seed)
	r := rand.New(rand.NewPCG(seed, 1))
	c.parent[3000] = 1
	c.add("make", 3000, 3000, 0, c.span,
		genPhase{fn: "make_schedule", run: genDist{genMs / 10, 0.5}, block: genDist{5 * genMs, 0.5}})
	rate := 0.9 * float64(cpus) / (0.0275 * 2 * 0.87) // processes per second
	pid := 3001
	for t := int64(0); ; pid += 4 {
		t += int64(r.ExpFloat64() / rate * 1e9)
		if t > c.span-55*genMs {
			break
		}
		life := 5*genMs + r.Int64N(45*genMs)
		comm := []string{"cc1", "as", "ld"}[r.IntN(3)]
		c.parent[pid] = 3000
		for k := 0; k < 1+r.IntN(3); k++ {
			start, end := t, t+life
			if k > 0 { // threads start after their leader and end before it
				start, end = t+genMs/5, t+life-genMs/5
			}
			c.add(comm, pid, pid+k, start, end,
				genPhase{fn: comm + "_parse", until: t + life/3, run: genDist{2 * genMs, 0.5}, block: genDist{3 * genMs / 10, 0.5}},
				genPhase{fn: comm + "_emit", run: genDist{2 * genMs, 0.5}, block: genDist{3 * genMs / 10, 0.5}})
		}
	}
	return c
}

// genMigrations: three enc processes of 3/8 of the CPUs' count of threads
// each, woken on a random free CPU, so they move between CPUs at almost
// every wake. Until 0.75 s two of them run motion_search: 0.1-1.9 ms
// bursts, blocking 2-38 µs (a lock handed over), with CPUs free, so a
// thread often leaves one CPU and runs on another within the ±10 µs of a
// clock skew. Then the third starts and all run entropy_code (0.2-3.8 ms
// on, 0.04-0.76 ms off) on a full machine: waits and preemptions. Three
// threads of the first start with a long CPU-bound encode_frame (0.16-0.72
// s) that nothing preempts, so without pids and task events a switch
// record names their pid only that late.
func genMigrations(cpus int, seed uint64) genConfig {
	c := genNew("migrate", cpus, 1500*genMs, seed)
	c.migrate, c.slice = true, 3*genMs/2
	r := rand.New(rand.NewPCG(seed, 2))
	for p := 0; p < 3; p++ {
		pid, start := 4000+p*1000, int64(0)
		if p == 2 {
			start = 750 * genMs
		}
		c.parent[pid] = 1
		for i := 0; i < cpus*3/8; i++ {
			var ph []genPhase
			if p == 0 && i < 3 {
				ph = append(ph, genPhase{fn: "encode_frame", until: 160*genMs + r.Int64N(560*genMs), run: genCPUBound})
			}
			ph = append(ph,
				genPhase{fn: "motion_search", until: 750 * genMs, run: genDist{genMs, 0.9}, block: genDist{20_000, 0.9}},
				genPhase{fn: "entropy_code", run: genDist{2 * genMs, 0.9}, block: genDist{4 * genMs / 10, 0.9}})
			c.add("enc", pid, pid+i, start, c.span, ph...)
		}
	}
	return c
}
