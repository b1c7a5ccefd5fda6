package record

import (
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// features is what the installed perf supports, probed once per run from
// its option lists (perf record -h, perf script -h).
type features struct {
	// noBPFEvent: perf record --no-bpf-event. Without it perf polls a
	// side band for BPF programs and its exit waits on that poll (0.64-1.08 s
	// of a 20 MB recording's exit, issue 25).
	noBPFEvent bool
	// inline: perf script --inline/--no-inline. perf 7.x resolves inline
	// frames by default (4.5 s of a 5.9 s conversion, issue 25); --no-inline
	// is harmless where it is not the default.
	inline bool
	// pdeathsigExec: setpriv --pdeathsig, which makes the command die with
	// perf (util-linux ≥ 2.33).
	pdeathsigExec string
}

// probe asks perf what it supports; what cannot be told is taken as not
// supported.
func probe(perf string) features {
	var f features
	rec, _ := exec.Command(perf, "record", "-h").CombinedOutput() // exits 129 after the list
	f.noBPFEvent = strings.Contains(string(rec), "--no-bpf-event")
	script, _ := exec.Command(perf, "script", "-h").CombinedOutput()
	f.inline = strings.Contains(string(script), "--inline")
	if sp, err := exec.LookPath("setpriv"); err == nil {
		if h, _ := exec.Command(sp, "--help").CombinedOutput(); strings.Contains(string(h), "--pdeathsig") {
			f.pdeathsigExec = sp
		}
	}
	return f
}

// wakeupEvents are the wakeups --off-cpu records beside the switches: a
// blocked thread is runnable from its wakeup to its switch-in, and the
// waker is named. Per task, perf sees only the wakeups that happen while
// a traced thread runs (a timer firing on another task's CPU is missed);
// -a sees all.
var wakeupEvents = []string{"-e", "sched:sched_wakeup", "-e", "sched:sched_wakeup_new"}

// execWrapper runs the command with the stderr wallfold was given (fd 3;
// perf's own stderr is a pipe that wallfold reads for perf's messages)
// and, through setpriv, killed when perf dies (a parent-death signal is
// not inherited across fork, so perf's own does not reach its child).
const execWrapper = `exec 2>&3 3>&-; exec "$@"`

// recordArgs is perf record's command line for o, writing to data.
func recordArgs(o Options, data string, f features) []string {
	args := perfOptions(o, data, f)
	if len(o.Cmd) == 0 {
		return append(args, attachTimer(o)...)
	}
	args = append(args, "--", "/bin/sh", "-c", execWrapper, "wallfold-exec")
	if f.pdeathsigExec != "" {
		args = append(args, f.pdeathsigExec, "--pdeathsig", "KILL", "--")
	}
	return append(args, o.Cmd...)
}

// attachTimer is what ends an attached recording after --duration: perf
// runs sleep as its workload once its events are on, as perf users write
// it (perf record -p PID -- sleep 10), so that perf's own start (seconds
// on a busy machine or a large process) is not taken from the duration.
func attachTimer(o Options) []string {
	if o.Duration <= 0 {
		return nil
	}
	return []string{"--", "sleep", strconv.FormatFloat(o.Duration.Seconds(), 'f', -1, 64)}
}

// Recipe is the perf record command line that records o by hand, into
// perf.data: wallfold's, without its wrapper of the command, quoted for a
// shell.
func Recipe(o Options, f features) string {
	args := perfOptions(o, "perf.data", f)
	if len(o.Cmd) > 0 {
		args = append(append(args, "--"), o.Cmd...)
	} else {
		args = append(args, attachTimer(o)...)
	}
	quoted := []string{"perf"}
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`;&|<>()*?[]{}~#!") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		quoted = append(quoted, a)
	}
	return strings.Join(quoted, " ")
}

// perfOptions are perf record's options for o, writing to data.
func perfOptions(o Options, data string, f features) []string {
	args := []string{"record", "-q", "-o", data}
	if o.OffCPU {
		args = append(args, "-e", fmt.Sprintf("cpu-clock/freq=%d/", o.Freq), "-e", "sched:sched_switch", "-c", "1")
	} else {
		args = append(args, "-e", "cpu-clock", "-F", strconv.Itoa(o.Freq))
	}
	if o.CallGraph != "" {
		args = append(args, "--call-graph", o.CallGraph)
	} else {
		args = append(args, "-g")
	}
	args = append(args, "--switch-events")
	if o.OffCPU {
		args = append(args, wakeupEvents...) // every one: -c 1
	}
	for _, e := range o.Events {
		args = append(args, "-e", e)
	}
	if o.SystemWide {
		args = append(args, "-a")
	}
	for _, opt := range []struct{ flag, value string }{{"-p", o.PID}, {"-k", o.ClockID}, {"-m", o.MmapPages}} {
		if opt.value != "" {
			args = append(args, opt.flag, opt.value)
		}
	}
	// no build ids unless asked: perf script reads the recording at once,
	// on the same files, and collecting them takes perf record's exit
	// 0.18-0.36 s of a 20 MB recording (perf 6.1.187 crashed on them in
	// 2 of 22 runs, "assertion failed at util/build-id.c:1010")
	if !o.BuildID {
		args = append(args, "-B")
	}
	if f.noBPFEvent {
		args = append(args, "--no-bpf-event")
	}
	return append(args, o.PerfArgs...)
}

// scriptArgs is perf script's command line for a recording in data.
func scriptArgs(data string, systemWide bool, f features, inline bool) []string {
	args := []string{"script", "-i", data, "--show-switch-events", "--show-task-events", "--show-lost-events"}
	if systemWide {
		args = append(args, "-F", ScriptFields)
	}
	if f.inline {
		if inline {
			args = append(args, "--inline")
		} else {
			args = append(args, "--no-inline")
		}
	}
	return args
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
