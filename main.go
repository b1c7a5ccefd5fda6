// Command wallfold turns `perf script` text into wall-clock profiles:
// each sample's weight is divided by the number of threads that were
// running at that moment, so the weights add up to the time a user waits.
//
// main only wires: parse reads the records, state gives each sample its
// parallelism, emit filters and writes the outputs.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/alecthomas/kong"
	"github.com/wallfold/wallfold/emit"
	"github.com/wallfold/wallfold/parse"
	"github.com/wallfold/wallfold/state"
)

var version = "0.1.0"

const description = `Wall-clock flame graphs from perf: reweights each sample by 1/parallelism.

One command (perf record, then perf script into wallfold; wall.svg here):

  wallfold record -- make -j8
  wallfold record -a -o wall.pb.gz -- make -j8    # system-wide: the build's tree

(wallfold record --help for its flags.) Or record and convert yourself:

  perf record -e cpu-clock -F 999 -g --switch-events -- make -j8
  perf script --show-switch-events --show-task-events --show-lost-events > trace.txt
  wallfold -f svg -o wall.svg trace.txt     # a flame graph coloured by parallelism
  wallfold -f top trace.txt                 # functions by wall time beside CPU time

--switch-events (record) and --show-switch-events (script) let wallfold see
which threads are on a CPU; --show-task-events adds thread exits (without it,
exits are inferred from silence); --show-lost-events shows where a ring buffer
overflowed, and threads are bridged through the loss. System-wide traces
(perf record -a) work too; each process then gets its own parallelism
(--scope=process), or --tree=make makes a process and its descendants one
group. Where CPUs' clocks disagree (some VMs), record with perf record -k mono.

The whole wait, with the time when nothing runs (sleep, I/O, locks, a busy
machine) under [blocked] and [runnable] at the stack that went off CPU:

  perf record -e cpu-clock -e sched:sched_switch -F 999 -g --switch-events -- ./job
  perf script --show-switch-events --show-task-events | wallfold --off-cpu > wall.folded

Outputs: folded stacks "root;...;leaf WEIGHT" (sorted, integer weights: with
--weight=wall, the default, in the event's period units, nanoseconds for
cpu-clock; with --weight=cpu the plain CPU profile); -f pprof -o wall.pb.gz
for go tool pprof, Pyroscope, Parca (sample types cpu and wall, string labels
comm, parallelism, state; Unix times); -f summary (or --summary on stderr) for
the parallelism story: average parallelism, a histogram, the serial hot spots;
-f top for a table of functions; -f svg for a flame graph to open in a browser;
-f trace for the timeline (Perfetto UI, chrome://tracing, speedscope).`

// CLI is wallfold's command line.
type CLI struct {
	Input   string      `arg:"" optional:"" default:"-" help:"perf script text to read (- or none: stdin; .gz is read as gzip)." type:"path"`
	Output  string      `short:"o" default:"-" help:"Write the output here (- : stdout)."`
	Format  emit.Format `short:"f" enum:"folded,pprof,summary,top,svg,trace" default:"folded" help:"Output format: folded (flamegraph.pl, inferno, speedscope), pprof (gzipped profile.proto with cpu and wall sample types), summary (the parallelism story as text), top (functions by wall time beside CPU time, total and self, as perf report --latency shows them) svg (an interactive flame graph, widths by wall time, colours by parallelism: open it in a browser) or trace (the timeline as Chrome trace-event JSON for Perfetto UI, chrome://tracing, speedscope)."`
	Summary bool        `help:"Also print the parallelism summary (per group: CPU and wall time, average parallelism, histogram, serial hot spots) on stderr."`
	Weight  emit.Weight `enum:"wall,cpu" default:"wall" help:"Folded weight: wall (period/parallelism) or cpu (period)."`
	Scope   state.Scope `enum:"auto,workload,process" default:"auto" help:"Threads counted for parallelism: workload (all traced threads), process (the sample's own process), auto (workload for per-task traces, process for system-wide ones)."`
	Event   string      `help:"Use samples of this event (default: the first event seen; sched:sched_switch samples are block stacks for --off-cpu)."`
	OffCPU  bool        `name:"off-cpu" help:"Add the time when no thread of a group runs, divided among its threads that wait, under a leaf frame [blocked] or [runnable] at the stack where each went off CPU: the totals then equal the span (pprof: wall only, label state)."`
	Tree    string      `placeholder:"PID|COMM" help:"Count the threads of this process and all its descendants as one group (a build under perf record -a); COMM: the first process with that name. Other processes only take CPUs."`
	Top     int         `placeholder:"N" help:"Summary: show this many groups in full (default 4); -f top: this many rows (default 25)."`

	Labels emit.Labels   `default:"comm,parallelism,state" placeholder:"LIST" help:"pprof: the samples' string labels, from comm, parallelism, state, pid, tid (or none). Each distinct set is a series in Pyroscope: pid and tid multiply them."`
	Start  emit.UnixTime `placeholder:"TIME" help:"pprof: the Unix time of the trace's first record, RFC 3339 or Unix seconds (default: perf's header, from perf script --header; else now minus the span)."`
	Split  time.Duration `placeholder:"DURATION" help:"pprof: one profile per window of this length (e.g. 10s), each with its own time, to stay under a server's push limits; -o FILE.pb.gz writes FILE-000.pb.gz, FILE-001.pb.gz, ..."`

	PID    bool `name:"pid" help:"Root frame comm-PID (as stackcollapse-perf.pl --pid)."`
	TID    bool `name:"tid" help:"Root frame comm-PID/TID."`
	Kernel bool `help:"Annotate kernel frames with _[k]."`
	JIT    bool `name:"jit" help:"Annotate JIT frames (perf map and jitdump files) with _[j]."`
	All    bool `help:"All annotations (--kernel --jit)."`
	Addrs  bool `help:"Include addresses in [unknown] frames: [dso <addr>]."`

	Parallelism      emit.IntList    `placeholder:"LIST" help:"Keep samples whose parallelism is in LIST: 1 | 1,3 | 2-4 | 8- (open end)."`
	Comm             emit.NameList   `placeholder:"NAME,..." help:"Keep samples of these thread names only."`
	PIDs             emit.IntList    `name:"pids" placeholder:"LIST" help:"Keep samples of these processes only (LIST as for --parallelism)."`
	TIDs             emit.IntList    `name:"tids" placeholder:"LIST" help:"Keep samples of these threads only."`
	Time             emit.TimeWindow `placeholder:"START,END" help:"Keep samples in this window: trace seconds (123.4,125) or percent of the span (10%,20%); either end may be empty."`
	ParallelismFrame bool            `help:"Add the parallelism as the root frame ([parallelism 2]) of folded stacks."`

	Strict  bool             `help:"Make any unparseable line or lost record an error (exit 1) instead of a warning."`
	Quiet   bool             `short:"q" help:"No warnings on stderr."`
	Version kong.VersionFlag `help:"Print the version and exit."`
}

func main() {
	os.Exit(run(os.Args[1:], stdinPipe(os.Stdin), os.Stdout, os.Stderr))
}

// exitError carries an exit status up to run.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

type kongExit struct{}

// run is main without the process: tests call it directly.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	if len(args) > 0 && args[0] == "record" {
		return runRecord(args[1:], stdout, stderr)
	}
	var cli CLI
	exited := false
	parser, err := kong.New(&cli,
		kong.Name("wallfold"),
		kong.Description(description),
		kong.Vars{"version": "wallfold " + version},
		kong.Writers(stdout, stderr),
		kong.Exit(func(c int) { exited = true; code = c; panic(kongExit{}) }),
	)
	if err != nil {
		fmt.Fprintf(stderr, "wallfold: %v\n", err)
		return 2
	}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(kongExit); ok && exited {
				return
			}
			panic(r)
		}
	}()
	if _, err := parser.Parse(args); err != nil {
		// kong's usage error; exit 2 as Unix tools do (kong's own is 80).
		fmt.Fprintf(stderr, "wallfold: error: %v\nRun 'wallfold --help' for usage.\n", err)
		return 2
	}
	if err := cli.run(stdin, stdout, stderr); err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			if ee.msg != "" {
				fmt.Fprintf(stderr, "wallfold: %s\n", ee.msg)
			}
			return ee.code
		}
		if errors.Is(err, syscall.EPIPE) {
			return 0
		}
		fmt.Fprintf(stderr, "wallfold: %v\n", err)
		return 1
	}
	return 0
}

func (c *CLI) run(stdin io.Reader, stdout, stderr io.Writer) error {
	in, err := openInput(c.Input, stdin)
	if err != nil {
		return &exitError{2, err.Error()}
	}
	defer in.close()

	format := c.Format
	opts := emit.Options{
		Format:           format,
		WithSummary:      c.Summary,
		Weight:           c.Weight,
		Names:            emit.NameOptions{Addrs: c.Addrs, Kernel: c.Kernel || c.All, JIT: c.JIT || c.All},
		PID:              c.PID,
		TID:              c.TID,
		ParallelismFrame: c.ParallelismFrame,
		Event:            c.Event,
		Filter: emit.Filter{Parallelism: c.Parallelism, PIDs: c.PIDs, TIDs: c.TIDs,
			Comms: c.Comm, Time: c.Time},
		OffCPU:    c.OffCPU,
		TopGroups: c.Top,
		Labels:    c.Labels,
		Start:     c.Start.Time,
		Split:     c.Split,
	}
	if c.Split < 0 || (c.Split > 0 && (format != emit.Pprof || c.Output == "" || c.Output == "-")) {
		return &exitError{2, "--split=DURATION writes one pprof profile per window: it needs -f pprof and -o FILE (FILE.pb.gz becomes FILE-000.pb.gz, FILE-001.pb.gz, ...)"}
	}
	if c.Time.Percent() {
		opts.Filter.End = in.lastTime() // 0 on a pipe: the samples wait
	}
	mo := state.Options{Scope: c.Scope, OffCPU: c.OffCPU, Splits: c.Summary || format == emit.Summary,
		SplitWindow: opts.Filter.SplitWindow(), Timeline: format == emit.ChromeTrace}
	if pid, err := strconv.Atoi(c.Tree); err == nil && pid > 0 {
		mo.TreePID = pid
	} else {
		mo.TreeComm = c.Tree
	}
	regular := false
	if !in.stdin {
		st, err := os.Stat(c.Input)
		regular = err == nil && st.Mode().IsRegular()
	}
	if !regular {
		mo.Lookahead = pipeLookahead // a pipe (or a FIFO, <(...)) is read once
	}
	model := state.NewModel(mo)
	if regular && c.Scope != state.Workload {
		// A file can be read twice: learn every thread's process first.
		if err := seedTasks(c.Input, model); err != nil {
			return &exitError{2, err.Error()}
		}
	}
	out := emit.NewCollector(opts, model)

	// process reads the trace through the model into out and returns the
	// run's warnings (printed, with the summary of --summary, on stderr).
	process := func() ([]string, error) {
		// On stdin, parse on this goroutine: the second CPU belongs to perf
		// script (measured: the background reader is 28 % faster on a file,
		// 7-13 % slower behind perf script).
		r := parse.NewReader(in.r, in.name)
		if in.stdin {
			r = parse.NewSequentialReader(in.r, in.name)
		}
		fields := parse.NewFieldCheck(in.name)
		strictErr := scan(r, in.name, model, out, fields, c.Strict)
		if err := r.Err(); err != nil {
			return nil, &exitError{2, fmt.Sprintf("%s: %v", in.name, err)}
		}
		if strictErr != nil {
			return nil, &exitError{1, strictErr.Error()}
		}
		if err := r.NotPerfScript(); err != nil {
			return nil, &exitError{1, err.Error()}
		}
		if err := fields.Err(c.Strict); err != nil {
			return nil, &exitError{1, err.Error()}
		}
		if c.Strict && r.Empty() {
			return nil, &exitError{1, "empty input (--strict): " + parse.HowToConvert()}
		}
		warnings := append(append(append(r.Warnings(), fields.Warnings()...), out.Warnings()...), model.Warnings()...)
		if !c.Quiet && format != emit.Summary { // the summary carries them
			for _, w := range warnings {
				fmt.Fprintf(stderr, "wallfold: warning: %s\n", w)
			}
		}
		if c.Summary && format != emit.Summary {
			// The warnings are on stderr already, just above.
			if err := out.WriteSummary(stderr, isTerminal(stderr), nil); err != nil {
				return nil, err
			}
		}
		return warnings, nil
	}
	if format == emit.ChromeTrace {
		if c.Time.Percent() && opts.Filter.End == 0 {
			return &exitError{2, "-f trace is written while the trace is read, and a --time window in percent needs the trace's end, which a pipe (or a .gz) tells only at the end: give the window in seconds, or the plain file"}
		}
		// Streamed: the timeline is written while the trace is read.
		return writeOutput(c.Output, stdout, func(w io.Writer) error {
			out.StartTrace(w)
			if _, err := process(); err != nil {
				return err
			}
			return out.EndTrace()
		})
	}
	warnings, err := process()
	if err != nil {
		return err
	}
	comments := []string{"wallfold " + version, "scope: " + model.Scope().String()}
	for _, w := range warnings {
		comments = append(comments, "warning: "+w)
	}
	if c.Split > 0 {
		defer tightGC()()
		return out.WritePprofs(comments, func(win int, write func(io.Writer) error) error {
			return writeOutput(splitName(c.Output, win), stdout, write)
		})
	}
	return writeOutput(c.Output, stdout, func(w io.Writer) error {
		switch format {
		case emit.Pprof:
			defer tightGC()()
			return out.WritePprof(w, comments)
		case emit.Summary:
			return out.WriteSummary(w, isTerminal(w), warnings)
		case emit.Top:
			return out.WriteTop(w, c.Top)
		case emit.SVG:
			return out.WriteSVG(w, "")
		}
		return out.WriteFolded(w)
	})
}

// pipeLookahead is how far ahead (trace time) the model looks on a pipe
// for a record that names a thread's process: perf names some threads of
// a system-wide trace without task events only in a CPU-wide switch
// record up to some 0.7 s after their first records; the window holds at
// most 2^18 events (some tens of MB) whatever its length.
const pipeLookahead = 1e9

// seedTasks reads the file at path once for its threads' processes and
// parents (parse.ScanTaskIDs) and tells the model.
func seedTasks(path string, model *state.Model) error {
	in, err := openInput(path, nil)
	if err != nil {
		return err
	}
	defer in.close()
	return parse.ScanTaskIDs(in.r, func(id parse.TaskID) { model.Seed(id.PID, id.TID, id.ParentPID) })
}

// splitName is the file of --split window win: wall.pb.gz gives
// wall-000.pb.gz, wall-001.pb.gz, ...
func splitName(path string, win int) string {
	dir, base := filepath.Split(path)
	stem, ext := base, ""
	for _, e := range []string{".pb.gz", ".pprof", ".pb", ".gz"} {
		if strings.HasSuffix(base, e) && len(base) > len(e) {
			stem, ext = strings.TrimSuffix(base, e), e
			break
		}
	}
	return filepath.Join(dir, fmt.Sprintf("%s-%03d%s", stem, win, ext))
}

// scan is the loop: each record to the model (a sample interned first),
// what the model releases to the outputs, the profiled event's samples to
// fields. With strict, it returns the first syntax error or lost record,
// which ends the loop.
func scan(r *parse.Reader, name string, model *state.Model, out *emit.Collector, fields *parse.FieldCheck, strict bool) (strictErr error) {
	var clocks clockCache
	for r.Scan() {
		rec := r.Record()
		if rec.Kind == parse.KindError {
			if strict {
				strictErr = rec.Err
				break
			}
			continue
		}
		if rec.Kind == parse.KindLost && strict {
			strictErr = fmt.Errorf("%s:%d: PERF_RECORD_LOST: %d records lost (--strict); record with a larger buffer (perf record -m) or fewer events", name, rec.Line, rec.Lost)
			break
		}
		if rec.Kind == parse.KindHeader {
			out.Header(rec)
			continue
		}
		if rec.Kind == parse.KindOther && !rec.HasTime {
			continue // nothing for the model
		}
		ev := event(rec)
		switch rec.Kind {
		case parse.KindSample:
			if ref, ok := out.BlockStack(rec); ok {
				ev.Kind, ev.Ref = state.KindBlockStack, ref
				break
			}
			ev.Clock = clocks.isClock(rec.Event)
			ev.Ref = out.Sample(rec)
			if ev.Ref != state.OtherEvent {
				fields.Add(rec)
			}
		case parse.KindSwitch, parse.KindSwitchCPUWide:
			ev.Ref = out.SwitchRef(rec)
		}
		model.Add(ev)
		out.Add(model.Ready())
		out.AddTransitions(model.Transitions())
	}
	out.Add(model.Close())
	out.AddTransitions(model.Transitions())
	out.Close()
	return strictErr
}

// event is a record as the model takes it (a sample's Clock and Ref
// aside).
func event(rec *parse.Record) state.Event {
	e := state.Event{Time: rec.Time, PID: rec.PID, TID: rec.TID, CPU: rec.CPU, Comm: rec.Comm}
	switch rec.Kind {
	case parse.KindSample:
		e.Kind, e.Period, e.Name = state.KindSample, rec.Period, rec.Event
		e.HasPeriod, e.HasTime = rec.HasPeriod, rec.HasTime
	case parse.KindSwitch:
		e.Kind, e.Out, e.Preempt = state.KindSwitch, rec.Out, rec.Preempt
	case parse.KindSwitchCPUWide:
		e.Kind, e.Out, e.Preempt, e.PeerPID, e.PeerTID = state.KindSwitchCPUWide, rec.Out, rec.Preempt, rec.PeerPID, rec.PeerTID
	case parse.KindFork:
		e.Kind, e.PID, e.TID, e.ParentPID = state.KindFork, rec.SubjectPID, rec.SubjectTID, rec.ParentPID
	case parse.KindExit:
		e.Kind, e.PID, e.TID = state.KindExit, rec.SubjectPID, rec.SubjectTID
	case parse.KindComm:
		e.Kind, e.PID, e.TID, e.Comm = state.KindComm, rec.SubjectPID, rec.SubjectTID, rec.NewComm
	case parse.KindLost:
		e.Kind, e.Lost = state.KindLost, rec.Lost
	default:
		e.Kind = state.KindTick
	}
	return e
}

// clockCache answers parse.IsClockEvent for the last event name seen
// (traces mostly have one): a comparison per sample instead of a parse.
type clockCache struct {
	event []byte
	clock bool
}

func (c *clockCache) isClock(ev []byte) bool {
	if c.event == nil || !bytes.Equal(ev, c.event) {
		c.event = append(c.event[:0], ev...)
		c.clock = parse.IsClockEvent(ev)
	}
	return c.clock
}

// tightPercent is GOGC while a profile is built and encoded.
const tightPercent = 50

// tightGC makes the collector keep the heap within half above what is
// live (instead of double) until the returned function is called: a pprof
// run's memory peaks while the profile is built and encoded, and there a
// little more collector time is worth less peak memory (on the 120 MB go
// build trace: peak RSS about 92 MB instead of 102, time unchanged within
// noise). Process-wide, so set here rather than in emit.
func tightGC() (restore func()) {
	old := debug.SetGCPercent(tightPercent)
	if old < 0 || old <= tightPercent {
		debug.SetGCPercent(old) // GOGC=off or already lower: leave it
		return func() {}
	}
	return func() { debug.SetGCPercent(old) }
}
