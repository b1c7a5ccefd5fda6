package fold

import (
	"bufio"
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wallfold/wallfold/internal/testtrace"
	"github.com/wallfold/wallfold/state"
)

// countSwitchStacks counts in perf script text, without the package's
// parser, the switch-outs and the sched_switch samples followed by a
// frame line.
func countSwitchStacks(text []byte) (outs, stacks int) {
	sc := bufio.NewScanner(bytes.NewReader(text))
	afterSwitch := false
	for sc.Scan() {
		line := sc.Text()
		if afterSwitch && strings.HasPrefix(line, "\t") {
			stacks++
		}
		afterSwitch = strings.Contains(line, " sched:sched_switch: ")
		if strings.Contains(line, "PERF_RECORD_SWITCH OUT") || strings.Contains(line, "PERF_RECORD_SWITCH_CPU_WIDE OUT") {
			outs++
		}
	}
	return outs, stacks
}

// Three recordings of one sleeping workload (testdata/switchstacks): with
// the old recipe's frequency-mode tracepoint only some switch-outs have a
// stack, and one warning says how many and how to record them all; with
// -c 1 every switch-out has one, and nothing is said; scripted with
// -F +pid the samples have no callchain, and the warning names the
// fields that keep them. Without --off-cpu the stacks are not used:
// nothing is said.
func TestSwitchCoverageRecorded(t *testing.T) {
	for _, tt := range []struct {
		name string
		want []string // in the warning; none: no warning
	}{
		{"freq", []string{"record a stack at every switch-out with perf record -e cpu-clock/freq=999/ -e sched:sched_switch -c 1"}},
		{"every", nil},
		{"nochain", []string{"355 of 355 sched:sched_switch samples carry no callchain", "-F +pid,+ip,+sym,+symoff,+dso"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			text := testtrace.Read(t, filepath.Join("testdata", "switchstacks", tt.name+".txt.gz"))
			outs, stacks := countSwitchStacks(text)
			_, stderr, err := runText(t, string(text), Config{OffCPU: true})
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(stderr, "off-CPU stacks:"); n != map[bool]int{true: 1, false: 0}[tt.want != nil] {
				t.Fatalf("%d of %d switch-outs with a stack (counted): %d coverage warnings in\n%s", stacks, outs, n, stderr)
			}
			if tt.want == nil {
				if stacks < outs*9/10 {
					t.Errorf("silent, but the text has stacks at %d of %d switch-outs", stacks, outs)
				}
				return
			}
			counted := fmt.Sprintf("%d of %d switch-outs (%.1f %%)", stacks, outs, 100*float64(stacks)/float64(outs))
			for _, w := range append(tt.want, counted) {
				if !strings.Contains(stderr, w) {
					t.Errorf("warning lacks %q:\n%s", w, stderr)
				}
			}
			if _, stderr, _ := runText(t, string(text), Config{}); strings.Contains(stderr, "off-CPU stacks") {
				t.Errorf("without --off-cpu: %s", stderr)
			}
		})
	}
}

// coverageTrace writes a per-task trace of processes, each one thread
// (pid = tid) that runs 0.5 ms with a cpu-clock sample and sleeps 0.5 ms,
// n times; the first stacked of its switch-outs have a sched_switch
// sample with a frame (bare: without).
func coverageTrace(procs []struct{ pid, n, stacked int }, bare bool) string {
	var b strings.Builder
	for i := 0; ; i++ {
		any := false
		for _, p := range procs {
			if i >= p.n {
				continue
			}
			any = true
			t := 1 + float64(i)*1e-3 + float64(p.pid)*1e-6
			fmt.Fprintf(&b, "app %d/%d %.6f: PERF_RECORD_SWITCH IN\n", p.pid, p.pid, t)
			fmt.Fprintf(&b, "app %d/%d %.6f: 250000 cpu-clock/freq=999/:\n\t1000 work+0x1 (/bin/app)\n\n", p.pid, p.pid, t+0.0002)
			if i < p.stacked {
				fmt.Fprintf(&b, "app %d/%d %.6f: 1 sched:sched_switch: prev_comm=app prev_pid=%d prev_state=S ==> next_comm=swapper/0 next_pid=0\n", p.pid, p.pid, t+0.0005, p.pid)
				if !bare {
					b.WriteString("\tffffffff81000000 schedule+0x1 ([kernel.kallsyms])\n")
				}
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "app %d/%d %.6f: PERF_RECORD_SWITCH OUT\n", p.pid, p.pid, t+0.0005)
		}
		if !any {
			return b.String()
		}
	}
}

// The threshold, per group: silent at 90 % of a group's switch-outs with
// a stack, one warning below it (naming the lowest group when there are
// several), unless 99 % of all switch-outs have one; a group with fewer than 20 switch-outs is
// not judged alone; samples without a callchain are named.
func TestSwitchCoverageThreshold(t *testing.T) {
	type proc = struct{ pid, n, stacked int }
	for _, tt := range []struct {
		name  string
		scope state.Scope
		procs []proc
		bare  bool
		want  string // "": silent
	}{
		{"90 %", state.Auto, []proc{{10, 100, 90}}, false, ""},
		{"89 %", state.Auto, []proc{{10, 100, 89}}, false, "89 of 100 switch-outs (89.0 %)"},
		{"one process low", state.Process, []proc{{10, 200, 200}, {20, 40, 35}}, false, "235 of 240 switch-outs (97.9 %) have a sched_switch stack; the rest are charged at the thread's last CPU sample (1 of 2 groups under 90 %, the lowest 35 of 40 in group 20)"},
		// a stack at every switch-out but a group's few (an exit, a loss):
		// 99 % of all have one (a pgbench run: 126,506 of 126,522, one
		// group 35 of 40), so the recipe is followed already
		{"all but a few", state.Process, []proc{{10, 4000, 4000}, {20, 40, 35}}, false, ""},
		{"small group", state.Process, []proc{{10, 200, 200}, {20, 19, 0}}, false, ""},
		{"workload low", state.Workload, []proc{{10, 200, 200}, {20, 40, 0}}, false, "200 of 240 switch-outs (83.3 %)"},
		{"workload high", state.Workload, []proc{{10, 200, 200}, {20, 40, 30}}, false, ""},
		{"no callchain", state.Auto, []proc{{10, 100, 100}}, true, "0 of 100 switch-outs (0.0 %) have a sched_switch stack; the rest are charged at the thread's last CPU sample; 100 of 100 sched:sched_switch samples carry no callchain"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, err := runText(t, coverageTrace(tt.procs, tt.bare), Config{OffCPU: true, Scope: tt.scope})
			if err != nil {
				t.Fatal(err)
			}
			n := strings.Count(stderr, "off-CPU stacks:")
			switch {
			case tt.want == "" && n != 0:
				t.Errorf("want silence:\n%s", stderr)
			case tt.want != "" && (n != 1 || !strings.Contains(stderr, tt.want)):
				t.Errorf("want one warning with %q:\n%s", tt.want, stderr)
			}
			if tt.want != "" && !tt.bare && !strings.Contains(stderr, "record a stack at every switch-out") {
				t.Errorf("no recipe:\n%s", stderr)
			}
		})
	}
}
