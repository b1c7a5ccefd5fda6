package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/alecthomas/kong"
)

// RecordCLI is `wallfold record [flags] -- CMD [ARGS]`: perf record of
// CMD with what the model wants, then perf script straight into the
// filter (no text file on disk).
type RecordCLI struct {
	Output     string   `short:"o" help:"Write the profile here (default wall.svg, or wall and -f's extension); its extension picks the format when -f is not given (.svg, .json: trace, .pb.gz: pprof, .folded, .txt: summary, .top: top)."`
	Format     string   `short:"f" enum:",folded,pprof,summary,top,svg,trace" default:"" help:"Output format (default: from -o's extension)."`
	SystemWide bool     `name:"system-wide" short:"a" help:"Record every CPU (perf record -a); the group is CMD's process tree."`
	OffCPU     bool     `name:"off-cpu" help:"Also record sched:sched_switch and add the time when nothing of CMD runs, under [blocked] and [runnable]."`
	Freq       int      `short:"F" default:"999" help:"Sampling frequency (Hz)."`
	Quiet      bool     `short:"q" help:"No summary and no warnings on stderr."`
	Cmd        []string `arg:"" optional:"" passthrough:"" help:"The command to run and profile (after --)."`
}

// extOf is the file extension of format, as formatOf reads it.
func extOf(format string) string {
	switch format {
	case "trace":
		return ".json"
	case "pprof":
		return ".pb.gz"
	case "summary":
		return ".txt"
	case "":
		return ".svg"
	}
	return "." + format
}

// formatOf picks the format of an output file by its extension.
func formatOf(path string) string {
	switch {
	case strings.HasSuffix(path, ".svg"):
		return "svg"
	case strings.HasSuffix(path, ".json"):
		return "trace"
	case strings.HasSuffix(path, ".pb.gz"), strings.HasSuffix(path, ".pprof"), strings.HasSuffix(path, ".pb"):
		return "pprof"
	case strings.HasSuffix(path, ".txt"):
		return "summary"
	case strings.HasSuffix(path, ".top"):
		return "top"
	}
	return "folded"
}

// runRecord is `wallfold record`; it returns CMD's exit status (or
// wallfold's own, 2, when it cannot record).
func runRecord(args []string, stdout, stderr io.Writer) int {
	var rc RecordCLI
	parser, err := kong.New(&rc, kong.Name("wallfold record"), kong.Writers(stdout, stderr),
		kong.Description("Run CMD under perf record and write its wall-clock profile (default wall.svg):\n\n  wallfold record -- make -j8\n  wallfold record -o wall.pb.gz -- ./server --once\n  wallfold record -a -- make -j8      # system-wide: the build's process tree"))
	if err != nil {
		fmt.Fprintf(stderr, "wallfold: %v\n", err)
		return 2
	}
	if _, err := parser.Parse(args); err != nil {
		fmt.Fprintf(stderr, "wallfold record: error: %v\nRun 'wallfold record --help' for usage.\n", err)
		return 2
	}
	cmd := rc.Cmd
	if len(cmd) > 0 && cmd[0] == "--" {
		cmd = cmd[1:]
	}
	if len(cmd) == 0 {
		fmt.Fprintln(stderr, "wallfold record: no command: wallfold record [flags] -- CMD [ARGS]")
		return 2
	}
	if _, err := exec.LookPath(cmd[0]); err != nil {
		fmt.Fprintf(stderr, "wallfold record: %s: command not found\n", cmd[0])
		return 127
	}
	if rc.Output == "" {
		rc.Output = "wall" + extOf(rc.Format)
	} else if rc.Format != "" && rc.Output != "-" && formatOf(rc.Output) != rc.Format {
		fmt.Fprintf(stderr, "wallfold record: -f %s, but %s's extension says %s: give -o a %s name, or leave out -f\n",
			rc.Format, rc.Output, formatOf(rc.Output), extOf(rc.Format))
		return 2
	}
	perf, err := exec.LookPath("perf")
	if err != nil {
		fmt.Fprintln(stderr, "wallfold record: perf not found: install it (Debian: apt-get install linux-perf)")
		return 2
	}
	if msg := perfForbidden(rc.SystemWide); msg != "" {
		fmt.Fprintln(stderr, "wallfold record: "+msg)
		return 2
	}
	tmp, err := os.MkdirTemp("", "wallfold-record-")
	if err != nil {
		fmt.Fprintf(stderr, "wallfold record: %v\n", err)
		return 2
	}
	defer os.RemoveAll(tmp)
	data := filepath.Join(tmp, "perf.data")

	rec := []string{"record", "-q", "-o", data, "-e", "cpu-clock", "-F", strconv.Itoa(rc.Freq), "-g", "--switch-events"}
	if rc.OffCPU {
		rec = append(rec, "-e", "sched:sched_switch")
	}
	if rc.SystemWide {
		rec = append(rec, "-a")
	}
	rec = append(append(rec, "--"), cmd...)
	// Ctrl-C goes to CMD and perf (the terminal signals the whole
	// foreground group); a signal to wallfold alone is passed on to perf,
	// which stops CMD. Either way wallfold waits, still writes the
	// profile and removes its files. Caught (not ignored), so CMD starts
	// with the usual dispositions.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	p := exec.Command(perf, rec...)
	p.Stdin, p.Stdout, p.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := p.Start(); err != nil {
		fmt.Fprintf(stderr, "wallfold record: perf record: %v\n", err)
		return 2
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				p.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	err = p.Wait()
	close(done)
	status := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			fmt.Fprintf(stderr, "wallfold record: perf record: %v\n", err)
			return 2
		}
		status = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			status = 128 + int(ws.Signal())
		}
	}
	if st, err := os.Stat(data); err != nil || st.Size() == 0 {
		fmt.Fprintln(stderr, "wallfold record: perf record wrote no perf.data: see its message above (switch events need Linux ≥ 4.3)")
		if status == 0 {
			status = 2
		}
		return status
	}

	script := []string{"script", "-i", data, "--show-switch-events", "--show-task-events", "--show-lost-events"}
	if rc.SystemWide {
		script = append(script, "-F", "+pid")
	}
	ps := exec.Command(perf, script...)
	ps.Stderr = io.Discard
	pipe, err := ps.StdoutPipe()
	if err != nil {
		fmt.Fprintf(stderr, "wallfold record: %v\n", err)
		return 2
	}
	if err := ps.Start(); err != nil {
		fmt.Fprintf(stderr, "wallfold record: perf script: %v\n", err)
		return 2
	}
	format := rc.Format
	if format == "" {
		format = formatOf(rc.Output)
	}
	fargs := []string{"-f", format, "-o", rc.Output}
	if rc.OffCPU {
		fargs = append(fargs, "--off-cpu")
	}
	if rc.SystemWide {
		// perf names a process by at most 15 bytes of its file's name
		fargs = append(fargs, "--tree="+truncComm(filepath.Base(cmd[0])))
	}
	if rc.Quiet {
		fargs = append(fargs, "-q")
	} else if format != "summary" {
		fargs = append(fargs, "--summary")
	}
	code := run(fargs, stdinPipe(pipe.(*os.File)), stdout, stderr)
	ps.Wait()
	if code != 0 {
		return code
	}
	if !rc.Quiet && rc.Output != "-" {
		fmt.Fprintf(stderr, "wallfold: wrote %s (%s)\n", rc.Output, format)
	}
	return status
}

// truncComm is a command name as the kernel keeps it (TASK_COMM_LEN-1).
func truncComm(name string) string {
	if len(name) > 15 {
		return name[:15]
	}
	return name
}

// perfForbidden says why perf may not record, from perf_event_paranoid
// (empty: it may).
func perfForbidden(systemWide bool) string {
	if os.Geteuid() == 0 {
		return ""
	}
	b, err := os.ReadFile("/proc/sys/kernel/perf_event_paranoid")
	if err != nil {
		return ""
	}
	level, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	need := 1 // switch events and kernel call chains of one's own processes
	if systemWide {
		need = 0 // -a
	}
	if level > need {
		return fmt.Sprintf("perf_event_paranoid is %d: recording needs %d or less (sudo sysctl kernel.perf_event_paranoid=%d), or run as root", level, need, need)
	}
	return ""
}
