package gentrace

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
)

// Style says how perf recorded and printed the run.
type Style struct {
	SystemWide bool  // perf record -a: [CPU] column, CPU-wide switches, swapper
	Switches   bool  // --switch-events
	TaskEvents bool  // --show-task-events (FORK, EXIT, COMM)
	PIDCol     bool  // -F +pid: pid/tid, else the tid alone
	Skew       int64 // each CPU's clock off by a fixed amount in ±Skew ns
	Loss       Loss  // per-CPU loss windows, printed with --show-lost-events
	Seed       uint64
}

// Loss places each CPU's loss window.
type Loss uint8

const (
	NoLoss       Loss = iota
	LossAtRecord      // from a record of the CPU picked at random
	LossAtSample      // from a sample of the CPU picked at random
)

// Scope is the parallelism scope a style's recording supports: a
// system-wide recording sees each process whole, a per-task one only the
// traced workload.
func (st Style) Scope() string {
	if st.SystemWide {
		return ScopeProcess
	}
	return ScopeWorkload
}

// Text prints the run as perf script does: records sorted by their
// printed (skewed) time, those of a CPU's loss window left out and
// replaced by one PERF_RECORD_LOST at its end.
func (s *Sim) Text(st Style) []byte {
	r := rand.New(rand.NewPCG(st.Seed, 7))
	skew := s.skews(st, r)
	lossFrom, lossTo := s.lossWindows(st, r, skew)
	type key struct{ t, seq int64 }
	var order []key // printed time, and -1-CPU for a CPU's LOST record
	n := s.Cfg.CPUs
	lost := make([]int, n)
	owner := make([]*Thread, n) // on the CPU when its loss ends (switches come in time order)
	var scratch []byte
	for i, rec := range s.Recs {
		pt := rec.Time + skew[rec.CPU]
		if rec.Kind == Switch && pt <= lossTo[rec.CPU] {
			owner[rec.CPU] = rec.In
		}
		if pt >= lossFrom[rec.CPU] && pt < lossTo[rec.CPU] {
			// PERF_RECORD_LOST counts records: a sample is one (its
			// callchain lines included), a CPU-wide switch two (out, in).
			if rec.Kind == Sample {
				lost[rec.CPU]++
			} else if scratch = s.appendRec(scratch[:0], rec, st, pt); len(scratch) > 0 {
				lost[rec.CPU] += bytes.Count(scratch, []byte("\n"))
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
	if st.TaskEvents {
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
		b = s.appendRec(b, s.Recs[k.seq], st, k.t)
	}
	return b
}

// lossWindows is each CPU's loss window [from, to) in printed time, -1
// for none, drawn from r after the skews.
func (s *Sim) lossWindows(st Style, r *rand.Rand, skew []int64) (from, to []int64) {
	n := s.Cfg.CPUs
	from, to = make([]int64, n), make([]int64, n)
	for c := range from {
		from[c], to[c] = -1, -1
	}
	if st.Loss == NoLoss {
		return from, to
	}
	// A ring overflows where records flow: each CPU that has samples loses
	// 5-50 ms once, from the first record the full ring has no room for, a
	// record picked at random with odds by its size in the ring; or
	// (LossAtSample) from one of its samples: the worst case for a thread
	// that runs rarely, whose one sample in a long while is then always
	// lost.
	seen, sampled := make([]int64, n), make([]bool, n)
	for _, rec := range s.Recs {
		if rec.Kind == Sample {
			sampled[rec.CPU] = true
		}
		if st.Loss == LossAtSample && rec.Kind != Sample {
			continue
		}
		size := recordSize(rec, st)
		if seen[rec.CPU] += size; size > 0 && r.Int64N(seen[rec.CPU]) < size {
			from[rec.CPU] = rec.Time + skew[rec.CPU]
		}
	}
	for c := range from {
		if !sampled[c] {
			from[c] = -1
		}
	}
	end := s.Recs[len(s.Recs)-1].Time // recording stops: no loss after it
	for c := range to {
		if from[c] >= 0 {
			to[c] = min(from[c]+5*Ms+r.Int64N(45*Ms), end)
		}
	}
	return from, to
}

// recordSize is the bytes rec takes in the ring buffer as st records it
// (perf's record header, fields and sample_id), 0 if not recorded: a
// sample with its 2-frame callchain 80, a CPU-wide switch's out and in
// records 40 each, a FORK or EXIT 56.
func recordSize(rec Rec, st Style) int64 {
	switch {
	case rec.Kind == Sample:
		return 80
	case rec.Kind == Switch && st.Switches:
		return 80
	case (rec.Kind == Fork || rec.Kind == Exit) && st.TaskEvents:
		return 56
	}
	return 0
}

// skews draws each CPU's clock offset from r (Text's first draws).
func (s *Sim) skews(st Style, r *rand.Rand) []int64 {
	skew := make([]int64, s.Cfg.CPUs)
	for c := range skew {
		if st.Skew > 0 {
			skew[c] = r.Int64N(2*st.Skew+1) - st.Skew
		}
	}
	return skew
}

// pad appends v right-aligned in width (left-aligned if width < 0).
func pad(b []byte, v int64, width int) []byte {
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
func (s *Sim) prefix(b []byte, st Style, th *Thread, cpu int, t int64) []byte {
	comm, pid, tid := "swapper", 0, 0
	if th != nil {
		comm, pid, tid = th.Comm, th.PID, th.TID
	}
	b = append(b, comm...)
	b = append(b, ' ')
	if st.PIDCol {
		b = append(pad(b, int64(pid), 6), '/')
		b = pad(b, int64(tid), -6)
	} else {
		b = pad(b, int64(tid), 6)
	}
	if st.SystemWide {
		b = append(b, " ["...)
		b = append(pad(b, int64(cpu)/100, 0), byte('0'+cpu/10%10), byte('0'+cpu%10), ']')
	}
	var us int64
	if t >= 0 {
		us = (Base + t) / 1000
	}
	b = append(pad(append(b, ' '), us/1e6, 5), '.')
	b = append(b, strconv.FormatInt(1e6+us%1e6, 10)[1:]...)
	return append(b, ": "...)
}

func pidTid(b []byte, th *Thread) []byte {
	pid, tid := 0, 0
	if th != nil {
		pid, tid = th.PID, th.TID
	}
	return pad(append(pad(b, int64(pid), 5), '/'), int64(tid), -5)
}

// parentOf is the pid and tid a FORK or EXIT names as the parent.
func (s *Sim) parentOf(th *Thread) (int, int) {
	if th.Leader() {
		p := s.Cfg.Parent[th.PID]
		return p, p
	}
	return th.PID, th.PID
}

// appendRec appends the lines of one record in the style, at printed time
// t (none: the style does not print it).
func (s *Sim) appendRec(b []byte, rec Rec, st Style, t int64) []byte {
	p := func(b []byte, th *Thread) []byte { return s.prefix(b, st, th, rec.CPU, t) }
	switch rec.Kind {
	case Sample:
		root := "start_thread+0x93 (/usr/lib/x86_64-linux-gnu/libc.so.6)"
		if rec.Thread.Leader() {
			root = "main+0x2b (/usr/bin/" + rec.Thread.Comm + ")"
		}
		b = append(pad(p(b, rec.Thread), Period, 10), " cpu-clock: \n\t          4011c0 "...)
		b = append(append(append(append(b, rec.Fn...), "+0x1c (/usr/bin/"...), rec.Thread.Comm...), ")\n"...)
		return append(append(append(b, "\t          401a00 "...), root...), "\n\n"...)
	case Fork:
		if !st.TaskEvents {
			return b
		}
		th := rec.Thread
		ppid, ptid := s.parentOf(th)
		b = append(p(b, s.byTID[ptid]), fmt.Sprintf("PERF_RECORD_FORK(%d:%d):(%d:%d)\n", th.PID, th.TID, ppid, ptid)...)
		if th.Leader() {
			b = append(p(b, th), fmt.Sprintf("PERF_RECORD_COMM exec: %s:%d/%d\n", th.Comm, th.PID, th.TID)...)
		}
		return b
	case Exit:
		if !st.TaskEvents {
			return b
		}
		ppid, ptid := s.parentOf(rec.Thread)
		return append(p(b, rec.Thread), fmt.Sprintf("PERF_RECORD_EXIT(%d:%d):(%d:%d)\n", rec.Thread.PID, rec.Thread.TID, ppid, ptid)...)
	}
	if !st.Switches {
		return b
	}
	if !st.SystemWide { // per-task: only traced threads, and no record for an exit
		if rec.Thread != nil && !rec.Exited {
			how := "PERF_RECORD_SWITCH OUT        \n"
			if rec.Preempt {
				how = "PERF_RECORD_SWITCH OUT preempt\n"
			}
			b = append(p(b, rec.Thread), how...)
		}
		if rec.In != nil {
			b = append(p(b, rec.In), "PERF_RECORD_SWITCH IN         \n"...)
		}
		return b
	}
	how := "PERF_RECORD_SWITCH_CPU_WIDE OUT          next pid/tid: "
	if rec.Preempt || rec.Thread == nil { // the idle task is always preempted
		how = "PERF_RECORD_SWITCH_CPU_WIDE OUT preempt  next pid/tid: "
	}
	b = append(pidTid(append(p(b, rec.Thread), how...), rec.In), " \n"...)
	b = append(p(b, rec.In), "PERF_RECORD_SWITCH_CPU_WIDE IN           prev pid/tid: "...)
	return append(pidTid(b, rec.Thread), " \n"...)
}

// synthesized: the FORK and COMM records perf writes at 0.000000 for the
// threads alive when recording began.
func (s *Sim) synthesized(b []byte, st Style) []byte {
	for _, th := range s.Threads {
		if th.Start == 0 {
			ppid, ptid := s.parentOf(th)
			b = append(s.prefix(b, st, nil, 0, -1), fmt.Sprintf("PERF_RECORD_FORK(%d:%d):(%d:%d)\n", th.PID, th.TID, ppid, ptid)...)
			b = append(s.prefix(b, st, nil, 0, -1), fmt.Sprintf("PERF_RECORD_COMM: %s:%d/%d\n", th.Comm, th.PID, th.TID)...)
		}
	}
	return b
}
