package main

// Wakeups (sched:sched_wakeup): a blocked thread is runnable from its
// wakeup to its switch-in; the summary and pprof's waker label name who
// woke it. A made-up CPU-wide trace whose answer is written below.

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// wakeupTrace: process app (pid 10, one thread) and a hog (pid 20) share
// CPU 0. app runs 0..10 ms and blocks; kw (pid 30, CPU 1) wakes it at 30
// ms; the hog keeps the CPU until 60 ms. app runs 60..70 ms and blocks; a
// timer interrupt, while the hog runs, wakes it at 95 ms; it runs from
// 100 ms and exits at 110 ms. So app: on CPU 30 ms, blocked 20 ms (ended
// by kw) + 25 ms (by an interrupt), runnable 30 + 5 ms. noWake leaves
// the wakeups out: then all 80 ms off CPU are blocked.
func wakeupTrace(noWake bool) *rv {
	r := &rv{}
	run := func(comm string, pid int, from, to int64) {
		for at := from + 500; at < to; at += 1000 {
			r.sample(comm, pid, pid, 0, at, "work")
		}
	}
	wake := func(comm string, pid, cpu int, us int64, frames string) {
		if noWake {
			return
		}
		r.head(comm, pid, pid, cpu, us)
		fmt.Fprintf(&r.b, "    sched:sched_wakeup: comm=app pid=10 prio=120 target_cpu=000\n"+
			"\tffffffff813b4585 ttwu_do_activate+0x175 ([kernel.kallsyms])\n"+
			"\tffffffff813b4a49 try_to_wake_up+0x279 ([kernel.kallsyms])\n%s\n", frames)
	}
	syscall := "\tffffffff8144ec39 futex_wake+0x199 ([kernel.kallsyms])\n\tffffffff8224d141 do_syscall_64+0x71 ([kernel.kallsyms])\n"
	timer := "\tffffffff8142d18e hrtimer_wakeup+0x1e ([kernel.kallsyms])\n\tffffffff81330084 __sysvec_apic_timer_interrupt+0x54 ([kernel.kallsyms])\n" +
		"\tffffffff81000e06 asm_sysvec_apic_timer_interrupt+0x16 ([kernel.kallsyms])\n\t            1205 spin+0x44 (/work/hog)\n"
	r.line("app", 10, 10, 0, 0, "PERF_RECORD_COMM: app:10/10")
	r.sw("app", 10, 10, 0, 0, false, 0)
	run("app", 10, 0, 10000)
	r.sw("app", 10, 10, 0, 10000, true, 20)
	r.sw("hog", 20, 20, 0, 10000, false, 10)
	run("hog", 20, 10000, 30000)
	wake("kw", 30, 1, 30000, syscall)
	run("hog", 20, 30000, 60000)
	r.line("hog", 20, 20, 0, 60000, "PERF_RECORD_SWITCH_CPU_WIDE OUT preempt  next pid/tid:    10/10   ")
	r.sw("app", 10, 10, 0, 60000, false, 20)
	run("app", 10, 60000, 70000)
	r.sw("app", 10, 10, 0, 70000, true, 20)
	r.sw("hog", 20, 20, 0, 70000, false, 10)
	run("hog", 20, 70000, 95000)
	wake("hog", 20, 0, 95000, timer)
	run("hog", 20, 95000, 100000)
	r.line("hog", 20, 20, 0, 100000, "PERF_RECORD_SWITCH_CPU_WIDE OUT preempt  next pid/tid:    10/10   ")
	r.sw("app", 10, 10, 0, 100000, false, 20)
	run("app", 10, 100000, 110000)
	r.line("app", 10, 10, 0, 110000, "PERF_RECORD_EXIT(10:10):(1:1)")
	r.sw("hog", 20, 20, 0, 110000, false, 10)
	run("hog", 20, 110000, 120000)
	return r
}

func TestWakeupSummaryNamesWakers(t *testing.T) {
	out, stderr, code := wallfold(t, "-f", "summary", "--scope=process", wakeupTrace(false).file(t))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	app := out[strings.Index(out, "process app"):]
	for _, want := range []string{
		"span: 0.110 s = on CPU 0.030 s (27.3%) + runnable 0.035 s (31.8%) + blocked 0.045 s (40.9%)",
		"blocked time ended by (waker, seconds, wakeups): interrupt 0.025 s (1), kw 0.020 s (1)",
	} {
		if !strings.Contains(app, want) {
			t.Errorf("summary of app lacks %q:\n%s", want, out)
		}
	}
	// Without the wakeups: all of it blocked, and no wakers.
	out, _, _ = wallfold(t, "-f", "summary", "--scope=process", wakeupTrace(true).file(t))
	if !strings.Contains(out, "runnable 0.000 s (0.0%) + blocked 0.080 s") || strings.Contains(out, "ended by") {
		t.Errorf("summary without wakeups:\n%s", out)
	}
}

func TestWakeupPprofWakerLabel(t *testing.T) {
	path := wakeupTrace(false).file(t)
	wallByWaker := func(args ...string) map[string]float64 {
		p := writeProfile(t, append(args, "--off-cpu", "--scope=process", path)...)
		wall := sampleIndex(t, p, "wall")
		got := map[string]float64{}
		for _, s := range p.Sample {
			if s.Label["comm"] != nil && s.Label["comm"][0] != "app" {
				continue
			}
			st, wk := "on-cpu", "-"
			if v := s.Label["state"]; len(v) > 0 {
				st = v[0]
			}
			if v := s.Label["waker"]; len(v) > 0 {
				wk = v[0]
			}
			got[st+"/"+wk] += float64(s.Value[wall]) / 1e9
		}
		return got
	}
	want := map[string]float64{"on-cpu/-": 0.030, "runnable/-": 0.035, "blocked/kw": 0.020, "blocked/interrupt": 0.025}
	got := wallByWaker() // waker is a default label
	if len(got) != len(want) {
		t.Errorf("app's wall by state/waker %v, want %v", got, want)
	}
	for k, v := range want {
		if math.Abs(got[k]-v) > 1e-6 {
			t.Errorf("app's wall %s = %.6f s, want %.3f (all: %v)", k, got[k], v, got)
		}
	}
	if got := wallByWaker("--labels=comm,state"); math.Abs(got["blocked/-"]-0.045) > 1e-6 || len(got) != 3 {
		t.Errorf("--labels without waker: %v, want blocked 0.045 s unlabelled", got)
	}
}

// Without wakeup records [blocked] holds each wait for a CPU after a
// wakeup too: --off-cpu says so once, and not when the trace has them.
func TestNoWakeupsSaid(t *testing.T) {
	for _, c := range []struct {
		path string
		want bool
	}{
		{offTrace("sleep.txt.gz"), true},
		{filepath.Join("testdata", "offcpu2", "selfmeasure.wake.txt.gz"), false},
	} {
		_, stderr, code := wallfold(t, "--off-cpu", "-o", filepath.Join(t.TempDir(), "x.folded"), c.path)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.path, code, stderr)
		}
		if got := strings.Count(stderr, "no sched:sched_wakeup records"); got != map[bool]int{true: 1, false: 0}[c.want] {
			t.Errorf("%s: said %d times, want it said: %v\n%s", c.path, got, c.want, stderr)
		}
	}
	// Without --off-cpu there is no [blocked] to speak of.
	if _, stderr, _ := wallfold(t, "-o", filepath.Join(t.TempDir(), "x.folded"), offTrace("sleep.txt.gz")); strings.Contains(stderr, "sched_wakeup") {
		t.Errorf("said without --off-cpu: %s", stderr)
	}
}
