package parse

import (
	"strings"
	"testing"
)

// TestReaderHeaderColumns: a sample header's pid/tid and cpu columns, as
// perf lays them out.
func TestReaderHeaderColumns(t *testing.T) {
	runReadCases(t, []readCase{
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
	})
}

// TestReaderHeaderEvents: a sample header's time, period and event.
func TestReaderHeaderEvents(t *testing.T) {
	runReadCases(t, []readCase{
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
			name: "--ns: nine fraction digits",
			in:   "phases  5756   273.125201123:    1001001 cpu-clock: \n" + phasesLeaf + "\n",
			want: []rec{sample(1, "phases", -1, 5756, -1, 273125201123, 1001001, "cpu-clock", phasesLeafFr)},
		},
		{
			name: "event cycles:P",
			in:   "phases  5756   273.126215:    1001001 cycles:P: \n" + phasesLeaf + "\n",
			want: []rec{sample(1, "phases", -1, 5756, -1, 273126215000, 1001001, "cycles:P", phasesLeafFr)},
		},
	})
}

// TestReaderHeaderNoTimeOrTID: sample headers without a time or without a
// tid.
func TestReaderHeaderNoTimeOrTID(t *testing.T) {
	runReadCases(t, []readCase{
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
			name: "no tid (perf script -F comm,time,period,...)",
			in:   "sh   947.705097:    1001001 cpu-clock: \n" + phasesLeaf + "\nsh   947.706689: PERF_RECORD_SWITCH OUT preempt\n",
			want: []rec{sample(1, "sh", -1, -1, -1, 947705097000, 1001001, "cpu-clock", phasesLeafFr),
				sw(side(KindSwitch, 4, "sh", -1, -1, -1, 947706689000), true, true)},
		},
		{
			name: "no tid, cpu column, comm with a space",
			in:   "Web Content [001]   947.705097:    1001001 cpu-clock: \n" + phasesLeaf + "\n",
			want: []rec{sample(1, "Web Content", -1, -1, 1, 947705097000, 1001001, "cpu-clock", phasesLeafFr)},
		},
	})
}

// TestReaderHeaderComms: comms with spaces, digits, slashes, colons and
// brackets.
func TestReaderHeaderComms(t *testing.T) {
	runReadCases(t, []readCase{
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
	})
}

// TestReaderOneLineSamples: samples whose header line holds more than the
// event: a tracepoint's payload, or the only frame (recorded without -g).
func TestReaderOneLineSamples(t *testing.T) {
	runReadCases(t, []readCase{
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
	})
}

// TestReaderInputEdges: what comes before the first sample (perf's header
// block) and after the last (no blank line, no newline).
func TestReaderInputEdges(t *testing.T) {
	runReadCases(t, []readCase{
		{
			name: "header block comments are skipped", // but the time lines: TestPerfHeaderFromReader
			in:   "# ========\n# hostname : vm\n#\nperf   977/977   [000] 7628263.042515: cycles: \n\n",
			want: []rec{sample(4, "perf", 977, 977, 0, 7628263042515000, 0, "cycles")},
		},
		{
			name: "sample at end of input without blank line or newline",
			in:   "phases  5756   273.126215:    1001001 cpu-clock: \n" + strings.TrimSuffix(phasesStack, "\n"),
			want: []rec{sample(1, "phases", -1, 5756, -1, 273126215000, 1001001, "cpu-clock", phasesFrames...)},
		},
	})
}

// TestReaderSampleEnds: sample headers that end alike and differently
// in turn (the end after the time is read by comparison with the last
// one's when it is the same): each keeps its own period, event, payload
// and one-line frame.
func TestReaderSampleEnds(t *testing.T) {
	f := fr{"400", "f", "", "/x", false}
	runReadCases(t, []readCase{{
		name: "ends alike, then not, then alike again",
		in: "a 1 1.0: 1001001 cpu-clock: \n\n" +
			"a 1 2.0: 1001001 cpu-clock: \n\n" +
			"a 1 3.0: 7 cycles: \n\n" +
			"a 1 4.0: 1001001 cpu-clock: 400 f (/x)\n\n" +
			"a 1 5.0: 1001001 cpu-clock: 400 f (/x)\n\n" +
			"a 1 6.0: 1001001 cpu-clock: \n\n" +
			"a 1 7.0: 1001001 sched:x: p=1\n\n" +
			"a 1 8.0: 1001001 sched:x: p=2\n\n" +
			"a 1 9.0: cpu-clock: \n\n" +
			"a 1 10.0: 1001001 cpu-clock: \n\n" +
			"a 1 11.0: 2002002 cpu-clock: \n\n",
		want: []rec{
			sample(1, "a", -1, 1, -1, 1e9, 1001001, "cpu-clock"),
			sample(3, "a", -1, 1, -1, 2e9, 1001001, "cpu-clock"),
			sample(5, "a", -1, 1, -1, 3e9, 7, "cycles"),
			sample(7, "a", -1, 1, -1, 4e9, 1001001, "cpu-clock", f),
			sample(9, "a", -1, 1, -1, 5e9, 1001001, "cpu-clock", f),
			sample(11, "a", -1, 1, -1, 6e9, 1001001, "cpu-clock"),
			withPayload(sample(13, "a", -1, 1, -1, 7e9, 1001001, "sched:x"), "p=1"),
			withPayload(sample(15, "a", -1, 1, -1, 8e9, 1001001, "sched:x"), "p=2"),
			sample(17, "a", -1, 1, -1, 9e9, 0, "cpu-clock"),
			sample(19, "a", -1, 1, -1, 10e9, 1001001, "cpu-clock"),
			sample(21, "a", -1, 1, -1, 11e9, 2002002, "cpu-clock"),
		},
	}})
}

// TestSwitchBlanks: a switch record's words are found past any blanks
// bytes.TrimSpace takes (Unicode ones too), and its line may end in
// blanks; a byte that is no blank (a zero-width space) spoils it.
func TestSwitchBlanks(t *testing.T) {
	for _, c := range []struct {
		text         string
		ok           bool
		out, preempt bool
	}{
		{"SWITCH OUT        ", true, true, false},
		{"SWITCH IN \t \t", true, false, false},
		{"SWITCH OUT preempt  ", true, true, true},
		{"SWITCH\v\f\r\nIN", true, false, false},
		{"SWITCH\u00a0OUT preempt", true, true, true},
		{"SWITCH \u0085\u3000 IN ", true, false, false},
		{"SWITCH\u200bOUT", false, false, false},
		{"SWITCH \xffOUT", false, false, false},
		{"SWITCH", false, false, false},
		{"SWITCH   \t", false, false, false},
	} {
		var rec Record
		ok := parseSideband(&rec, []byte(c.text))
		if ok != c.ok || ok && (rec.Kind != KindSwitch || rec.Out != c.out || rec.Preempt != c.preempt) {
			t.Errorf("%q: ok %v, %v out %v preempt %v; want ok %v, out %v preempt %v",
				c.text, ok, rec.Kind, rec.Out, rec.Preempt, c.ok, c.out, c.preempt)
		}
	}
}
