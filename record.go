package main

import (
	"fmt"
	"io"
	"time"

	"github.com/wallfold/wallfold/emit"
	"github.com/wallfold/wallfold/internal/fileio"
	"github.com/wallfold/wallfold/internal/fold"
	"github.com/wallfold/wallfold/internal/record"
	"github.com/wallfold/wallfold/state"
)

// RecordCmd is `wallfold record [flags] -- CMD [ARGS]`: perf record of
// CMD with what the model wants, then perf script straight into the
// filter (no text file on disk).
type RecordCmd struct {
	Output     string        `short:"o" help:"Write the profile here (default wall.svg, or wall and -f's extension); its extension picks the format when -f is not given (.svg, .json: trace, .pb.gz: pprof, .folded, .txt: summary, .top: top)."`
	Format     string        `short:"f" enum:",folded,pprof,summary,top,svg,trace" default:"" help:"Output format (default: from -o's extension)."`
	SystemWide bool          `name:"system-wide" short:"a" help:"Record every CPU (perf record -a); the group is CMD's process tree."`
	CallGraph  string        `name:"call-graph" placeholder:"fp|dwarf[,SIZE]|lbr" help:"How perf records stacks (perf record --call-graph; default fp, as -g): dwarf for programs built without frame pointers (bigger perf.data, slower perf script)."`
	PID        string        `name:"pid" short:"p" placeholder:"PID[,PID]" help:"Attach to running processes (perf record -p) instead of running a command; --duration or Ctrl-C ends the recording."`
	Duration   time.Duration `name:"duration" help:"Stop recording after this long (e.g. 10s), counted from when perf's events are on: with -p perf runs sleep as its workload (perf record -p PID -- sleep 10); with a command perf gets SIGINT, as from Ctrl-C."`
	ClockID    string        `name:"clockid" short:"k" help:"perf record -k: the clock of the records (mono lines them up with other monotonic timestamps)."`
	MmapPages  string        `name:"mmap-pages" short:"m" placeholder:"PAGES" help:"perf record -m: a bigger ring buffer when perf lost records."`
	Events     []string      `name:"event" short:"e" sep:"none" placeholder:"EVENT" help:"More events for perf record -e, beside the clock (repeatable)."`
	NoBuildID  bool          `name:"no-buildid" short:"B" xor:"buildid" help:"perf record -B: no build ids. The default: perf script runs at once on the same files, and collecting them takes perf's exit 0.2-0.4 s on 20 MB (perf 6.1 sometimes crashes on them)."`
	BuildID    bool          `name:"buildid" xor:"buildid" help:"Collect build ids after all (perf record without -B)."`
	PerfArgs   []string      `name:"perf-arg" sep:"none" placeholder:"ARG" help:"One more argument for perf record, verbatim (repeatable, one word each: --perf-arg=--user-regs=sp)."`
	Inline     bool          `help:"Inline frames in the stacks (perf script --inline; without it wallfold asks for --no-inline, which perf 7 needs to be fast)."`
	OffCPU     bool          `name:"off-cpu" help:"Also record sched:sched_switch with a stack at every switch-out and the wakeups (perf record -e cpu-clock/freq=HZ/ -e sched:sched_switch -c 1 -e sched:sched_wakeup -e sched:sched_wakeup_new) and add the time when nothing of CMD runs, under [blocked] and [runnable] at those stacks; the summary names who woke CMD's threads."`
	Freq       int           `short:"F" default:"999" help:"Sampling frequency (Hz)."`
	Quiet      bool          `short:"q" help:"No summary and no warnings on stderr."`
	Cmd        []string      `arg:"" optional:"" passthrough:"partial" help:"The command to run and profile (after --)."`

	SVGFlags `embed:""`
}

// Validate names the wrong flag (kong calls it after parsing; exit 2).
func (c *RecordCmd) Validate() error { return c.SVGFlags.validate() }

// run records, converts, and returns CMD's exit status (or wallfold's
// own: 2 when it cannot record or perf failed, 127 when CMD is not found).
func (c *RecordCmd) run(stdout, stderr io.Writer) int {
	const name = "wallfold record"
	o := c.options()
	if err := record.Check(o); err != nil {
		return exitStatus(err, name, stderr)
	}
	format, err := c.format()
	if err != nil {
		return exitStatus(err, name, stderr)
	}
	replaces, err := record.CheckOutput(c.Output)
	if err != nil {
		return exitStatus(err, name, stderr)
	}
	if replaces && !c.Quiet {
		fmt.Fprintf(stderr, "wallfold: %s exists: it will be replaced\n", c.Output)
	}
	rec, err := record.Run(o, stderr)
	if err != nil {
		return exitStatus(err, name, stderr)
	}
	defer rec.Close()
	text, wait, err := rec.Script()
	if err != nil {
		return exitStatus(err, name, stderr)
	}
	cfg := fold.Config{Output: emit.Options{Format: format, Labels: emit.DefaultLabels, SVG: c.SVGFlags.options()}, OffCPU: c.OffCPU, Scope: state.Auto,
		Quiet: c.Quiet, Summary: !c.Quiet && format != emit.Summary, Stderr: stderr, Version: version}
	if c.SystemWide && len(o.Cmd) > 0 {
		cfg.Tree = record.TreeName(o.Cmd[0])
	}
	err = convert(cfg, "-", fileio.StdinPipe(text), c.Output, stdout)
	if serr := wait(); serr != nil {
		exitStatus(serr, name, stderr)
		if err == nil && c.Output != "-" {
			fmt.Fprintf(stderr, "wallfold: wrote %s from what perf script printed before it failed: the profile may be partial\n", c.Output)
		}
		if err == nil {
			return 2
		}
	}
	if code := exitStatus(err, "wallfold", stderr); code != 0 {
		return code
	}
	if !c.Quiet && c.Output != "-" {
		fmt.Fprintf(stderr, "wallfold: wrote %s (%s)\n", c.Output, format)
	}
	return rec.Status
}

// options are the flags as record's Options.
func (c *RecordCmd) options() record.Options {
	cmd := c.Cmd
	if len(cmd) > 0 && cmd[0] == "--" {
		cmd = cmd[1:]
	}
	return record.Options{Cmd: cmd, SystemWide: c.SystemWide, OffCPU: c.OffCPU, Freq: c.Freq,
		CallGraph: c.CallGraph, PID: c.PID, ClockID: c.ClockID, MmapPages: c.MmapPages, Events: c.Events,
		BuildID: c.BuildID, PerfArgs: c.PerfArgs, Duration: c.Duration, Inline: c.Inline}
}

// format is the output's format, from -f or -o's extension; it names
// the output when -o is not given.
func (c *RecordCmd) format() (emit.Format, error) {
	var f emit.Format
	if c.Format == "" {
		if c.Output == "" {
			c.Output = "wall" + emit.SVG.Ext()
		}
		return emit.FormatOf(c.Output), nil
	}
	if err := f.UnmarshalText([]byte(c.Format)); err != nil {
		return f, &fold.ExitError{Code: 2, Msg: err.Error()}
	}
	if c.Output == "" {
		c.Output = "wall" + f.Ext()
	} else if c.Output != "-" && emit.FormatOf(c.Output) != f {
		return f, &fold.ExitError{Code: 2, Msg: fmt.Sprintf("-f %s, but %s's extension says %s: give -o a %s name, or leave out -f",
			f, c.Output, emit.FormatOf(c.Output), f.Ext())}
	}
	return f, nil
}
