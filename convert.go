package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/wallfold/wallfold/emit"
	"github.com/wallfold/wallfold/internal/fold"
	"github.com/wallfold/wallfold/state"
)

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
group; perf script -F +pid,+ip,+sym,+symoff,+dso adds the pid column (-F +pid
alone drops sched_switch stacks). Where CPUs' clocks disagree (some VMs),
record with perf record -k mono.

The whole wait, with the time when nothing runs (sleep, I/O, locks, a busy
machine) under [blocked] and [runnable] at the stack that went off CPU
(-c 1: a sched_switch stack at every switch-out and every wakeup, after
which a thread waits for a CPU; the clock keeps 999 Hz):

  perf record -e cpu-clock/freq=999/ -e sched:sched_switch -c 1 -g --switch-events \
      -e sched:sched_wakeup -e sched:sched_wakeup_new -- ./job
  perf script --show-switch-events --show-task-events | wallfold --off-cpu > wall.folded

Outputs: folded stacks "root;...;leaf WEIGHT" (sorted, integer weights: with
--weight=wall, the default, in the event's period units, nanoseconds for
cpu-clock; with --weight=cpu the plain CPU profile); -f pprof -o wall.pb.gz
for go tool pprof, Pyroscope, Parca (sample types cpu and wall, string labels
comm, parallelism, state, waker; Unix times); -f summary (or --summary on stderr) for
the parallelism story: average parallelism, a histogram, the serial hot spots;
-f top for a table of functions; -f svg for a flame graph to open in a browser;
-f trace for the timeline (Perfetto UI, chrome://tracing, speedscope).`

// ConvertCmd is `wallfold [flags] [FILE]`: perf script text in, one
// output out.
type ConvertCmd struct {
	Input   string        `arg:"" optional:"" default:"-" help:"perf script text to read (- or none: stdin; .gz is read as gzip)." type:"path"`
	Output  string        `short:"o" default:"-" help:"Write the output here (- : stdout), as the shell's > may: not through another user's symlink nor onto another user's file in a sticky directory (/tmp), nor over a file you may not write or over the input (exit 2); a file keeps its mode and owner."`
	Format  emit.Format   `short:"f" enum:"folded,pprof,summary,top,svg,trace" default:"folded" help:"Output format: folded (flamegraph.pl, inferno, speedscope), pprof (gzipped profile.proto with cpu and wall sample types), summary (the parallelism story as text), top (functions by wall time beside CPU time, total and self, as perf report --latency shows them) svg (an interactive flame graph, widths by wall time, colours by parallelism: open it in a browser) or trace (the timeline as Chrome trace-event JSON for Perfetto UI, chrome://tracing, speedscope)."`
	Summary bool          `help:"Also print the parallelism summary (per group: CPU and wall time, average parallelism, histogram, serial hot spots) on stderr."`
	Weight  emit.Weight   `enum:"wall,cpu" default:"wall" help:"Folded weight: wall (period/parallelism) or cpu (period)."`
	Scope   state.Scope   `enum:"auto,workload,process,thread" default:"auto" help:"Threads counted for parallelism: workload (all traced threads), process (the sample's own process), thread (each thread alone: with --off-cpu its whole time at its stacks, as wall-mode profilers show it), auto (workload for per-task traces, process for system-wide ones)."`
	Merge   emit.Merge    `enum:"none,comm" default:"none" help:"comm: the summary tells the groups (processes, or threads with --scope=thread) with the same command as one (all postgres backends): their sums and the time per group. Folded, svg, top and pprof sum by command already (their root is the command, unless --pid or --tid)."`
	Event   string        `help:"Use samples of this event (default: the first event seen; sched:sched_switch samples are block stacks for --off-cpu)."`
	OffCPU  bool          `name:"off-cpu" help:"Add the time when no thread of a group runs, under a leaf frame [blocked] or [runnable] at the stack where each went off CPU: divided among its runnable threads while some wait for a CPU (preempted, new, woken), else among its blocked ones, so that the totals equal the summary's runnable and blocked; and (per-task recordings) the time on CPU no sample covers under [unsampled]: the totals then equal the span (pprof: wall only, labels state and waker)."`
	Spin    fold.SpinRule `placeholder:"REGEX|none" help:"Spin-waits: samples whose innermost user frame matches REGEX (Go syntax; default: a built-in list of sched_yield, OpenBLAS, OpenMP and pthread spin waits) are threads burning a CPU while they wait: they do not count in the others' parallelism and weigh nothing in wall time while a thread of their group works. none: count spinning as work."`
	Tree    string        `placeholder:"PID|COMM" help:"Count the threads of this process and all its descendants as one group (a build under perf record -a); COMM: the first process with that name. Other processes only take CPUs. Not with an explicit --scope=process or thread."`
	Top     int           `placeholder:"N" help:"Summary: show this many groups in full (default 4); -f top: this many rows (default 25)."`

	PprofFlags  `embed:""`
	NameFlags   `embed:""`
	FilterFlags `embed:""`
	SVGFlags    `embed:""`

	Strict bool `help:"Make any unparseable line, lost record or record out of time order an error (exit 1) instead of a warning."`
	Quiet  bool `short:"q" help:"No warnings on stderr."`
}

// PprofFlags say what a pprof profile carries.
type PprofFlags struct {
	Labels emit.Labels   `default:"comm,parallelism,state,waker" placeholder:"LIST" help:"pprof: the samples' string labels, from comm, parallelism, state, pid, tid, waker (or none); waker: on [blocked] time a wakeup ended, who woke the thread (a command, or interrupt). Each distinct set is a series in Pyroscope: pid and tid multiply them."`
	Start  emit.UnixTime `placeholder:"TIME" help:"pprof: the Unix time of the trace's first record, RFC 3339 or Unix seconds (default: perf's header, from perf script --header; else now minus the span)."`
	Split  time.Duration `placeholder:"DURATION" help:"pprof: one profile per window of this length (e.g. 10s), each with its own time, to stay under a server's push limits; -o FILE.pb.gz writes FILE-000.pb.gz, FILE-001.pb.gz, ..."`
}

// NameFlags say how frames are named, as stackcollapse-perf.pl's do.
type NameFlags struct {
	PID    bool `name:"pid" help:"Root frame comm-PID (as stackcollapse-perf.pl --pid)."`
	TID    bool `name:"tid" help:"Root frame comm-PID/TID."`
	Kernel bool `help:"Annotate kernel frames with _[k]."`
	JIT    bool `name:"jit" help:"Annotate JIT frames (perf map and jitdump files) with _[j]."`
	All    bool `help:"All annotations (--kernel --jit)."`
	Addrs  bool `help:"Include addresses in [unknown] frames: [dso <addr>]."`
}

// FilterFlags say which samples the output keeps.
type FilterFlags struct {
	Parallelism      fold.IntList    `placeholder:"LIST" help:"Keep samples whose parallelism is in LIST: 1 | 1,3 | 2-4 | 8- (open end)."`
	Comm             fold.NameList   `placeholder:"NAME,..." help:"Keep samples of these thread names only."`
	PIDs             fold.IntList    `name:"pids" placeholder:"LIST" help:"Keep samples of these processes only (LIST as for --parallelism)."`
	TIDs             fold.IntList    `name:"tids" placeholder:"LIST" help:"Keep samples of these threads only."`
	Time             fold.TimeWindow `placeholder:"START,END" help:"Keep samples in this window: trace seconds (123.4,125) or percent of the span (10%,20%); either end may be empty."`
	ParallelismFrame bool            `help:"Add the parallelism as the root frame ([parallelism 2]) of folded stacks."`
}

// Validate names the flag that is wrong (kong calls it after parsing;
// exit 2): --split's length, then its format, then its output.
func (c *ConvertCmd) Validate() error {
	if err := c.SVGFlags.validate(); err != nil {
		return err
	}
	switch {
	case c.Split < 0:
		return fmt.Errorf("--split=%v: a window's length must be positive (e.g. --split=10s)", c.Split)
	case c.Split > 0 && c.Format != emit.Pprof:
		return fmt.Errorf("--split writes one pprof profile per window: it needs -f pprof (not -f %s)", c.Format)
	case c.Split > 0 && (c.Output == "" || c.Output == "-"):
		return errors.New("--split writes one pprof profile per window, each to its own file: it needs -o FILE (FILE.pb.gz becomes FILE-000.pb.gz, FILE-001.pb.gz, ...)")
	}
	return nil
}

func (c *ConvertCmd) run(stdin io.Reader, stdout, stderr io.Writer) error {
	return convert(c.config(stderr), c.Input, stdin, c.Output, stdout)
}

// config is the run the flags ask for.
func (c *ConvertCmd) config(stderr io.Writer) fold.Config {
	return fold.Config{
		Output: emit.Options{Format: c.Format, Weight: c.Weight, PID: c.PID, TID: c.TID,
			Names:            emit.NameOptions{Addrs: c.Addrs, Kernel: c.Kernel || c.All, JIT: c.JIT || c.All},
			ParallelismFrame: c.ParallelismFrame, Labels: c.Labels, Top: c.Top, Merge: c.Merge,
			SVG: c.SVGFlags.options()},
		Summary: c.Summary,
		Event:   c.Event,
		Filter: fold.Filter{Parallelism: c.Parallelism, PIDs: c.PIDs, TIDs: c.TIDs,
			Comms: c.Comm, Time: c.Time},
		OffCPU:  c.OffCPU,
		Spin:    c.Spin,
		Scope:   c.Scope,
		Tree:    c.Tree,
		Start:   c.Start.Time,
		Split:   c.Split,
		Strict:  c.Strict,
		Quiet:   c.Quiet,
		Stderr:  stderr,
		Version: version,
	}
}
