package parse

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Most inputs below are lines copied from /work/shared/traces and
// /work/shared/corpus/{inferno,flamegraph}. The comms that no recorded
// trace contains ("Web Content", "kworker/3:1H", "[ET_NET 0]",
// "V8 WorkerThread") and the events "sched:sched_switch" /
// "cpu/event=0x3c/u" are placed into copies of real lines, keeping perf's
// column layout.

// fr is a Frame with strings, for comparing.
type fr struct {
	Addr, Sym, Off, DSO string
	Inlined             bool
}

// rec is a Record with strings, for comparing.
type rec struct {
	Kind      Kind
	Line      int
	Comm      string
	PID, TID  int
	CPU       int
	Time      int64
	HasTime   bool
	Period    uint64
	HasPeriod bool
	Event     string
	Frames    []fr
	Payload   string

	Out, Preempt         bool
	OtherPID, OtherTID   int
	ParentPID, ParentTID int
	NewComm              string
	Lost                 uint64
}

func toRec(r *Record) rec {
	out := rec{
		Kind: r.Kind, Line: r.Line, Comm: string(r.Comm), PID: r.PID, TID: r.TID, CPU: r.CPU,
		Time: r.Time, HasTime: r.HasTime, Period: r.Period, HasPeriod: r.HasPeriod,
		Event: string(r.Event), Payload: string(r.Payload), Out: r.Out, Preempt: r.Preempt,
		OtherPID: r.OtherPID, OtherTID: r.OtherTID, ParentPID: r.ParentPID, ParentTID: r.ParentTID,
		NewComm: string(r.NewComm), Lost: r.Lost,
	}
	for _, f := range r.Frames {
		out.Frames = append(out.Frames, fr{string(f.Addr), string(f.Sym), string(f.Off), string(f.DSO), f.Inlined})
	}
	return out
}

type readResult struct {
	recs    []rec
	skipped int
	errLine []int
}

func readAll(t *testing.T, in string) readResult {
	t.Helper()
	r := NewReader(strings.NewReader(in), "test.txt")
	var res readResult
	for r.Scan() {
		res.recs = append(res.recs, toRec(r.Record()))
		if len(res.recs) > 10000 {
			t.Fatal("runaway scan")
		}
	}
	if err := r.Err(); err != nil {
		t.Fatalf("Err() = %v", err)
	}
	res.skipped = r.Skipped()
	for _, e := range r.Errors() {
		res.errLine = append(res.errLine, e.Line)
	}
	return res
}

// sample builds the expected record of a sample.
func sample(line int, comm string, pid, tid, cpu int, timeNS int64, period uint64, event string, frames ...fr) rec {
	r := rec{Kind: KindSample, Line: line, Comm: comm, PID: pid, TID: tid, CPU: cpu,
		Time: timeNS, HasTime: true, Period: period, HasPeriod: true, Event: event, Frames: frames}
	if period == 0 {
		r.Period, r.HasPeriod = 1, false
	}
	return r
}

func noTime(r rec) rec { r.Time, r.HasTime = 0, false; return r }

func withPayload(r rec, p string) rec { r.Payload = p; return r }

func side(kind Kind, line int, comm string, pid, tid, cpu int, timeNS int64) rec {
	return rec{Kind: kind, Line: line, Comm: comm, PID: pid, TID: tid, CPU: cpu, Time: timeNS, HasTime: true}
}

func sw(r rec, out, preempt bool) rec { r.Out, r.Preempt = out, preempt; return r }

func other(r rec, pid, tid int) rec { r.OtherPID, r.OtherTID = pid, tid; return r }

func parent(r rec, pid, tid int) rec { r.ParentPID, r.ParentTID = pid, tid; return r }

// Frames of the real traces, reused below.
var (
	phasesStack = "\t            1205 spin_for+0x44 (/work/steering/lab/src/phases)\n" +
		"\t            1230 serial_phase+0x9 (/work/steering/lab/src/phases)\n" +
		"\t            1349 main+0x3a (/work/steering/lab/src/phases)\n" +
		"\t           2724a __libc_start_call_main+0x7a (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
	phasesFrames = []fr{
		{"1205", "spin_for", "0x44", "/work/steering/lab/src/phases", false},
		{"1230", "serial_phase", "0x9", "/work/steering/lab/src/phases", false},
		{"1349", "main", "0x3a", "/work/steering/lab/src/phases", false},
		{"2724a", "__libc_start_call_main", "0x7a", "/usr/lib/x86_64-linux-gnu/libc.so.6", false},
	}
	funcabStack = "\t          400577 func_b (/root/lang/func_ab)\n" +
		"\t          4005b1 main (/root/lang/func_ab)\n" +
		"\t    7f9ca5486ec5 __libc_start_main (/lib/x86_64-linux-gnu/libc-2.19.so)\n"
	funcabFrames = []fr{
		{"400577", "func_b", "", "/root/lang/func_ab", false},
		{"4005b1", "main", "", "/root/lang/func_ab", false},
		{"7f9ca5486ec5", "__libc_start_main", "", "/lib/x86_64-linux-gnu/libc-2.19.so", false},
	}
	phasesLeaf    = "\t            1205 spin_for+0x44 (/work/steering/lab/src/phases)\n"
	phasesLeafFr  = fr{"1205", "spin_for", "0x44", "/work/steering/lab/src/phases", false}
	spinForNoG    = "564ceac1a202 spin_for+0x41 (/work/steering/lab/src/phases)"
	spinForNoGFr  = fr{"564ceac1a202", "spin_for", "0x41", "/work/steering/lab/src/phases", false}
	spinForNoG2   = "564ceac1a1ff spin_for+0x3e (/work/steering/lab/src/phases)"
	spinForNoG2Fr = fr{"564ceac1a1ff", "spin_for", "0x3e", "/work/steering/lab/src/phases", false}
)

func TestReaderSampleHeaders(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []rec
	}{
		{
			name: "tid only, period, cpu-clock (phases.txt)",
			in:   "phases  5756   273.126215:    1001001 cpu-clock: \n" + phasesStack + "\n",
			want: []rec{sample(1, "phases", -1, 5756, -1, 273126215000, 1001001, "cpu-clock", phasesFrames...)},
		},
		{
			name: "pid/tid (phases.pid.txt)",
			in:   "phases  5756/5756    273.126215:    1001001 cpu-clock: \n" + phasesStack + "\n",
			want: []rec{sample(1, "phases", 5756, 5756, -1, 273126215000, 1001001, "cpu-clock", phasesFrames...)},
		},
		{
			name: "tid and cpu column (syswide.txt)",
			in:   "phases  6028 [000]   294.371722:    1001001 cpu-clock: \n" + phasesLeaf + "\n",
			want: []rec{sample(1, "phases", -1, 6028, 0, 294371722000, 1001001, "cpu-clock", phasesLeafFr)},
		},
		{
			name: "pid/tid and cpu column (syswide.pid.txt)",
			in:   "perf-exec  6028/6028  [000]   294.370729:    1001001 cpu-clock: \n" + phasesLeaf + "\n",
			want: []rec{sample(1, "perf-exec", 6028, 6028, 0, 294370729000, 1001001, "cpu-clock", phasesLeafFr)},
		},
		{
			name: "padded pid/tid and cpu (example-perf-stacks), no period",
			in:   "perf   977/977   [000] 7628263.042515: cycles: \n\tffffffff8104f45a native_write_msr_safe ([kernel.kallsyms])\n\n",
			want: []rec{sample(1, "perf", 977, 977, 0, 7628263042515000, 0, "cycles",
				fr{"ffffffff8104f45a", "native_write_msr_safe", "", "[kernel.kallsyms]", false})},
		},
		{
			name: "pid/tid, cpu 000, no period (perf-iperf-stacks-pidtid-01)",
			in:   "iperf 27409/28744 [000] 441995.133575: cpu-clock: \n\t            f7eb __libc_recv (/lib/x86_64-linux-gnu/libpthread-2.19.so)\n\n",
			want: []rec{sample(1, "iperf", 27409, 28744, 0, 441995133575000, 0, "cpu-clock",
				fr{"f7eb", "__libc_recv", "", "/lib/x86_64-linux-gnu/libpthread-2.19.so", false})},
		},
		{
			name: "cpu 012, 7-digit seconds, no trailing space, space-indented frames (versioned-vmlinux)",
			in: "swapper     0 [012] 2281339.604067:   20834821 cycles:\n" +
				"        ffffffffc09ace93 bpf_prog_2b956549c660136a_uni_l4lb+0xb80 (bpf_prog_2b956549c660136a_uni_l4lb)\n" +
				"        ffffffffb8f03eaa net_rx_action+0x13a (/usr/lib/debug/boot/vmlinux-5.4.14-cloudflare-2020.1.11)\n\n",
			want: []rec{sample(1, "swapper", -1, 0, 12, 2281339604067000, 20834821, "cycles",
				fr{"ffffffffc09ace93", "bpf_prog_2b956549c660136a_uni_l4lb", "0xb80", "bpf_prog_2b956549c660136a_uni_l4lb", false},
				fr{"ffffffffb8f03eaa", "net_rx_action", "0x13a", "/usr/lib/debug/boot/vmlinux-5.4.14-cloudflare-2020.1.11", false})},
		},
		{
			name: "two spaces before time (perf-mirageos), comm with dash",
			in:   "mir-console 23166 [000]  1333.768765: cpu-clock: \n\t          44bee3 camlLwt__return_1285 (/mnt/mirage/mirage-skeleton/console.unix2/_build/main.native)\n\n",
			want: []rec{sample(1, "mir-console", -1, 23166, 0, 1333768765000, 0, "cpu-clock",
				fr{"44bee3", "camlLwt__return_1285", "", "/mnt/mirage/mirage-skeleton/console.unix2/_build/main.native", false})},
		},
		{
			name: "event right-padded to equal width (perf-cycles-instructions)",
			in:   "cksum 21804 [000] 1410598.006198:       cycles: \n\t            1ad1 cksum (/usr/bin/cksum)\n\n",
			want: []rec{sample(1, "cksum", -1, 21804, 0, 1410598006198000, 0, "cycles",
				fr{"1ad1", "cksum", "", "/usr/bin/cksum", false})},
		},
		{
			name: "cycles:uppp, period 1 (cpp-stacks-std-function)",
			in:   "perf_stacks 20602  2217.581638:          1 cycles:uppp: \n\tffffffff9c2009e7 [unknown] ([kernel.kallsyms])\n\t    7f443cc6f090 _start (/lib/x86_64-linux-gnu/ld-2.27.so)\n\n",
			want: []rec{sample(1, "perf_stacks", -1, 20602, -1, 2217581638000, 1, "cycles:uppp",
				fr{"ffffffff9c2009e7", "[unknown]", "", "[kernel.kallsyms]", false},
				fr{"7f443cc6f090", "_start", "", "/lib/x86_64-linux-gnu/ld-2.27.so", false})},
		},
		{
			name: "cpu-clock:uhH with trailing space (go-stacks)",
			in:   "go  6157  1224.147545:     250000 cpu-clock:uhH: \n\t          414297 runtime.mapassign_faststr+0x277 (/usr/lib/go/bin/go)\n\tfffd8118e8240489 [unknown] ([unknown])\n\n",
			want: []rec{sample(1, "go", -1, 6157, -1, 1224147545000, 250000, "cpu-clock:uhH",
				fr{"414297", "runtime.mapassign_faststr", "0x277", "/usr/lib/go/bin/go", false},
				fr{"fffd8118e8240489", "[unknown]", "", "[unknown]", false})},
		},
		{
			name: "cpu-clock:uhH without trailing space (empty-line.txt)",
			in:   "inline-counter 26037  8801.193547:     250000 cpu-clock:uhH:\n\t          401b97 main+0x1f (./tests/data/inline-counter/inline-counter)\n\n",
			want: []rec{sample(1, "inline-counter", -1, 26037, -1, 8801193547000, 250000, "cpu-clock:uhH",
				fr{"401b97", "main", "0x1f", "./tests/data/inline-counter/inline-counter", false})},
		},
		{
			name: "perf 3.13: time but no period (perf-funcab-cmd-01)",
			in:   "func_ab 15285 28075374.517811: cpu-clock: \n" + funcabStack + "\n",
			want: []rec{sample(1, "func_ab", -1, 15285, -1, 28075374517811000, 0, "cpu-clock", funcabFrames...)},
		},
		{
			name: "no time, no period (perf-funcab-pid-01)",
			in:   "func_ab 15294 cpu-clock: \n" + funcabStack + "\n",
			want: []rec{noTime(sample(1, "func_ab", -1, 15294, -1, 0, 0, "cpu-clock", funcabFrames...))},
		},
		{
			name: "no time, two spaces before tid (perf-vertx-stacks-01)",
			in:   "java  3244 cpu-clock: \n\t    7f1e21c41e9a start_thread (/lib/x86_64-linux-gnu/libpthread-2.15.so)\n\n",
			want: []rec{noTime(sample(1, "java", -1, 3244, -1, 0, 0, "cpu-clock",
				fr{"7f1e21c41e9a", "start_thread", "", "/lib/x86_64-linux-gnu/libpthread-2.15.so", false}))},
		},
		{
			name: "--ns: nine fraction digits",
			in:   "phases  5756   273.125201123:    1001001 cpu-clock: \n" + phasesLeaf + "\n",
			want: []rec{sample(1, "phases", -1, 5756, -1, 273125201123, 1001001, "cpu-clock", phasesLeafFr)},
		},
		{
			name: "comm with a space, pid/tid, cpu, cycles:u",
			in:   "Web Content  4321/4400  [003]  1234.567890:     250000 cycles:u: \n" + phasesLeaf + "\n",
			want: []rec{sample(1, "Web Content", 4321, 4400, 3, 1234567890000, 250000, "cycles:u", phasesLeafFr)},
		},
		{
			name: "comm with a space, tid only, no cpu",
			in:   "V8 WorkerThread  9012  1234.567890:     1001001 cpu-clock: \n" + phasesLeaf + "\n",
			want: []rec{sample(1, "V8 WorkerThread", -1, 9012, -1, 1234567890000, 1001001, "cpu-clock", phasesLeafFr)},
		},
		{
			name: "comm with slash, digit and colon",
			in:   "kworker/3:1H   512 [003]   100.000001:    1001001 cpu-clock: \n" + phasesLeaf + "\n",
			want: []rec{sample(1, "kworker/3:1H", -1, 512, 3, 100000001000, 1001001, "cpu-clock", phasesLeafFr)},
		},
		{
			name: "comm with brackets, space and a number word",
			in:   "[ET_NET 0]  1234/1240  [001]    55.500000:      10000 cpu/event=0x3c/u: \n" + phasesLeaf + "\n",
			want: []rec{sample(1, "[ET_NET 0]", 1234, 1240, 1, 55500000000, 10000, "cpu/event=0x3c/u", phasesLeafFr)},
		},
		{
			name: "comm with brackets and a number word, tid only, no cpu",
			in:   "[ET_NET 0] 1240 55.500000: 10000 cpu-clock:uhH: \n" + phasesLeaf + "\n",
			want: []rec{sample(1, "[ET_NET 0]", -1, 1240, -1, 55500000000, 10000, "cpu-clock:uhH", phasesLeafFr)},
		},
		{
			name: "event cycles:P",
			in:   "phases  5756   273.126215:    1001001 cycles:P: \n" + phasesLeaf + "\n",
			want: []rec{sample(1, "phases", -1, 5756, -1, 273126215000, 1001001, "cycles:P", phasesLeafFr)},
		},
		{
			name: "tracepoint with payload and no period, no -g, two in a row",
			in: "            perf  1234 [001]   100.000100: sched:sched_switch: prev_comm=perf prev_pid=1234 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120\n" +
				"         swapper     0 [001]   100.000200: sched:sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=perf next_pid=1234 next_prio=120\n",
			want: []rec{
				withPayload(sample(1, "perf", -1, 1234, 1, 100000100000, 0, "sched:sched_switch"),
					"prev_comm=perf prev_pid=1234 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120"),
				withPayload(sample(2, "swapper", -1, 0, 1, 100000200000, 0, "sched:sched_switch"),
					"prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=perf next_pid=1234 next_prio=120"),
			},
		},
		{
			name: "tracepoint with payload and a stack",
			in: "perf  1234 [001]   100.000100: sched:sched_switch: prev_comm=perf prev_pid=1234 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120\n" +
				"\tffffffff8225a101 do_syscall_64+0x71 ([kernel.kallsyms])\n\n",
			want: []rec{
				withPayload(sample(1, "perf", -1, 1234, 1, 100000100000, 0, "sched:sched_switch",
					fr{"ffffffff8225a101", "do_syscall_64", "0x71", "[kernel.kallsyms]", false}),
					"prev_comm=perf prev_pid=1234 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120"),
			},
		},
		{
			name: "no -g, right-aligned comm, several samples in a row (nocallchain.txt)",
			in: "          phases  5990   287.396451:    1001001 cpu-clock:      " + spinForNoG + "\n" +
				"          phases  5990   287.397451:    1001001 cpu-clock:      " + spinForNoG2 + "\n" +
				"          phases  5990   287.408761:    1001001 cpu-clock:      7f1b6406b7bd [unknown] ([vdso])\n",
			want: []rec{
				sample(1, "phases", -1, 5990, -1, 287396451000, 1001001, "cpu-clock", spinForNoGFr),
				sample(2, "phases", -1, 5990, -1, 287397451000, 1001001, "cpu-clock", spinForNoG2Fr),
				sample(3, "phases", -1, 5990, -1, 287408761000, 1001001, "cpu-clock", fr{"7f1b6406b7bd", "[unknown]", "", "[vdso]", false}),
			},
		},
		{
			name: "no -g with pid/tid, right-aligned (nocallchain.pid.txt)",
			in:   "          phases  5990/5990    287.396451:    1001001 cpu-clock:      " + spinForNoG + "\n",
			want: []rec{sample(1, "phases", 5990, 5990, -1, 287396451000, 1001001, "cpu-clock", spinForNoGFr)},
		},
		{
			name: "no -g, right-aligned, event with modifier and two spaces (single-line-stacks)",
			in: "           false 39654 19115.489713:          1 cycles:u:  ffffffff9b201293 [unknown] ([unknown])\n" +
				"           false 39654 19115.489719:          1 cycles:      7fa68b1f2d84 _dl_start+0x4 (/usr/lib/ld-2.31.so)\n",
			want: []rec{
				sample(1, "false", -1, 39654, -1, 19115489713000, 1, "cycles:u", fr{"ffffffff9b201293", "[unknown]", "", "[unknown]", false}),
				sample(2, "false", -1, 39654, -1, 19115489719000, 1, "cycles", fr{"7fa68b1f2d84", "_dl_start", "0x4", "/usr/lib/ld-2.31.so", false}),
			},
		},
		{
			name: "no -g samples interleaved with side-band records (nocallchain.txt)",
			in: "          phases  5990   287.397451:    1001001 cpu-clock:      " + spinForNoG2 + "\n" +
				"          phases  5990   287.397613: PERF_RECORD_SWITCH OUT preempt\n" +
				"          phases  5990   287.397647: PERF_RECORD_SWITCH IN         \n" +
				"          phases  5990   287.398473:    1001001 cpu-clock:      " + spinForNoG + "\n",
			want: []rec{
				sample(1, "phases", -1, 5990, -1, 287397451000, 1001001, "cpu-clock", spinForNoG2Fr),
				sw(side(KindSwitch, 2, "phases", -1, 5990, -1, 287397613000), true, true),
				sw(side(KindSwitch, 3, "phases", -1, 5990, -1, 287397647000), false, false),
				sample(4, "phases", -1, 5990, -1, 287398473000, 1001001, "cpu-clock", spinForNoGFr),
			},
		},
		{
			name: "sample at end of input without blank line or newline",
			in:   "phases  5756   273.126215:    1001001 cpu-clock: \n" + strings.TrimSuffix(phasesStack, "\n"),
			want: []rec{sample(1, "phases", -1, 5756, -1, 273126215000, 1001001, "cpu-clock", phasesFrames...)},
		},
		{
			name: "header block comments are skipped",
			in:   "# ========\n# captured on: Thu Jul  9 17:14:37 2015\n#\nperf   977/977   [000] 7628263.042515: cycles: \n\n",
			want: []rec{sample(4, "perf", 977, 977, 0, 7628263042515000, 0, "cycles")},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := readAll(t, tc.in)
			if res.skipped != 0 {
				t.Errorf("Skipped() = %d (lines %v), want 0", res.skipped, res.errLine)
			}
			checkRecs(t, res.recs, tc.want)
		})
	}
}

func checkRecs(t *testing.T, got, want []rec) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("got %d records, want %d", len(got), len(want))
		for i, g := range got {
			t.Logf("got[%d] = %+v", i, g)
		}
		return
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("record %d:\n got  %+v\n want %+v", i, got[i], want[i])
		}
	}
}

func TestReaderSideband(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want rec
	}{
		{"SWITCH OUT preempt", "phases  5756   273.125570: PERF_RECORD_SWITCH OUT preempt\n",
			sw(side(KindSwitch, 1, "phases", -1, 5756, -1, 273125570000), true, true)},
		{"SWITCH IN with trailing spaces", "phases  5756   273.125607: PERF_RECORD_SWITCH IN         \n",
			sw(side(KindSwitch, 1, "phases", -1, 5756, -1, 273125607000), false, false)},
		{"SWITCH OUT (not preempt) with trailing spaces", "sh  5862   280.432576: PERF_RECORD_SWITCH OUT        \n",
			sw(side(KindSwitch, 1, "sh", -1, 5862, -1, 280432576000), true, false)},
		{"SWITCH IN pid/tid", "sh  5864/5864    280.432868: PERF_RECORD_SWITCH IN         \n",
			sw(side(KindSwitch, 1, "sh", 5864, 5864, -1, 280432868000), false, false)},
		{"SWITCH right-aligned comm", "          phases  5990   287.397613: PERF_RECORD_SWITCH OUT preempt\n",
			sw(side(KindSwitch, 1, "phases", -1, 5990, -1, 287397613000), true, true)},
		{"SWITCH_CPU_WIDE OUT preempt next, idle task", "swapper     0 [000]   294.332790: PERF_RECORD_SWITCH_CPU_WIDE OUT preempt  next pid/tid:  6027/6029 \n",
			other(sw(side(KindSwitchCPUWide, 1, "swapper", -1, 0, 0, 294332790000), true, true), 6027, 6029)},
		{"SWITCH_CPU_WIDE IN prev", "perf  6029 [000]   294.332875: PERF_RECORD_SWITCH_CPU_WIDE IN           prev pid/tid:     0/0    \n",
			other(sw(side(KindSwitchCPUWide, 1, "perf", -1, 6029, 0, 294332875000), false, false), 0, 0)},
		{"SWITCH_CPU_WIDE OUT next, pid/tid", "perf  6027/6029  [000]   294.333094: PERF_RECORD_SWITCH_CPU_WIDE OUT          next pid/tid:     0/0    \n",
			other(sw(side(KindSwitchCPUWide, 1, "perf", 6027, 6029, 0, 294333094000), true, false), 0, 0)},
		{"SWITCH_CPU_WIDE IN prev pid/tid nonzero, pid/tid", "phases  6028/6030  [001]   294.500000: PERF_RECORD_SWITCH_CPU_WIDE IN           prev pid/tid:  6028/6031 \n",
			other(sw(side(KindSwitchCPUWide, 1, "phases", 6028, 6030, 1, 294500000000), false, false), 6028, 6031)},
		{"SWITCH_CPU_WIDE OUT of an unknown thread, tid -1 (syswide.txt:15765)", ":-1    -1 [001]   295.873950: PERF_RECORD_SWITCH_CPU_WIDE OUT          next pid/tid:     0/0    \n",
			other(sw(side(KindSwitchCPUWide, 1, ":-1", -1, -1, 1, 295873950000), true, false), 0, 0)},
		{"SWITCH_CPU_WIDE OUT of an unknown thread, pid/-1 (syswide.pid.txt:15765)", ":-1  6028/-1    [001]   295.873950: PERF_RECORD_SWITCH_CPU_WIDE OUT          next pid/tid:     0/0    \n",
			other(sw(side(KindSwitchCPUWide, 1, ":-1", 6028, -1, 1, 295873950000), true, false), 0, 0)},
		{"SWITCH_CPU_WIDE IN prev tid -1 (syswide.txt:15800)", "swapper     0 [000]   295.877764: PERF_RECORD_SWITCH_CPU_WIDE IN           prev pid/tid:  6028/-1   \n",
			other(sw(side(KindSwitchCPUWide, 1, "swapper", -1, 0, 0, 295877764000), false, false), 6028, -1)},
		{"FORK", "sh  5862/5862    280.432562: PERF_RECORD_FORK(5864:5864):(5862:5862)\n",
			parent(other(side(KindFork, 1, "sh", 5862, 5862, -1, 280432562000), 5864, 5864), 5862, 5862)},
		{"FORK of a kernel thread with cpu at time 0", "kthreadd     0/0     [000]     0.000000: PERF_RECORD_FORK(3:3):(2:2)\n",
			parent(other(side(KindFork, 1, "kthreadd", 0, 0, 0, 0), 3, 3), 2, 2)},
		{"EXIT of a thread, right-aligned", "          phases  5990/6010    288.896897: PERF_RECORD_EXIT(5990:6010):(5989:5989)\n",
			parent(other(side(KindExit, 1, "phases", 5990, 6010, -1, 288896897000), 5990, 6010), 5989, 5989)},
		{"EXIT tid only", "phases  5758   274.627031: PERF_RECORD_EXIT(5756:5758):(5755:5755)\n",
			parent(other(side(KindExit, 1, "phases", -1, 5758, -1, 274627031000), 5756, 5758), 5755, 5755)},
		{"COMM", "perf-exec     0     0.000000: PERF_RECORD_COMM: perf-exec:5756/5756\n",
			func() rec {
				r := other(side(KindComm, 1, "perf-exec", -1, 0, -1, 0), 5756, 5756)
				r.NewComm = "perf-exec"
				return r
			}()},
		{"COMM exec", "spin  5864/5864    280.433009: PERF_RECORD_COMM exec: spin:5864/5864\n",
			func() rec {
				r := other(side(KindComm, 1, "spin", 5864, 5864, -1, 280433009000), 5864, 5864)
				r.NewComm = "spin"
				return r
			}()},
		{"COMM with colon and slash in the new name", "kworker/0:0-mm_     0/0     [000]     0.000000: PERF_RECORD_COMM: kworker/0:0-mm_:9/9\n",
			func() rec {
				r := other(side(KindComm, 1, "kworker/0:0-mm_", 0, 0, 0, 0), 9, 9)
				r.NewComm = "kworker/0:0-mm_"
				return r
			}()},
		{"LOST", "perf  6029 [001]   294.400000: PERF_RECORD_LOST lost 12\n",
			func() rec {
				r := side(KindLost, 1, "perf", -1, 6029, 1, 294400000000)
				r.Lost = 12
				return r
			}()},
		{"MMAP is KindOther", "perf  6029 [000]     0.000000: PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1000000) @ 0xffffffff81000000]: x [kernel.kallsyms]_text\n",
			side(KindOther, 1, "perf", -1, 6029, 0, 0)},
		{"MMAP2 is KindOther", "sh  5862/5862    280.430500: PERF_RECORD_MMAP2 5862/5862: [0x55d1c0a00000(0x1c000) @ 0 08:01 1234 0]: r-xp /usr/bin/dash\n",
			side(KindOther, 1, "sh", 5862, 5862, -1, 280430500000)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := readAll(t, tc.in)
			if res.skipped != 0 {
				t.Errorf("Skipped() = %d (lines %v), want 0", res.skipped, res.errLine)
			}
			checkRecs(t, res.recs, []rec{tc.want})
		})
	}
}

func TestReaderFrames(t *testing.T) {
	const hdr = "perf_stacks 20602  2217.581638:          1 cycles:uppp: \n"
	tests := []struct {
		name string
		line string
		want fr
	}{
		{"kernel frame with offset", "\tffffffff817cea2d ext4_file_mmap_prepare+0xd ([kernel.kallsyms])",
			fr{"ffffffff817cea2d", "ext4_file_mmap_prepare", "0xd", "[kernel.kallsyms]", false}},
		{"address 0, unknown/unknown", "\t               0 [unknown] ([unknown])",
			fr{"0", "[unknown]", "", "[unknown]", false}},
		{"symbol with @@ version", "\t           cf439 clock_gettime@@GLIBC_2.17+0x19 (/usr/lib/x86_64-linux-gnu/libc.so.6)",
			fr{"cf439", "clock_gettime@@GLIBC_2.17", "0x19", "/usr/lib/x86_64-linux-gnu/libc.so.6", false}},
		{"inlined pseudo-DSO", "\t    7f443cc8af43 __mmap64 (inlined)",
			fr{"7f443cc8af43", "__mmap64", "", "inlined", true}},
		{"symbol with spaces and parentheses", "\t    561aa58dc06e std::function<int (int, int)>::operator() (/home/user/genperf/perf_stacks)",
			fr{"561aa58dc06e", "std::function<int (int, int)>::operator()", "", "/home/user/genperf/perf_stacks", false}},
		{"lambda in template", "\t    561aa58dbcc3 std::_Function_handler<int (int, int), main::{lambda(int, int)#1}>::_M_invoke (/home/user/genperf/perf_stacks)",
			fr{"561aa58dbcc3", "std::_Function_handler<int (int, int), main::{lambda(int, int)#1}>::_M_invoke", "", "/home/user/genperf/perf_stacks", false}},
		{"C++ args and const", "\t7f7241fbe6d8 arrayOopDesc::base(BasicType) const (/home/xguan/opt/jdk1.8.0_112/jre/lib/amd64/server/libjvm.so)",
			fr{"7f7241fbe6d8", "arrayOopDesc::base(BasicType) const", "", "/home/xguan/opt/jdk1.8.0_112/jre/lib/amd64/server/libjvm.so", false}},
		{"Rust <X as Y>::f", "            56203912789e <alloc::boxed::Box<T> as gc::trace::Trace>::trace::mark+0xe (/workspaces/boa/target/debug/boa_cli)",
			fr{"56203912789e", "<alloc::boxed::Box<T> as gc::trace::Trace>::trace::mark", "0xe", "/workspaces/boa/target/debug/boa_cli", false}},
		{"Go method", "\t          5c7d23 cmd/go/internal/load.(*Package).load+0x2193 (/usr/lib/go/bin/go)",
			fr{"5c7d23", "cmd/go/internal/load.(*Package).load", "0x2193", "/usr/lib/go/bin/go", false}},
		{"deleted DSO with nested parens", "\t           c6a96 [unknown] (/memfd:sealed-91173221a7ea (deleted))",
			fr{"c6a96", "[unknown]", "", "/memfd:sealed-91173221a7ea (deleted)", false}},
		{"DSO with spaces", "\t    7f2c3c00a4f0 [unknown] ([JIT app cache])",
			fr{"7f2c3c00a4f0", "[unknown]", "", "[JIT app cache]", false}},
		{"no DSO", "\t    7f443cc6f090 _start",
			fr{"7f443cc6f090", "_start", "", "", false}},
		{"address only (-F ip)", "\t    7f443cc6f090",
			fr{"7f443cc6f090", "", "", "", false}},
		{"parens at end of symbol but no DSO", "\t    7f1e2130d999 GCTaskThread::run()",
			fr{"7f1e2130d999", "GCTaskThread::run()", "", "", false}},
		{"JIT symbol with spaces and offset", "\t        f719f06f <jit invoke stub>+0x27 (/tmp/jitted-31714-4145672264.so)",
			fr{"f719f06f", "<jit invoke stub>", "0x27", "/tmp/jitted-31714-4145672264.so", false}},
		{"node JIT name with spaces and colons", "\t     c6d7895aac9 LazyCompile:~body_0 evalmachine.<anonymous>:1 (/tmp/perf-31912.map)",
			fr{"c6d7895aac9", "LazyCompile:~body_0 evalmachine.<anonymous>:1", "", "/tmp/perf-31912.map", false}},
		{"Java inline chain with +0x0", "\t    7f89cc467bf0 Ljava/io/PrintStream;::println->Ljava/io/PrintStream;::print->Ljava/io/PrintStream;::write+0x0 (/tmp/perf-10487.map)",
			fr{"7f89cc467bf0", "Ljava/io/PrintStream;::println->Ljava/io/PrintStream;::print->Ljava/io/PrintStream;::write", "0x0", "/tmp/perf-10487.map", false}},
		{"huge Rust offset", "\t          38e1c0 _$LT$u8$u20$as$u20$core..clone..Clone$GT$::clone::h7bfab8630dda96cf+0xffff53cc2fce4010 (/home/yamakaky/dev/rust/dcpu/target/debug/emulator)",
			fr{"38e1c0", "_$LT$u8$u20$as$u20$core..clone..Clone$GT$::clone::h7bfab8630dda96cf", "0xffff53cc2fce4010", "/home/yamakaky/dev/rust/dcpu/target/debug/emulator", false}},
		{"trailing spaces after DSO", "\t            1205 spin_for+0x44 (/work/steering/lab/src/phases)   ",
			fr{"1205", "spin_for", "0x44", "/work/steering/lab/src/phases", false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := readAll(t, hdr+tc.line+"\n\n")
			if res.skipped != 0 {
				t.Errorf("Skipped() = %d, want 0", res.skipped)
			}
			want := sample(1, "perf_stacks", -1, 20602, -1, 2217581638000, 1, "cycles:uppp", tc.want)
			checkRecs(t, res.recs, []rec{want})
		})
	}
}

func TestReaderStructure(t *testing.T) {
	cppHdr := "perf_stacks 20602  2217.581638:          1 cycles:uppp: \n"
	cppSample := func(line int, frames ...fr) rec {
		return sample(line, "perf_stacks", -1, 20602, -1, 2217581638000, 1, "cycles:uppp", frames...)
	}
	startFr := fr{"7f443cc6f090", "_start", "", "/lib/x86_64-linux-gnu/ld-2.27.so", false}
	startLine := "\t    7f443cc6f090 _start (/lib/x86_64-linux-gnu/ld-2.27.so)\n"
	tests := []struct {
		name    string
		in      string
		want    []rec
		skipped int
		errLine []int
	}{
		{
			name: "empty stack then stray stack line (inferno empty-line.txt)",
			in: "inline-counter 26037  8801.193547:     250000 cpu-clock:uhH:\n" +
				"\t          401b97 main+0x1f (./tests/data/inline-counter/inline-counter)\n" +
				"\n" +
				"inline-counter 26037  8801.194312:     250000 cpu-clock:uhH:\n" +
				"\n" +
				"\t          401b94 main+0x1c (./tests/data/inline-counter/inline-counter)\n",
			want: []rec{
				sample(1, "inline-counter", -1, 26037, -1, 8801193547000, 250000, "cpu-clock:uhH",
					fr{"401b97", "main", "0x1f", "./tests/data/inline-counter/inline-counter", false}),
				sample(4, "inline-counter", -1, 26037, -1, 8801194312000, 250000, "cpu-clock:uhH"),
			},
			skipped: 1, errLine: []int{6},
		},
		{
			name: "bad stack line drops its sample (inferno weird-stack-line.txt)",
			in: "inline-counter 26037  8801.193547:     250000 cpu-clock:uhH:\n" +
				"\t          401b97 main+0x1f (./tests/data/inline-counter/inline-counter)\n" +
				"\n" +
				"inline-counter 26037  8801.194312:     250000 cpu-clock:uhH:\n" +
				"\t          THIS_IS_A_WEIRD_LINE\n",
			want: []rec{
				sample(1, "inline-counter", -1, 26037, -1, 8801193547000, 250000, "cpu-clock:uhH",
					fr{"401b97", "main", "0x1f", "./tests/data/inline-counter/inline-counter", false}),
			},
			skipped: 1, errLine: []int{5},
		},
		{
			name: "bad stack line in the middle drops the whole sample, next sample kept",
			in: "phases  5756   273.126215:    1001001 cpu-clock: \n" +
				phasesLeaf +
				"\t          THIS_IS_A_WEIRD_LINE\n" +
				"\t            1230 serial_phase+0x9 (/work/steering/lab/src/phases)\n" +
				"\n" +
				"phases  5756   273.127214:    1001001 cpu-clock: \n" + phasesStack + "\n",
			want:    []rec{sample(6, "phases", -1, 5756, -1, 273127214000, 1001001, "cpu-clock", phasesFrames...)},
			skipped: 1, errLine: []int{3},
		},
		{
			name: "empty line right after the event line (inferno invalid-perf-with-empty-line-after-event-line)",
			in: "java 10488  9962.502413:   10101010 cpu-clock:\n" +
				"\n" +
				"\tffffffffaee8017b fput+0xb ([kernel.kallsyms])\n" +
				"\tffffffffaee7f61c ksys_write+0x9c ([kernel.kallsyms])\n",
			want:    []rec{sample(1, "java", -1, 10488, -1, 9962502413000, 10101010, "cpu-clock")},
			skipped: 2, errLine: []int{3, 4},
		},
		{
			name: "garbage lines are skipped and reading goes on",
			in: "hello world\n" +
				"phases  5756   273.126215:    1001001 cpu-clock: \n" + phasesStack + "\n" +
				"!!! not perf\n" +
				"phases  5756   273.125570: PERF_RECORD_SWITCH OUT preempt\n" +
				"this is: not a header\n" +
				"phases  5756   273.127214:    1001001 cpu-clock: \n" + phasesLeaf + "\n",
			want: []rec{
				sample(2, "phases", -1, 5756, -1, 273126215000, 1001001, "cpu-clock", phasesFrames...),
				sw(side(KindSwitch, 9, "phases", -1, 5756, -1, 273125570000), true, true),
				sample(11, "phases", -1, 5756, -1, 273127214000, 1001001, "cpu-clock", phasesLeafFr),
			},
			skipped: 3, errLine: []int{1, 8, 10},
		},
		{
			name: "whitespace-only lines end a stack",
			in: cppHdr + startLine + "   \t  \n" +
				cppHdr + " \n" +
				cppHdr + startLine + "\t\n",
			want:    []rec{cppSample(1, startFr), cppSample(4), cppSample(6, startFr)},
			skipped: 0,
		},
		{
			name: "empty stacks: header, blank, header, blank",
			in:   cppHdr + "\n" + cppHdr + "\n\n\n" + cppHdr,
			want: []rec{cppSample(1), cppSample(3), cppSample(7)},
		},
		{
			name: "header right after a stack without a blank line",
			in:   cppHdr + startLine + cppHdr + startLine,
			want: []rec{cppSample(1, startFr), cppSample(3, startFr)},
		},
		{
			name: "side-band record right after a stack without a blank line",
			in:   cppHdr + startLine + "phases  5756   273.125607: PERF_RECORD_SWITCH IN         \n" + cppHdr + startLine,
			want: []rec{
				cppSample(1, startFr),
				sw(side(KindSwitch, 3, "phases", -1, 5756, -1, 273125607000), false, false),
				cppSample(4, startFr),
			},
		},
		{
			name: "srcline and brstack continuation lines are skipped silently",
			in: cppHdr + startLine + "  start.S:120\n" + "\t0x4005d6/0x4005e0/P/-/-/0\n" +
				"\t    7f443cc6f091 _start (/lib/x86_64-linux-gnu/ld-2.27.so)\n\n",
			want: []rec{cppSample(1, startFr, fr{"7f443cc6f091", "_start", "", "/lib/x86_64-linux-gnu/ld-2.27.so", false})},
		},
		{
			name: "CRLF line ends",
			in: strings.ReplaceAll("phases  5756   273.126215:    1001001 cpu-clock: \n"+phasesStack+"\n"+
				"phases  5756   273.125607: PERF_RECORD_SWITCH IN         \n"+
				"          phases  5990   287.396451:    1001001 cpu-clock:      "+spinForNoG+"\n", "\n", "\r\n"),
			want: []rec{
				sample(1, "phases", -1, 5756, -1, 273126215000, 1001001, "cpu-clock", phasesFrames...),
				sw(side(KindSwitch, 7, "phases", -1, 5756, -1, 273125607000), false, false),
				sample(8, "phases", -1, 5990, -1, 287396451000, 1001001, "cpu-clock", spinForNoGFr),
			},
		},
		{
			name: "bare CR line ends",
			in: strings.ReplaceAll("phases  5756   273.126215:    1001001 cpu-clock: \n"+phasesStack+"\n"+
				"phases  5756   273.125607: PERF_RECORD_SWITCH IN         \n"+
				"          phases  5990   287.396451:    1001001 cpu-clock:      "+spinForNoG+"\n", "\n", "\r"),
			want: []rec{
				sample(1, "phases", -1, 5756, -1, 273126215000, 1001001, "cpu-clock", phasesFrames...),
				sw(side(KindSwitch, 7, "phases", -1, 5756, -1, 273125607000), false, false),
				sample(8, "phases", -1, 5990, -1, 287396451000, 1001001, "cpu-clock", spinForNoGFr),
			},
		},
		{
			name: "bare CR line ends with an error line number after them",
			in:   "phases  5756   273.126215:    1001001 cpu-clock: \r" + phasesLeaf[:len(phasesLeaf)-1] + "\r\rgarbage\r",
			want: []rec{
				sample(1, "phases", -1, 5756, -1, 273126215000, 1001001, "cpu-clock", phasesLeafFr),
			},
			skipped: 1, errLine: []int{4},
		},
		{
			name:    "stray stack line outside a sample",
			in:      "\t    7f443cc6f090 _start (/lib/x86_64-linux-gnu/ld-2.27.so)\n" + cppHdr + startLine,
			want:    []rec{cppSample(2, startFr)},
			skipped: 1, errLine: []int{1},
		},
		{
			name: "perf 3.2: no time, no period, stack lines without leading whitespace (perf-java-stacks-02)",
			in: "java 19983 cycles:\n" +
				"ffffffff8103d0ca native_write_msr_safe ([kernel.kallsyms])\n" +
				"7f7241fbe6d8 arrayOopDesc::base(BasicType) const (/home/xguan/opt/jdk1.8.0_112/jre/lib/amd64/server/libjvm.so)\n" +
				"7f722d12e1d4 LBusy;::main (/tmp/perf-19982.map)\n" +
				"\n" +
				"java 19983 cycles:\n" +
				"7f72432b4e9a start_thread (/lib/x86_64-linux-gnu/libpthread-2.15.so)\n" +
				"\n",
			want: []rec{
				noTime(sample(1, "java", -1, 19983, -1, 0, 0, "cycles",
					fr{"ffffffff8103d0ca", "native_write_msr_safe", "", "[kernel.kallsyms]", false},
					fr{"7f7241fbe6d8", "arrayOopDesc::base(BasicType) const", "", "/home/xguan/opt/jdk1.8.0_112/jre/lib/amd64/server/libjvm.so", false},
					fr{"7f722d12e1d4", "LBusy;::main", "", "/tmp/perf-19982.map", false})),
				noTime(sample(6, "java", -1, 19983, -1, 0, 0, "cycles",
					fr{"7f72432b4e9a", "start_thread", "", "/lib/x86_64-linux-gnu/libpthread-2.15.so", false})),
			},
		},
		{
			name: "no input",
			in:   "",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := readAll(t, tc.in)
			if res.skipped != tc.skipped {
				t.Errorf("Skipped() = %d, want %d", res.skipped, tc.skipped)
			}
			if !reflect.DeepEqual(res.errLine, tc.errLine) {
				t.Errorf("error lines = %v, want %v", res.errLine, tc.errLine)
			}
			checkRecs(t, res.recs, tc.want)
		})
	}
}

func TestReaderLongLine(t *testing.T) {
	// A symbol longer than 2 MiB: no token limit, the line is read whole.
	sym := strings.Repeat("std::vector<int>::", (2<<20)/18+1000)
	if len(sym) <= 2<<20 {
		t.Fatal("symbol too short")
	}
	in := "perf_stacks 20602  2217.581638:          1 cycles:uppp: \n" +
		"\t    7f443cc6f090 " + sym + "+0x10 (/home/user/genperf/perf_stacks)\n" +
		"\t    7f443cc6f091 _start (/lib/x86_64-linux-gnu/ld-2.27.so)\n\n" +
		"phases  5756   273.125607: PERF_RECORD_SWITCH IN         \n"
	res := readAll(t, in)
	if res.skipped != 0 {
		t.Fatalf("Skipped() = %d, want 0", res.skipped)
	}
	want := []rec{
		sample(1, "perf_stacks", -1, 20602, -1, 2217581638000, 1, "cycles:uppp",
			fr{"7f443cc6f090", sym, "0x10", "/home/user/genperf/perf_stacks", false},
			fr{"7f443cc6f091", "_start", "", "/lib/x86_64-linux-gnu/ld-2.27.so", false}),
		sw(side(KindSwitch, 5, "phases", -1, 5756, -1, 273125607000), false, false),
	}
	if len(res.recs) != len(want) {
		t.Fatalf("got %d records, want %d", len(res.recs), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(res.recs[i], want[i]) {
			g := res.recs[i]
			if len(g.Frames) > 0 && len(g.Frames[0].Sym) > 100 {
				g.Frames[0].Sym = g.Frames[0].Sym[:100] + "..."
			}
			t.Errorf("record %d differs: got %+v (sym len %d)", i, g, len(res.recs[i].Frames[0].Sym))
		}
	}
}

func TestReaderErrorsCapped(t *testing.T) {
	var b strings.Builder
	for i := 0; i < MaxKeptErrors+3; i++ {
		b.WriteString("garbage\n")
	}
	b.WriteString("phases  5756   273.125607: PERF_RECORD_SWITCH IN         \n")
	var seen int
	r := NewReader(strings.NewReader(b.String()), "x.txt")
	r.OnError = func(*SyntaxError) { seen++ }
	n := 0
	for r.Scan() {
		n++
	}
	if n != 1 {
		t.Errorf("records = %d, want 1", n)
	}
	if r.Skipped() != MaxKeptErrors+3 || seen != MaxKeptErrors+3 {
		t.Errorf("Skipped() = %d, OnError calls = %d, want %d", r.Skipped(), seen, MaxKeptErrors+3)
	}
	if len(r.Errors()) != MaxKeptErrors {
		t.Fatalf("len(Errors()) = %d, want %d", len(r.Errors()), MaxKeptErrors)
	}
	for i, e := range r.Errors() {
		if e.Line != i+1 || e.FileName != "x.txt" || e.Text != "garbage" {
			t.Errorf("Errors()[%d] = %+v", i, e)
		}
	}
	if r.Lines() != MaxKeptErrors+4 {
		t.Errorf("Lines() = %d, want %d", r.Lines(), MaxKeptErrors+4)
	}
}

// TestReaderRealFiles reads every shared trace and corpus file: none has a
// line the reader may reject (except the three inferno files made to be
// bad), and for the recorded traces the numbers of samples and side-band
// records match a plain count of their lines.
func TestReaderRealFiles(t *testing.T) {
	var files []string
	for _, g := range []string{"/work/shared/traces/*.txt", "/work/shared/corpus/flamegraph/perf-*.txt", "/work/shared/corpus/inferno/*.txt"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Skip("no shared traces here")
	}
	badLines := map[string]int{
		"empty-line.txt": 1, "weird-stack-line.txt": 1,
		"invalid-perf-with-empty-line-after-event-line.txt": 6,
		"MANIFEST.txt": -1,
	}
	for _, path := range files {
		name := filepath.Base(path)
		want, known := badLines[name]
		if want < 0 {
			continue
		}
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			r := NewReader(bytes.NewReader(data), name)
			samples, side := 0, 0
			for r.Scan() {
				if r.Record().Kind == KindSample {
					samples++
				} else {
					side++
				}
			}
			if !known {
				want = 0
			}
			if r.Skipped() != want {
				t.Errorf("Skipped() = %d, want %d; errors %v", r.Skipped(), want, r.Errors())
			}
			lines := bytes.Count(data, []byte("\n"))
			if r.Lines() != lines {
				t.Errorf("Lines() = %d, want %d", r.Lines(), lines)
			}
			if strings.Contains(path, "/traces/") {
				if n := bytes.Count(data, []byte(" cpu-clock: ")); samples != n {
					t.Errorf("samples = %d, want %d", samples, n)
				}
				if n := bytes.Count(data, []byte("PERF_RECORD_")); side != n {
					t.Errorf("side-band records = %d, want %d", side, n)
				}
			}
		})
	}
}
