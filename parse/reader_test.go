package parse

import (
	"bytes"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wallfold/wallfold/internal/testtrace"
)

// Most inputs below are lines copied from ../testdata/traces and
// ../testdata/corpus/{inferno,flamegraph}. The comms that no recorded
// trace contains ("Web Content", "kworker/3:1H", "[ET_NET 0]",
// "V8 WorkerThread") and the events "sched:sched_switch" /
// "cpu/event=0x3c/u" are placed into copies of real lines, keeping perf's
// column layout.

// fr is a Frame with strings, for comparing.
type fr struct {
	Addr, Sym, Off, DSO string
	Inlined             bool
}

// rec is a Record with strings, for comparing, its fields grouped as
// Record's are.
type rec struct {
	Kind    Kind
	Line    int
	Comm    string
	PID     int
	TID     int
	CPU     int
	Time    int64
	HasTime bool
	recSample
	Payload string
	recSwitch
	recTask
	Lost uint64
}

type recSample struct {
	Period    uint64
	HasPeriod bool
	Event     string
	Frames    []fr
}

type recSwitch struct {
	Out, Preempt     bool
	PeerPID, PeerTID int
}

type recTask struct {
	SubjectPID, SubjectTID int
	ParentPID, ParentTID   int
	NewComm                string
}

func toRec(r *Record) rec {
	out := rec{
		Kind: r.Kind, Line: r.Line, Comm: string(r.Comm), PID: r.PID, TID: r.TID, CPU: r.CPU,
		Time: r.Time, HasTime: r.HasTime,
		recSample: recSample{Period: r.Period, HasPeriod: r.HasPeriod, Event: string(r.Event)},
		Payload:   string(r.Payload),
		recSwitch: recSwitch{Out: r.Out, Preempt: r.Preempt, PeerPID: r.PeerPID, PeerTID: r.PeerTID},
		recTask: recTask{SubjectPID: r.SubjectPID, SubjectTID: r.SubjectTID, ParentPID: r.ParentPID, ParentTID: r.ParentTID,
			NewComm: string(r.NewComm)},
		Lost: r.Lost,
	}
	for _, f := range r.Stack.Frames() {
		out.Frames = append(out.Frames, fr{string(f.Addr), string(f.Sym), string(f.Off), string(f.DSO), f.Inlined})
	}
	return out
}

type readResult struct {
	recs    []rec
	skipped int
	errLine []int
	errs    []*SyntaxError // as they came in the stream
}

func readAll(t *testing.T, in string) readResult {
	t.Helper()
	r := NewReader(strings.NewReader(in), "test.txt")
	var res readResult
	for r.Scan() {
		if r.Record().Kind == KindError {
			res.errs = append(res.errs, r.Record().Err)
			continue
		}
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
	// The errors in the stream are those counted, the first ones kept.
	if len(res.errs) != res.skipped {
		t.Errorf("%d error records, Skipped() = %d", len(res.errs), res.skipped)
	}
	for i, e := range r.Errors() {
		if i >= len(res.errs) || res.errs[i] != e {
			t.Errorf("Errors()[%d] = %v is not the stream's error %d", i, e, i)
		}
	}
	return res
}

// sample builds the expected record of a sample.
func sample(line int, comm string, pid, tid, cpu int, timeNS int64, period uint64, event string, frames ...fr) rec {
	r := rec{Kind: KindSample, Line: line, Comm: comm, PID: pid, TID: tid, CPU: cpu, Time: timeNS, HasTime: true,
		recSample: recSample{Period: period, HasPeriod: true, Event: event, Frames: frames}}
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

func peer(r rec, pid, tid int) rec { r.PeerPID, r.PeerTID = pid, tid; return r }

func subject(r rec, pid, tid int) rec { r.SubjectPID, r.SubjectTID = pid, tid; return r }

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

// readCase is an input and what the reader makes of it: its records,
// and the lines it skips as errors.
type readCase struct {
	name    string
	in      string
	want    []rec
	skipped int
	errLine []int
}

// runReadCases reads each case's input as a subtest.
func runReadCases(t *testing.T, tests []readCase) {
	t.Helper()
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

// A sample of cpp-stacks-std-function.txt: its header line and a frame.
var (
	cppHdr    = "perf_stacks 20602  2217.581638:          1 cycles:uppp: \n"
	startLine = "\t    7f443cc6f090 _start (/lib/x86_64-linux-gnu/ld-2.27.so)\n"
	startFr   = fr{"7f443cc6f090", "_start", "", "/lib/x86_64-linux-gnu/ld-2.27.so", false}
)

// cppSample is the record of cppHdr at line with frames.
func cppSample(line int, frames ...fr) rec {
	return sample(line, "perf_stacks", -1, 20602, -1, 2217581638000, 1, "cycles:uppp", frames...)
}

// TestReaderBadLines: a line the reader cannot read is an error in its
// place, and drops the sample it is in; reading goes on.
func TestReaderBadLines(t *testing.T) {
	runReadCases(t, []readCase{
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
			name:    "stray stack line outside a sample",
			in:      "\t    7f443cc6f090 _start (/lib/x86_64-linux-gnu/ld-2.27.so)\n" + cppHdr + startLine,
			want:    []rec{cppSample(2, startFr)},
			skipped: 1, errLine: []int{1},
		},
	})
}

// TestReaderStackEnds: where a sample's stack ends, and which of its
// lines are no frames.
func TestReaderStackEnds(t *testing.T) {
	runReadCases(t, []readCase{
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
	})
}

// TestReaderLineEnds: CRLF and bare CR end lines as LF does, in line
// numbers too.
func TestReaderLineEnds(t *testing.T) {
	runReadCases(t, []readCase{
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
	})
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
	n := 0
	for r.Scan() {
		if r.Record().Kind == KindError {
			seen++
			continue
		}
		n++
	}
	if n != 1 {
		t.Errorf("records = %d, want 1", n)
	}
	if r.Skipped() != MaxKeptErrors+3 || seen != MaxKeptErrors+3 {
		t.Errorf("Skipped() = %d, error records = %d, want %d", r.Skipped(), seen, MaxKeptErrors+3)
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

// TestReaderRealFiles reads every trace and corpus file in testdata: none
// has a line the reader may reject (except the three inferno files made
// to be bad), and for the recorded traces the numbers of samples and
// side-band records match a plain count of their lines.
func TestReaderRealFiles(t *testing.T) {
	var files []string
	for _, g := range []string{"../testdata/traces/*.txt", "../testdata/traces/*.gz", "../testdata/corpus/flamegraph/perf-*.txt", "../testdata/corpus/inferno/*.txt"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatal("no testdata")
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
			data := testtrace.Read(t, path)
			r := NewReader(bytes.NewReader(data), name)
			samples, side := 0, 0
			for r.Scan() {
				if k := r.Record().Kind; k == KindSample {
					samples++
				} else if k != KindError {
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
