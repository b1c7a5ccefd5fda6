// Command wallfold turns `perf script` text into wall-clock profiles:
// each sample's weight is divided by the number of threads that were
// running at that moment, so the weights add up to the time a user waits.
//
// main wires: the flags (kong) become a fold.Config, fileio opens the
// input and writes the output, fold runs the records through the model
// into the chosen format, and the run's verdict becomes the exit status.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/alecthomas/kong"
	"github.com/wallfold/wallfold/emit"
	"github.com/wallfold/wallfold/internal/fileio"
	"github.com/wallfold/wallfold/internal/fold"
	"github.com/wallfold/wallfold/internal/hugemem"
)

var version = "0.1.0"

// CLI is wallfold's command line: convert (the default), record and diff.
type CLI struct {
	Convert ConvertCmd       `cmd:"" default:"withargs" help:"Convert perf script text to a wall-clock profile (the default command: wallfold [flags] [FILE])."`
	Record  RecordCmd        `cmd:"" help:"Run a command under perf record and write its wall-clock profile (default wall.svg): wallfold record [flags] -- CMD [ARGS]."`
	Diff    DiffCmd          `cmd:"" help:"Compare two profiles of a program, before and after a change: wall and CPU time per function and stack, and the parallelism: wallfold diff [flags] BEFORE AFTER."`
	Version kong.VersionFlag `help:"Print the version and exit."`
}

func main() {
	hugemem.AdviseHeap() // before kong's allocations, which it also serves
	catchSignals = true
	boundHeadroom()
	os.Exit(run(os.Args[1:], fileio.StdinPipe(os.Stdin), os.Stdout, os.Stderr))
}

// catchSignals is set in the process (not in tests that call run): a
// SIGINT, SIGTERM or SIGHUP during a conversion removes -o's temporary
// file before wallfold dies of it. record catches them itself (it waits
// for perf, then still writes the profile).
var catchSignals bool

// kongExit is kong's exit (after --help or --version), caught by run.
type kongExit struct{ code int }

// run is main without the process: tests call it directly.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	var cli CLI
	parser, err := kong.New(&cli,
		kong.Name("wallfold"),
		kong.Vars{"version": "wallfold " + version},
		kong.Writers(stdout, stderr),
		kong.Exit(func(c int) { panic(kongExit{c}) }),
		kong.Help(helpWithDefault),
	)
	if err != nil {
		fmt.Fprintf(stderr, "wallfold: %v\n", err)
		return 2
	}
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(kongExit)
			if !ok {
				panic(r)
			}
			code = e.code
		}
	}()
	ctx, err := parser.Parse(args)
	if err != nil {
		// kong's usage error; exit 2 as Unix tools do (kong's own is 80).
		name := "wallfold"
		var pe *kong.ParseError
		if errors.As(err, &pe) && pe.Context != nil && pe.Context.Selected() != nil {
			if sel := pe.Context.Selected().Name; sel == "record" || sel == "diff" {
				name = "wallfold " + sel
			}
		}
		fmt.Fprintf(stderr, "%s: error: %v\nRun '%s --help' for usage.\n", name, err, name)
		return 2
	}
	if strings.HasPrefix(ctx.Command(), "record") {
		return cli.Record.run(stdout, stderr)
	}
	if catchSignals {
		defer fileio.RemoveTempsOnSignal()()
	}
	if strings.HasPrefix(ctx.Command(), "diff") {
		return exitStatus(cli.Diff.run(stdin, stdout, stderr), "wallfold diff", stderr)
	}
	return exitStatus(cli.Convert.run(stdin, stdout, stderr), "wallfold", stderr)
}

// exitStatus tells err on stderr and returns the exit status it carries:
// the run's verdict or a file's (fileio), 0 for a reader that stopped
// early (EPIPE), else 1.
func exitStatus(err error, name string, stderr io.Writer) int {
	if err == nil || errors.Is(err, syscall.EPIPE) {
		return 0
	}
	var ec interface{ ExitCode() int }
	if errors.As(err, &ec) {
		if msg := err.Error(); msg != "" {
			fmt.Fprintf(stderr, "%s: %s\n", name, msg)
		}
		return ec.ExitCode()
	}
	fmt.Fprintf(stderr, "%s: %v\n", name, err)
	return 1
}

// helpWithDefault shows, for `wallfold --help`, the default command's
// flags (kong would list only the commands), and then the commands.
func helpWithDefault(o kong.HelpOptions, ctx *kong.Context) error {
	if ctx.Selected() != nil {
		return kong.DefaultHelpPrinter(o, ctx)
	}
	var cmds []*kong.Node
	for _, n := range ctx.Model.Children {
		cmds = append(cmds, n)
		if n.Name == "convert" {
			ctx.Path = append(ctx.Path, &kong.Path{Command: n})
			n.Detail = description // the recipe, which `wallfold --help` teaches
		}
	}
	if err := kong.DefaultHelpPrinter(o, ctx); err != nil {
		return err
	}
	fmt.Fprintln(ctx.Stdout, "\nCommands:")
	for _, n := range cmds {
		fmt.Fprintf(ctx.Stdout, "  %-8s %s\n", n.Name, n.Help)
	}
	fmt.Fprintln(ctx.Stdout, "\nRun \"wallfold record --help\" or \"wallfold diff --help\" for their flags.")
	return nil
}

// convert runs cfg on the input at path (- : stdin) and writes the
// output to out (- : stdout).
func convert(cfg fold.Config, path string, stdin io.Reader, out string, stdout io.Writer) error {
	in, err := fileio.Open(path, stdin)
	if err != nil {
		return &fileio.Error{Msg: err.Error()}
	}
	defer in.Close()
	r, err := fold.New(cfg, runInput(in, in.R))
	if err != nil {
		return err
	}
	if cfg.Output.Format.Streams() {
		return fileio.Write(out, stdout, in, r.Stream)
	}
	if err := r.Read(); err != nil {
		return err
	}
	if cfg.Output.Format == emit.Pprof {
		defer tightGC()()
	}
	if cfg.Split > 0 {
		return r.WriteEach(func(win int, write func(io.Writer) error) error {
			return fileio.Write(splitName(out, win), stdout, in, write)
		})
	}
	return fileio.Write(out, stdout, in, r.Write)
}

// runInput is the run's input from in, its text read through r (in.R, or
// a reader over it that has peeked): a regular file's second pass for
// tasks and last time, and a plain file's offsets for parallel parsing.
func runInput(in *fileio.Input, r io.Reader) fold.Input {
	input := fold.Input{R: r, Name: in.Name, Stdin: in.Stdin}
	if in.Regular() {
		input.Tasks, input.LastTime = in.Tasks, in.LastTime
	}
	input.File, input.Size, _ = in.Plain() // read at offsets: a peek is no matter
	return input
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

// headroomFloor is the memory limit below which the collector keeps its
// usual headroom (GOGC's: the heap may double what is live). It was 128
// MiB: 2 M threads seen once, 70 MB live, peaked at 134 MB; 64 MiB is
// above the 35 MB a 200 MB trace's pprof takes.
const headroomFloor = 64 << 20

// boundHeadroom makes the collector keep the heap within half above what
// is live once that is over 43 MiB, not double it: after each collection
// the memory limit is set to the live heap and a half, never below the
// floor. Never below the live heap either, so the collector does not run
// without pause as a fixed limit under it does (measured: docs/
// performance.md). Not with GOMEMLIMIT or GOGC set. stop ends it (the
// process's life, for main).
func boundHeadroom() (stop func()) {
	if os.Getenv("GOMEMLIMIT") != "" || os.Getenv("GOGC") != "" {
		return func() {}
	}
	var on atomic.Bool
	on.Store(true)
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	type sentinel struct{ _ [16]byte }
	var after func(*sentinel)
	after = func(s *sentinel) {
		if !on.Load() {
			return
		}
		metrics.Read(sample)
		if sample[0].Value.Kind() == metrics.KindUint64 {
			live := int64(sample[0].Value.Uint64())
			debug.SetMemoryLimit(max(headroomFloor, live+live/2))
		}
		runtime.SetFinalizer(s, after) // again after the next collection
	}
	runtime.SetFinalizer(&sentinel{}, after)
	return func() { on.Store(false) }
}
