package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/google/pprof/profile"
	"github.com/wallfold/wallfold/emit"
	"github.com/wallfold/wallfold/internal/diff"
	"github.com/wallfold/wallfold/internal/fileio"
	"github.com/wallfold/wallfold/internal/fold"
	"github.com/wallfold/wallfold/state"
)

// DiffCmd is `wallfold diff [flags] BEFORE AFTER`: two profiles of one
// program, before and after a change, compared stack by stack.
type DiffCmd struct {
	Before    string      `arg:"" help:"The profile before the change: a wallfold pprof profile (wallfold -f pprof, wallfold record -o FILE.pb.gz) or perf script text (as wallfold reads it; .gz read as gzip), told apart by content; - : stdin."`
	After     string      `arg:"" help:"The profile after the change, as BEFORE (either kind: a saved profile beside a new trace)."`
	Output    string      `short:"o" default:"-" help:"Write the output here (- : stdout), as wallfold's -o does (not over either input)."`
	Format    diffFormat  `short:"f" enum:"top,folded,pprof,svg" default:"top" help:"Output format: top (functions by how much their wall time changed, wall and CPU before, after and delta, parallelism before -> after), folded (difffolded.pl's \"stack BEFORE AFTER\" lines of wall time: flamegraph.pl or inferno-flamegraph draw them at AFTER's widths, red where a leaf grew), pprof (AFTER's samples and BEFORE's negated with the label pprof::base=true, as go tool pprof -diff_base makes them: go tool pprof -top shows the change) or svg (a flame graph at AFTER's widths, red where the wall grew, blue where it shrank, both sides in the tooltips)."`
	Normalize bool        `short:"n" help:"Scale BEFORE's wall and CPU to AFTER's totals (as difffolded.pl -n): compare shares when the runs did different amounts of work."`
	Weight    emit.Weight `enum:"wall,cpu" default:"wall" help:"-f folded: the columns' weight, wall or cpu."`
	By        diff.By     `enum:"function,stack" default:"function" help:"-f top: a row per function (inclusive: the stacks it is in) or per whole stack."`
	Top       int         `placeholder:"N" help:"-f top: this many rows (default 25)."`
	Title     string      `help:"-f svg: the picture's title (default: wallfold diff: wall time, BEFORE -> AFTER)."`
	Focus     string      `placeholder:"REGEX" help:"Keep only the stacks with a frame that REGEX matches (Go syntax), on both sides, as go tool pprof -focus: the totals are then theirs."`
	OffCPU    bool        `name:"off-cpu" help:"Traces: add the time when none of a group's threads runs, under [blocked] and [runnable], as wallfold --off-cpu does (a profile has it when it was made so). For a program that waits (I/O, locks, a busy machine), the wall time is then the whole run."`
	Scope     state.Scope `enum:"auto,workload,process,thread" default:"auto" help:"Traces: the threads counted for parallelism, as wallfold --scope."`
	Event     string      `help:"Traces: use samples of this event (default: the first event seen)."`
	Quiet     bool        `short:"q" help:"No warnings on stderr."`

	focus *regexp.Regexp // --focus compiled
}

// diffFormat is diff's -f: its own formats (top, folded, pprof, svg).
type diffFormat string

// Validate names what is wrong before anything is read (kong calls it
// after parsing; exit 2): both inputs on stdin, a --focus that does not
// compile.
func (c *DiffCmd) Validate() error {
	if c.Before == "-" && c.After == "-" {
		return fmt.Errorf("BEFORE and AFTER are both stdin (-): give at least one as a file")
	}
	if c.Focus != "" {
		re, err := regexp.Compile(c.Focus)
		if err != nil {
			return fmt.Errorf("--focus=%s: %v", c.Focus, err)
		}
		c.focus = re
	}
	return nil
}

func (c *DiffCmd) run(stdin io.Reader, stdout, stderr io.Writer) error {
	for _, in := range []string{c.Before, c.After} {
		if err := notOver(c.Output, in); err != nil {
			return err
		}
	}
	before, err := c.side(c.Before, stdin, stderr)
	if err != nil {
		return err
	}
	after, err := c.side(c.After, stdin, stderr)
	if err != nil {
		return err
	}
	for _, s := range []*diff.Side{before, after} {
		if c.focus != nil {
			s.Focus(c.focus)
		}
		if len(s.Stacks) == 0 && !c.Quiet {
			fmt.Fprintf(stderr, "wallfold diff: %s: warning: no samples: its side of every row is 0\n", s.Name)
		}
	}
	d, err := diff.Compare(before, after, c.Normalize)
	if err != nil {
		return &fold.ExitError{Code: 2, Msg: err.Error()}
	}
	return fileio.Write(c.Output, stdout, nil, func(w io.Writer) error {
		switch c.Format {
		case "folded":
			return diff.WriteFolded(w, d, c.Weight == emit.CPU)
		case "pprof":
			return emit.WritePprof(w, diff.Profile(d))
		case "svg":
			return diff.WriteSVG(w, d, c.Title)
		}
		return diff.WriteTop(w, d, c.By, c.Top)
	})
}

// side reads one input: a pprof profile (binary once un-gzipped) or a
// trace, through the same run as wallfold's folded output.
func (c *DiffCmd) side(path string, stdin io.Reader, stderr io.Writer) (*diff.Side, error) {
	in, err := fileio.Open(path, stdin)
	if err != nil {
		return nil, &fileio.Error{Msg: err.Error()}
	}
	defer in.Close()
	br := bufio.NewReaderSize(in.R, 64<<10)
	head, _ := br.Peek(512)
	if diff.LooksLikeProfile(head) {
		pr, err := profile.Parse(br)
		if err != nil {
			return nil, &fold.ExitError{Code: 2, Msg: fmt.Sprintf("%s: neither perf script text nor a pprof profile: %v", in.Name, err)}
		}
		s, err := diff.FromProfile(in.Name, pr)
		if err != nil {
			return nil, &fold.ExitError{Code: 2, Msg: err.Error()}
		}
		return s, nil
	}
	input := runInput(in, br)
	cfg := fold.Config{Output: emit.Options{Format: emit.Folded}, Event: c.Event, OffCPU: c.OffCPU,
		Scope: c.Scope, Quiet: c.Quiet, Stderr: &namedLines{w: stderr, prefix: "wallfold diff: " + in.Name + ": "},
		Version: version}
	r, err := fold.New(cfg, input)
	if err != nil {
		return nil, err
	}
	if err := r.Read(); err != nil {
		return nil, err
	}
	st, _ := r.StackTotals()
	return diff.FromStacks(in.Name, st), nil
}

// namedLines writes the run's lines ("wallfold: warning: ...") as
// "wallfold diff: FILE: warning: ...": with two inputs, which one a
// warning is of.
type namedLines struct {
	w      io.Writer
	prefix string
	mid    bool // within a line
}

func (n *namedLines) Write(p []byte) (int, error) {
	var b []byte
	for _, line := range strings.SplitAfter(string(p), "\n") {
		if line == "" {
			continue
		}
		if !n.mid {
			b = append(b, n.prefix...)
			line = strings.TrimPrefix(line, "wallfold: ")
		}
		b = append(b, line...)
		n.mid = !strings.HasSuffix(line, "\n")
	}
	if _, err := n.w.Write(b); err != nil {
		return 0, err
	}
	return len(p), nil
}

// notOver refuses an output that is one of the inputs (which are read
// before anything is written, and would be lost).
func notOver(out, in string) error {
	if out == "" || out == "-" || in == "" || in == "-" {
		return nil
	}
	so, err1 := os.Stat(out)
	si, err2 := os.Stat(in)
	if err1 == nil && err2 == nil && os.SameFile(so, si) {
		return &fileio.Error{Msg: fmt.Sprintf("%s: is the input %s (the same file): wallfold diff does not write over a profile it reads; choose another -o", out, in)}
	}
	return nil
}
