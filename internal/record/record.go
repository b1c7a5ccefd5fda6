// Package record runs a command under perf record and hands on perf
// script's text: the recording wallfold's model wants (cpu-clock samples
// with call chains, switch events; a sched_switch block stack at every
// switch-out and the wakeups for off-CPU time; -a for a system-wide
// trace). It knows perf's command lines and processes, nothing of the
// text or the profile.
package record

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
)

// Options say what to record.
type Options struct {
	Cmd        []string // the command and its arguments
	SystemWide bool     // perf record -a
	OffCPU     bool     // also sched:sched_switch
	Freq       int      // Hz
}

// Error is why recording failed, and the exit status it ends with.
type Error struct {
	Code int
	Msg  string
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) ExitCode() int { return e.Code }

// Recording is a finished perf record: its data in a temporary
// directory, and the command's exit status.
type Recording struct {
	perf, dir, data string
	systemWide      bool
	// Status is the command's exit status (128+N when killed by signal N).
	Status int
	// sigs: the signals caught from the start of perf record to Close.
	sigs chan os.Signal
}

// Check says whether cmd can be run: there is one (else exit 2), and
// it is found (else the shell's 127).
func Check(cmd []string) error {
	if len(cmd) == 0 {
		return &Error{2, "no command: wallfold record [flags] -- CMD [ARGS]"}
	}
	if _, err := exec.LookPath(cmd[0]); err != nil {
		return &Error{127, cmd[0] + ": command not found"}
	}
	return nil
}

// Run records o.Cmd; Close the Recording to remove its files. The
// command's output goes to the process's own stdout and stderr, and
// perf's messages to stderr. From here to Close, SIGINT, SIGQUIT,
// SIGTERM and SIGHUP are caught: while perf records they go on to it
// (see record), afterwards they wait, so that the profile is still
// written and the files removed.
func Run(o Options) (*Recording, error) {
	if err := Check(o.Cmd); err != nil {
		return nil, err
	}
	perf, err := exec.LookPath("perf")
	if err != nil {
		return nil, &Error{2, "perf not found: install it (Debian: apt-get install linux-perf)"}
	}
	if msg := perfForbidden(o.SystemWide); msg != "" {
		return nil, &Error{2, msg}
	}
	dir, err := os.MkdirTemp("", "wallfold-record-")
	if err != nil {
		return nil, &Error{2, err.Error()}
	}
	r := &Recording{perf: perf, dir: dir, data: filepath.Join(dir, "perf.data"), systemWide: o.SystemWide,
		sigs: make(chan os.Signal, 4)}
	signal.Notify(r.sigs, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGHUP)
	status, err := r.record(o)
	if err != nil {
		r.Close()
		return nil, err
	}
	r.Status = status
	if st, err := os.Stat(r.data); err != nil || st.Size() == 0 {
		r.Close()
		if status == 0 {
			status = 2
		}
		return nil, &Error{status, "perf record wrote no perf.data: see its message above (switch events need Linux ≥ 4.3)"}
	}
	return r, nil
}

// wakeupEvents are the wakeups --off-cpu records beside the switches: a
// blocked thread is runnable from its wakeup to its switch-in, and the
// waker is named. Per task, perf sees only the wakeups that happen while
// a traced thread runs (a timer firing on another task's CPU is missed);
// -a sees all.
var wakeupEvents = []string{"-e", "sched:sched_wakeup", "-e", "sched:sched_wakeup_new"}

// record runs perf record and returns the command's exit status.
func (r *Recording) record(o Options) (int, error) {
	args := recordArgs(o, r.data)
	// Ctrl-C goes to CMD and perf (the terminal signals the whole
	// foreground group); a signal to wallfold alone is passed on to perf,
	// which stops CMD. Either way wallfold waits, still writes the
	// profile and removes its files. Caught (not ignored), so CMD starts
	// with the usual dispositions.
	p := exec.Command(r.perf, args...)
	p.Stdin, p.Stdout, p.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := p.Start(); err != nil {
		return 0, &Error{2, fmt.Sprintf("perf record: %v", err)}
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-r.sigs:
				p.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	err := p.Wait()
	close(done)
	if err == nil {
		return 0, nil
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return 0, &Error{2, fmt.Sprintf("perf record: %v", err)}
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), nil
	}
	return ee.ExitCode(), nil
}

// Script starts perf script on the recording and returns its text; call
// wait when the text has been read.
func (r *Recording) Script() (text *os.File, wait func(), err error) {
	ps := exec.Command(r.perf, scriptArgs(r.data, r.systemWide)...)
	ps.Stderr = io.Discard
	pipe, err := ps.StdoutPipe()
	if err != nil {
		return nil, nil, &Error{2, err.Error()}
	}
	if err := ps.Start(); err != nil {
		return nil, nil, &Error{2, fmt.Sprintf("perf script: %v", err)}
	}
	return pipe.(*os.File), func() { ps.Wait() }, nil
}

// OffCPURecipe is the perf record line of an off-CPU recording: the clock
// keeps its frequency (a term of its own) while -c 1 gives
// sched:sched_switch, which takes no period term, a sample with its stack
// at every switch-out. (-F 999 alone puts the tracepoint in frequency
// mode too: only some switch-outs get a stack; -F and -c together are
// refused.) The wakeups, every one too, tell a blocked thread's wait for
// a CPU after its wakeup. Checked on perf 6.1 and 7.2.
const OffCPURecipe = "perf record -e cpu-clock/freq=999/ -e sched:sched_switch -c 1 -g --switch-events -e sched:sched_wakeup -e sched:sched_wakeup_new (as wallfold record --off-cpu does)"

// ScriptFields are perf script's fields for a pid column that keep the
// callchains: -F +pid alone prints tracepoint samples without theirs
// (perf 6.1 and 7.2); +ip,+sym,+symoff,+dso print them as by default.
const ScriptFields = "+pid,+ip,+sym,+symoff,+dso"

// recordArgs is perf record's command line for o, writing to data.
func recordArgs(o Options, data string) []string {
	args := []string{"record", "-q", "-o", data}
	if o.OffCPU {
		args = append(args, "-e", fmt.Sprintf("cpu-clock/freq=%d/", o.Freq), "-e", "sched:sched_switch", "-c", "1")
	} else {
		args = append(args, "-e", "cpu-clock", "-F", strconv.Itoa(o.Freq))
	}
	args = append(args, "-g", "--switch-events")
	if o.OffCPU {
		args = append(args, wakeupEvents...) // every one: -c 1
	}
	if o.SystemWide {
		args = append(args, "-a")
	}
	return append(append(args, "--"), o.Cmd...)
}

// scriptArgs is perf script's command line for a recording in data.
func scriptArgs(data string, systemWide bool) []string {
	args := []string{"script", "-i", data, "--show-switch-events", "--show-task-events", "--show-lost-events"}
	if systemWide {
		args = append(args, "-F", ScriptFields)
	}
	return args
}

// Close removes the recording's files and stops catching signals.
func (r *Recording) Close() {
	os.RemoveAll(r.dir)
	signal.Stop(r.sigs)
}

// TreeName is the name perf gives the command's process: the kernel
// keeps at most 15 bytes of its file's name (TASK_COMM_LEN-1).
func TreeName(cmd string) string {
	name := filepath.Base(cmd)
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
