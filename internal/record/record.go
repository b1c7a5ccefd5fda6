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
	"time"
)

// Options say what to record: perf record's flags of the same names.
type Options struct {
	Cmd        []string // the command and its arguments (none with PID)
	SystemWide bool     // perf record -a
	OffCPU     bool     // also sched:sched_switch
	Freq       int      // Hz
	CallGraph  string   // --call-graph fp|dwarf[,SIZE]|lbr ("": -g)
	PID        string   // -p: attach to these processes
	ClockID    string   // -k
	MmapPages  string   // -m
	Events     []string // -e, beside the clock
	BuildID    bool     // without -B (wallfold gives -B by default)
	PerfArgs   []string // verbatim, after wallfold's own
	Duration   time.Duration
	Inline     bool // perf script --inline
}

// Error is why recording failed, and the exit status it ends with.
type Error struct {
	Code int
	Msg  string
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) ExitCode() int { return e.Code }

// Recording is a finished perf record: its data in an unlinked file
// (nothing to remove, even when wallfold is killed), and the command's
// exit status.
type Recording struct {
	perf       string
	data       *os.File
	systemWide bool
	feat       features
	inline     bool
	// Status is the command's exit status (128+N when killed by signal N).
	Status int
	// sigs: the signals caught from the start of perf record to Close.
	sigs chan os.Signal
}

// Check says whether o can be recorded: a command (else exit 2) that is
// found (else the shell's 127), or -p and no command.
func Check(o Options) error {
	if o.PID != "" {
		if len(o.Cmd) > 0 {
			return &Error{2, "-p attaches to running processes: give no command (--duration D or Ctrl-C ends the recording)"}
		}
		return nil
	}
	if len(o.Cmd) == 0 {
		return &Error{2, "no command: wallfold record [flags] -- CMD [ARGS], or wallfold record -p PID [--duration D]"}
	}
	if _, err := exec.LookPath(o.Cmd[0]); err != nil {
		return &Error{127, o.Cmd[0] + ": command not found"}
	}
	return nil
}

// Run records o; Close the Recording to stop catching signals. The
// command's output goes to the process's own stdout and stderr, and
// perf's messages to stderr. From here to Close, SIGINT, SIGQUIT,
// SIGTERM and SIGHUP are caught: while perf records they go on to it
// (see record), afterwards they wait, so that the profile is still
// written.
func Run(o Options, stderr io.Writer) (*Recording, error) {
	if err := Check(o); err != nil {
		return nil, err
	}
	perf, err := exec.LookPath("perf")
	if err != nil {
		return nil, &Error{2, "perf not found: install it (Debian: apt-get install linux-perf)"}
	}
	if msg := perfForbidden(o.SystemWide); msg != "" {
		return nil, &Error{2, msg}
	}
	// perf.data is a file already unlinked, written and read through
	// /proc/PID/fd/N: when wallfold dies, even of SIGKILL, nothing is left.
	data, err := os.CreateTemp("", "wallfold-record-*.data")
	if err != nil {
		return nil, &Error{2, err.Error()}
	}
	os.Remove(data.Name())
	r := &Recording{perf: perf, data: data, systemWide: o.SystemWide, feat: probe(perf), inline: o.Inline,
		sigs: make(chan os.Signal, 4)}
	signal.Notify(r.sigs, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGHUP)
	status, err := r.record(o, stderr)
	if err != nil {
		r.Close()
		return nil, err
	}
	r.Status = status
	if st, err := data.Stat(); err != nil || st.Size() == 0 {
		r.Close()
		if status == 0 {
			status = 2
		}
		return nil, &Error{status, "perf record wrote no perf.data: see its message above (switch events need Linux ≥ 4.3)"}
	}
	return r, nil
}

// path is the recording's name for perf.
func (r *Recording) path() string {
	return fmt.Sprintf("/proc/%d/fd/%d", os.Getpid(), r.data.Fd())
}

// record runs perf record and returns the command's exit status, or an
// *Error when perf itself failed (then it did not finish perf.data).
func (r *Recording) record(o Options, stderr io.Writer) (int, error) {
	args := recordArgs(o, r.path(), r.feat)
	// Ctrl-C goes to CMD and perf (the terminal signals the whole
	// foreground group); a signal to wallfold alone is passed on to perf,
	// which stops CMD. Either way wallfold waits, still writes the
	// profile. Caught (not ignored), so CMD starts with the usual
	// dispositions. perf dies with wallfold (SIGKILL as its parent-death
	// signal), and CMD with perf (setpriv, see execWrapper).
	p := exec.Command(r.perf, args...)
	perfErr := &tail{out: stderr}
	p.Stdin, p.Stdout, p.Stderr = os.Stdin, os.Stdout, perfErr
	p.ExtraFiles = []*os.File{os.Stderr} // fd 3: CMD's stderr (execWrapper)
	p.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := p.Start(); err != nil {
		return 0, &Error{2, fmt.Sprintf("perf record: %v", err)}
	}
	done := make(chan struct{})
	stopAfter := o.Duration
	if len(o.Cmd) == 0 {
		stopAfter = 0 // attached: perf's sleep ends it (attachTimer)
	}
	go r.forward(p.Process, stopAfter, done)
	err := p.Wait()
	close(done)
	if err == nil {
		return 0, nil
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return 0, &Error{2, fmt.Sprintf("perf record: %v", err)}
	}
	ws, _ := ee.Sys().(syscall.WaitStatus)
	if !finished(r.data) {
		return 0, perfFailed("perf record", ws, perfErr, Recipe(o, r.feat), o.BuildID)
	}
	// perf finished its recording and passes on how CMD ended (it raises
	// CMD's signal on itself)
	switch {
	case len(o.Cmd) == 0:
		return 0, nil // attached, stopped by SIGINT
	case ws.Signaled():
		return 128 + int(ws.Signal()), nil
	}
	return ee.ExitCode(), nil
}

// forward passes the signals wallfold catches on to perf, and stops it
// (SIGINT, as Ctrl-C) when the duration is over, until done.
func (r *Recording) forward(p *os.Process, d time.Duration, done chan struct{}) {
	var over <-chan time.Time
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		over = t.C
	}
	for {
		select {
		case s := <-r.sigs:
			p.Signal(s)
		case <-over:
			p.Signal(syscall.SIGINT)
		case <-done:
			return
		}
	}
}

// Script starts perf script on the recording and returns its text; call
// wait when the text has been read: it says how perf script failed, with
// its last lines on stderr.
func (r *Recording) Script() (text *os.File, wait func() error, err error) {
	ps := exec.Command(r.perf, scriptArgs(r.path(), r.systemWide, r.feat, r.inline)...)
	errTail := &tail{}
	ps.Stderr = errTail
	ps.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	pipe, err := ps.StdoutPipe()
	if err != nil {
		return nil, nil, &Error{2, err.Error()}
	}
	if err := ps.Start(); err != nil {
		return nil, nil, &Error{2, fmt.Sprintf("perf script: %v", err)}
	}
	return pipe.(*os.File), func() error {
		var ee *exec.ExitError
		if err := ps.Wait(); errors.As(err, &ee) {
			ws, _ := ee.Sys().(syscall.WaitStatus)
			if ws.Signaled() && ws.Signal() == syscall.SIGPIPE {
				return nil // wallfold stopped reading
			}
			return &Error{2, fmt.Sprintf("perf script failed (%s). Its last lines on stderr:\n%s",
				howEnded(ws), errTail.lines(tailLines))}
		}
		return nil
	}, nil
}

// Close drops the recording and stops catching signals.
func (r *Recording) Close() {
	r.data.Close()
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
