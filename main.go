// Command wallfold turns `perf script` text into wall-clock profiles:
// each sample's weight is divided by the number of threads that were
// running at that moment, so the weights add up to the time a user waits.
package main

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/alecthomas/kong"
	"github.com/wallfold/wallfold/parse"
)

var version = "0.1.0"

const description = `Wall-clock flame graphs from perf: reweights each sample by 1/parallelism.

Record and convert:

  perf record -e cpu-clock -F 999 -g --switch-events -- make -j8
  perf script --show-switch-events --show-task-events | wallfold > wall.folded
  flamegraph.pl wall.folded > wall.svg

--switch-events (record) and --show-switch-events (script) let wallfold see
which threads are on a CPU; --show-task-events adds thread exits (without it,
exits are inferred from silence). System-wide traces (perf record -a) work
too; each process then gets its own parallelism (--scope=process).

Outputs: folded stacks "root;...;leaf WEIGHT" (sorted, integer weights: with
--weight=wall, the default, in the event's period units, nanoseconds for
cpu-clock; with --weight=cpu the plain CPU profile); -f pprof -o wall.pb.gz
for go tool pprof (sample types cpu and wall, labels pid, tid, comm,
parallelism); -f summary (or --summary on stderr) for the parallelism story:
average parallelism, a histogram, the serial hot spots.`

// CLI is wallfold's command line.
type CLI struct {
	Input   string `arg:"" optional:"" default:"-" help:"perf script text to read (- or none: stdin; .gz is read as gzip)." type:"path"`
	Output  string `short:"o" default:"-" help:"Write the output here (- : stdout)."`
	Format  string `short:"f" enum:"folded,pprof,summary" default:"folded" help:"Output format: folded (flamegraph.pl, inferno, speedscope), pprof (gzipped profile.proto with cpu and wall sample types) or summary (the parallelism story as text)."`
	Summary bool   `help:"Also print the parallelism summary (per group: CPU and wall time, average parallelism, histogram, serial hot spots) on stderr."`
	Weight  string `enum:"wall,cpu" default:"wall" help:"Folded weight: wall (period/parallelism) or cpu (period)."`
	Scope   string `enum:"auto,workload,process" default:"auto" help:"Threads counted for parallelism: workload (all traced threads), process (the sample's own process), auto (workload for per-task traces, process for system-wide ones)."`
	Event   string `help:"Use samples of this event (default: the first event seen)."`

	PID    bool `name:"pid" help:"Root frame comm-PID (as stackcollapse-perf.pl --pid)."`
	TID    bool `name:"tid" help:"Root frame comm-PID/TID."`
	Kernel bool `help:"Annotate kernel frames with _[k]."`
	JIT    bool `name:"jit" help:"Annotate JIT frames (perf map and jitdump files) with _[j]."`
	All    bool `help:"All annotations (--kernel --jit)."`
	Addrs  bool `help:"Include addresses in [unknown] frames: [dso <addr>]."`

	Parallelism      string `placeholder:"LIST" help:"Keep samples whose parallelism is in LIST: 1 | 1,3 | 2-4 | 8- (open end)."`
	Comm             string `placeholder:"NAME,..." help:"Keep samples of these thread names only."`
	PIDs             string `name:"pids" placeholder:"LIST" help:"Keep samples of these processes only (LIST as for --parallelism)."`
	TIDs             string `name:"tids" placeholder:"LIST" help:"Keep samples of these threads only."`
	Time             string `placeholder:"START,END" help:"Keep samples in this window: trace seconds (123.4,125) or percent of the span (10%,20%); either end may be empty."`
	ParallelismFrame bool   `help:"Add the parallelism as the root frame ([parallelism 2]) of folded stacks."`

	Strict  bool             `help:"Make any unparseable line or lost record an error (exit 1) instead of a warning."`
	Quiet   bool             `short:"q" help:"No warnings on stderr."`
	Version kong.VersionFlag `help:"Print the version and exit."`
	// Silence limit in sampling periods; hidden: for measuring the model.
	GapPeriods float64 `hidden:"" default:"0"`
}

func main() {
	var stdin io.Reader = os.Stdin
	if os.Getenv("WALLFOLD_NOPIPEGROW") == "" {
		stdin = stdinPipe(os.Stdin)
	}
	os.Exit(run(os.Args[1:], stdin, os.Stdout, os.Stderr))
}

// exitError carries an exit status up to run.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// run is main without the process: tests call it directly.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
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
		if isBrokenPipe(err) {
			return 0
		}
		fmt.Fprintf(stderr, "wallfold: %v\n", err)
		return 1
	}
	return 0
}

type kongExit struct{}

func isBrokenPipe(err error) bool {
	return errors.Is(err, syscall.EPIPE)
}

func (c *CLI) run(stdin io.Reader, stdout, stderr io.Writer) error {
	in, name, file, closeIn, err := openInput(c.Input, stdin)
	if err != nil {
		return &exitError{2, err.Error()}
	}
	defer closeIn()

	cfg := config{
		weightCPU:  c.Weight == "cpu",
		scope:      c.Scope,
		event:      c.Event,
		pid:        c.PID,
		tid:        c.TID,
		kernel:     c.Kernel || c.All,
		jit:        c.JIT || c.All,
		addrs:      c.Addrs,
		pprof:      c.Format == "pprof",
		summary:    c.Summary || c.Format == "summary",
		parFrame:   c.ParallelismFrame,
		gapPeriods: c.GapPeriods,
		strict:     c.Strict,
		sequential: c.Input == "" || c.Input == "-",
	}
	if err := c.filters(&cfg, file); err != nil {
		return &exitError{2, err.Error()}
	}
	p := newPipeline(cfg)
	if err := p.read(in, name); err != nil {
		return &exitError{2, fmt.Sprintf("%s: %v", name, err)}
	}
	if err := p.check(); err != nil {
		return &exitError{1, err.Error()}
	}
	warnings := p.warnings()
	if !c.Quiet && c.Format != "summary" { // the summary carries them
		for _, w := range warnings {
			fmt.Fprintf(stderr, "wallfold: warning: %s\n", w)
		}
	}
	if c.Summary && c.Format != "summary" {
		// The warnings are on stderr already, just above.
		if err := p.writeSummary(stderr, isTerminal(stderr), nil); err != nil {
			return err
		}
	}
	return writeOutput(c.Output, stdout, func(w io.Writer) error {
		switch c.Format {
		case "pprof":
			return p.writePprof(w, warnings)
		case "summary":
			return p.writeSummary(w, isTerminal(w), warnings)
		}
		return p.writeFolded(w)
	})
}

// filters turns the filter flags into cfg.
func (c *CLI) filters(cfg *config, file *os.File) error {
	if c.Parallelism != "" {
		l, err := parseIntList(c.Parallelism)
		if err != nil {
			return fmt.Errorf("--parallelism %v", err)
		}
		cfg.parList = &l
	}
	if c.PIDs != "" {
		l, err := parseIntList(c.PIDs)
		if err != nil {
			return fmt.Errorf("--pids %v", err)
		}
		cfg.pids = &l
	}
	if c.TIDs != "" {
		l, err := parseIntList(c.TIDs)
		if err != nil {
			return fmt.Errorf("--tids %v", err)
		}
		cfg.tids = &l
	}
	if c.Comm != "" {
		cfg.comms = splitList(c.Comm)
	}
	if c.Time != "" {
		w, err := parseTimeWindow(c.Time)
		if err != nil {
			return fmt.Errorf("--time %v", err)
		}
		cfg.window = &w
		// Percentages need the trace's end: read it from the file's tail
		// (a pipe's samples wait until its end instead).
		if w.percent && file != nil {
			if st, err := file.Stat(); err == nil && st.Mode().IsRegular() {
				if last, ok := parse.LastTime(file, st.Size()); ok {
					cfg.lastTime = last
				}
			}
		}
	}
	return nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// openInput opens FILE or stdin, transparently un-gzipping. file is the
// plain (seekable) input file, nil for stdin and gzip.
func openInput(path string, stdin io.Reader) (r io.Reader, name string, file *os.File, closer func(), err error) {
	r, name, closer = stdin, "<stdin>", func() {}
	if path != "" && path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, "", nil, nil, err
		}
		r, name, file, closer = f, path, f, func() { f.Close() }
	}
	// Small: the parser reads through it in larger pieces (which then
	// go straight to the parser's buffer, uncopied).
	br := bufio.NewReaderSize(r, 64<<10)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			closer()
			return nil, "", nil, nil, fmt.Errorf("%s: %v", name, err)
		}
		return zr, name, nil, closer, nil
	}
	return br, name, file, closer, nil
}

// writeOutput writes to stdout, or to a temporary file beside path that is
// renamed when complete, so an interrupted run leaves no half profile.
func writeOutput(path string, stdout io.Writer, write func(io.Writer) error) error {
	if path == "" || path == "-" {
		if err := write(stdout); err != nil && !isBrokenPipe(err) {
			return &exitError{2, fmt.Sprintf("<stdout>: %v", err)}
		} else if err != nil {
			return err
		}
		return nil
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return &exitError{2, err.Error()}
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return &exitError{2, fmt.Sprintf("%s: %v", path, err)}
	}
	if err := tmp.Close(); err != nil {
		return &exitError{2, fmt.Sprintf("%s: %v", path, err)}
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return &exitError{2, err.Error()}
	}
	return nil
}

// commRoot formats the root frame as stackcollapse-perf.pl does.
func commRoot(dst, comm []byte, pid, tid int, withPID, withTID bool) []byte {
	dst = dst[:0]
	for _, c := range comm {
		if c == ' ' {
			c = '_'
		}
		dst = append(dst, c)
	}
	if withPID || withTID {
		dst = append(dst, '-')
		if pid >= 0 {
			dst = fmt.Appendf(dst, "%d", pid)
		} else {
			dst = append(dst, '?')
		}
		if withTID {
			dst = fmt.Appendf(dst, "/%d", tid)
		}
	}
	return dst
}
