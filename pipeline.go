package main

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/wallfold/wallfold/emit"
	"github.com/wallfold/wallfold/parse"
	"github.com/wallfold/wallfold/state"
)

type config struct {
	weightCPU  bool
	scope      string // auto, workload, process
	event      string
	pid, tid   bool
	kernel     bool
	jit        bool
	addrs      bool
	gapPeriods float64 // silence limit in sampling periods (0: default)
	pprof      bool    // build a pprof profile instead of folded totals
}

// silencePeriods is how many sampling periods of silence end a running
// thread: a thread on a CPU is sampled once a period, with some jitter.
const silencePeriods = 3

// pipeline wires parse -> state -> emit for one run.
type pipeline struct {
	cfg     config
	stacks  *emit.Stacks
	totals  emit.Totals
	tracker *state.Tracker
	scope   state.Scope

	event       []byte // the selected event, once known
	otherEvents map[string]int
	root        []byte

	reader *parse.Reader

	prof   *emit.Profile
	refs   [][2]uint32 // pprof mode: Ref -> (stack, comm)
	refID  map[[2]uint32]int
	period int64 // first sample's period

	samples     int
	idle        int
	firstTime   int64
	lastTime    int64
	haveTime    bool
	timeBased   bool
	gapSet      bool
	noGapReason string
}

func newPipeline(cfg config) *pipeline {
	p := &pipeline{
		cfg:         cfg,
		stacks:      emit.NewStacks(emit.NameOptions{Addrs: cfg.addrs, Kernel: cfg.kernel, JIT: cfg.jit}),
		otherEvents: make(map[string]int),
	}
	if cfg.event != "" {
		p.event = []byte(cfg.event)
	}
	if cfg.pprof {
		p.prof = emit.NewProfile(emit.NameOptions{Addrs: cfg.addrs, Kernel: cfg.kernel, JIT: cfg.jit})
		p.refID = make(map[[2]uint32]int)
	}
	return p
}

// isTimeEvent reports events whose period is time in nanoseconds.
func isTimeEvent(ev []byte) bool {
	ev = eventBase(ev)
	return string(ev) == "cpu-clock" || string(ev) == "task-clock"
}

// eventBase strips perf's event modifiers ("cycles:u" -> "cycles",
// "cpu-clock:uhH" -> "cpu-clock") but keeps tracepoint names whole
// ("sched:sched_switch").
func eventBase(ev []byte) []byte {
	i := bytes.LastIndexByte(ev, ':')
	if i < 0 {
		return ev
	}
	for _, c := range ev[i+1:] {
		if bytes.IndexByte([]byte("ukhHGIpPSDWeb"), c) < 0 {
			return ev
		}
	}
	return ev[:i]
}

// eventMatches compares a sample's event with the selected one: exactly
// when the selection names modifiers, else by base name, as inferno does
// ("cycles" matches "cycles:u").
func eventMatches(ev, want []byte) bool {
	if bytes.Equal(ev, want) {
		return true
	}
	return bytes.Equal(eventBase(ev), want)
}

func (p *pipeline) startTracker(rec *parse.Record) {
	switch p.cfg.scope {
	case "process":
		p.scope = state.Process
	case "workload":
		p.scope = state.Workload
	default:
		// System-wide traces print the CPU column; per-task ones do not.
		if rec.CPU >= 0 || rec.Kind == parse.KindSwitchCPUWide {
			p.scope = state.Process
		} else {
			p.scope = state.Workload
		}
	}
	p.tracker = state.New(state.Config{Scope: p.scope, Gap: -1}, p.release)
}

func (p *pipeline) release(s state.Sample, par int) {
	if s.Ref < 0 {
		return // a sample of another event: only a sign of life
	}
	var wall float64
	if par > 0 {
		wall = float64(s.Period) / float64(par)
	}
	if p.prof != nil {
		r := p.refs[s.Ref]
		pid := s.PID
		if pid < 0 {
			if known, ok := p.tracker.PIDOf(s.TID); ok {
				pid = known
			} else if s.TID == 0 {
				pid = 0
			}
		}
		p.prof.Add(r[0], r[1], pid, s.TID, par, s.Period, wall)
		return
	}
	p.totals.Add(uint32(s.Ref), s.Period, wall)
}

// read consumes the whole input.
func (p *pipeline) read(in io.Reader, name string) error {
	r := parse.NewReader(in, name)
	p.reader = r
	for r.Scan() {
		rec := r.Record()
		if p.tracker == nil {
			p.startTracker(rec)
		}
		if rec.HasTime && rec.Time > 0 {
			// perf stamps synthesized records before the trace 0.000000.
			if !p.haveTime {
				p.firstTime, p.haveTime = rec.Time, true
			}
			p.lastTime = rec.Time
		}
		switch rec.Kind {
		case parse.KindSample:
			p.sample(rec)
		case parse.KindSwitch:
			p.tracker.Switch(rec.Time, rec.PID, rec.TID, rec.CPU, rec.Out)
		case parse.KindSwitchCPUWide:
			p.tracker.SwitchCPUWide(rec.Time, rec.PID, rec.TID, rec.CPU, rec.Out, rec.OtherPID, rec.OtherTID)
		case parse.KindFork:
			p.tracker.Fork(rec.Time, rec.OtherPID, rec.OtherTID)
		case parse.KindExit:
			p.tracker.Exit(rec.Time, rec.OtherPID, rec.OtherTID)
		case parse.KindComm:
			p.tracker.Comm(rec.Time, rec.OtherPID, rec.OtherTID)
		case parse.KindLost:
			p.tracker.Lost(rec.Time, rec.Lost)
		default:
			if rec.HasTime {
				p.tracker.Tick(rec.Time)
			}
		}
	}
	if p.tracker != nil {
		p.tracker.Flush()
	}
	return r.Err()
}

func (p *pipeline) sample(rec *parse.Record) {
	if p.event == nil {
		p.event = append([]byte(nil), eventBase(rec.Event)...)
	}
	s := state.Sample{Time: rec.Time, PID: rec.PID, TID: rec.TID, CPU: rec.CPU, Period: rec.Period, Ref: -1}
	if !eventMatches(rec.Event, p.event) {
		p.otherEvents[string(rec.Event)]++
		p.tracker.Sample(s)
		return
	}
	if !p.gapSet {
		p.gapSet = true
		p.timeBased = isTimeEvent(rec.Event)
		gap := int64(0)
		switch {
		case !p.timeBased:
			p.noGapReason = fmt.Sprintf("event %s is not time-based", rec.Event)
		case !rec.HasPeriod || !rec.HasTime:
			p.noGapReason = "samples carry no period or time"
		default:
			k := p.cfg.gapPeriods
			if k == 0 {
				k = silencePeriods
			}
			gap = int64(k * float64(rec.Period))
		}
		p.tracker.SetGap(gap)
		p.period = int64(rec.Period)
	}
	p.samples++
	if rec.TID == 0 {
		p.idle++
	}
	java := string(rec.Comm) == "java"
	if p.prof != nil {
		k := [2]uint32{p.prof.Stack(rec.Frames, java), p.prof.Comm(rec.Comm)}
		ref, ok := p.refID[k]
		if !ok {
			ref = len(p.refs)
			p.refs = append(p.refs, k)
			p.refID[k] = ref
		}
		s.Ref = ref
		p.tracker.Sample(s)
		return
	}
	p.root = commRoot(p.root, rec.Comm, rec.PID, rec.TID, p.cfg.pid, p.cfg.tid)
	rootID := p.stacks.InternName(p.root)
	s.Ref = int(p.stacks.Intern(rootID, rec.Frames, java))
	p.tracker.Sample(s)
}

// warnings returns the run's warnings, one line each.
func (p *pipeline) warnings() []string {
	var ws []string
	r := p.reader
	if n := r.Skipped(); n > 0 {
		var b strings.Builder
		fmt.Fprintf(&b, "skipped %d unparseable line(s) (and the samples they were part of):", n)
		for _, e := range r.Errors() {
			fmt.Fprintf(&b, "\n  %s: %q", e.Error(), e.Text)
		}
		ws = append(ws, b.String())
	}
	if len(p.otherEvents) > 0 {
		names := make([]string, 0, len(p.otherEvents))
		for ev, n := range p.otherEvents {
			names = append(names, fmt.Sprintf("%s (%d samples)", ev, n))
		}
		sort.Strings(names)
		ws = append(ws, fmt.Sprintf("using event %s; skipped other events: %s (choose with --event)", p.event, strings.Join(names, ", ")))
	}
	if p.tracker == nil {
		return ws
	}
	st := p.tracker.Stats()
	if p.samples > 0 && st.Switches == 0 {
		ws = append(ws, "no PERF_RECORD_SWITCH records: parallelism is only estimated from sample density; record with `perf record --switch-events` and convert with `perf script --show-switch-events`")
	} else if p.samples > 0 && st.TaskEvents == 0 && p.timeBased {
		ws = append(ws, "no task events (PERF_RECORD_EXIT/FORK/COMM): thread exits were inferred from silence; add --show-task-events to perf script for exact ends")
	}
	if st.LostEvents > 0 {
		ws = append(ws, fmt.Sprintf("%d PERF_RECORD_LOST record(s): %d records lost, first at %.6f s; parallelism around them is inferred from silence", st.LostEvents, st.Lost, float64(st.FirstLostAt)/1e9))
	}
	if p.noGapReason != "" && st.Switches > 0 && st.TaskEvents == 0 {
		ws = append(ws, fmt.Sprintf("%s and there are no task events: threads that exit without a record are counted as running until the end", p.noGapReason))
	}
	return ws
}

func (p *pipeline) writeFolded(w io.Writer) error {
	weight := emit.Wall
	if p.cfg.weightCPU {
		weight = emit.CPU
	}
	return emit.WriteFolded(w, p.stacks, &p.totals, weight)
}

func (p *pipeline) writePprof(w io.Writer, warnings []string) error {
	meta := emit.Meta{
		Event:      string(p.event),
		TimeBased:  p.timeBased,
		Period:     p.period,
		StartNanos: p.firstTime,
		EndNanos:   p.lastTime,
	}
	meta.Comments = append(meta.Comments, "wallfold "+version, "scope: "+p.scope.String())
	for _, w := range warnings {
		meta.Comments = append(meta.Comments, "warning: "+w)
	}
	return emit.WritePprof(w, p.prof.Build(meta))
}
