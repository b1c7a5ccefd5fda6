package parse

import (
	"bufio"
	"bytes"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wallfold/wallfold/internal/testtrace"
)

// perf 7.x text against perf 6.1's text of the same perf.data
// (../testdata/perf7/README.md): what perf 6.1 prints is the truth for
// what perf 7 means.

// perf7Text returns the unzipped text of ../testdata/perf7/name.
func perf7Text(t *testing.T, name string) []byte {
	t.Helper()
	return testtrace.Read(t, filepath.Join("..", "testdata", "perf7", name))
}

// stacksByText splits perf script text into its samples' stacks with no
// parser of the package: a sample is a line with " cpu-clock:" up to the
// blank line, each frame the text after the address of a tab-indented
// line ("spin_for+0x44 (/tmp/p7w/writers)"), leaf first.
func stacksByText(text []byte) [][]string {
	var out [][]string
	var cur []string
	in := false
	sc := bufio.NewScanner(bytes.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "\t") && in:
			f := strings.Fields(line)
			cur = append(cur, strings.Join(f[1:], " "))
		case strings.Contains(line, " cpu-clock:"):
			if in {
				out = append(out, cur)
			}
			cur, in = []string{}, true
		case strings.TrimSpace(line) == "" && in:
			out, cur, in = append(out, cur), nil, false
		}
	}
	if in {
		out = append(out, cur)
	}
	return out
}

// readStacks reads text with the Reader and returns its samples' frames
// written as perf prints them after the address, and all its records.
func readStacks(t *testing.T, text []byte, concurrent bool) (stacks [][]string, recs []rec) {
	t.Helper()
	r := newReader(bytes.NewReader(text), "perf7.txt", concurrent)
	for r.Scan() {
		rc := r.Record()
		if rc.Kind == KindError {
			t.Fatalf("%v: %q", rc.Err, rc.Err.Text)
		}
		recs = append(recs, toRec(rc))
		if rc.Kind != KindSample {
			continue
		}
		s := []string{}
		for _, f := range rc.Stack.Frames() {
			w := string(f.Sym)
			if len(f.Off) > 0 {
				w += "+" + string(f.Off)
			}
			s = append(s, w+" ("+string(f.DSO)+")")
		}
		stacks = append(stacks, s)
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	return stacks, recs
}

// countRuns counts the samples whose stack has frame n times in a row.
func countRuns(stacks [][]string, frame string, n int) int {
	c := 0
	for _, s := range stacks {
		if strings.Contains("\n"+strings.Join(s, "\n")+"\n", strings.Repeat("\n"+frame, n)+"\n") {
			c++
		}
	}
	return c
}

// TestPerf7InlineEcho: perf 7 prints the first user frame of a sample in
// __GI___libc_write or __GI___pthread_disable_asynccancel twice; the
// Reader gives each sample the frames perf 6.1 printed for it, and keeps
// real recursion (recurse+0x10 three times in a row, fib's leaf at its own
// call's return address) as it is.
func TestPerf7InlineEcho(t *testing.T) {
	for _, tt := range []struct {
		name        string
		twice       string // a frame perf 7 prints twice in a row
		recursion   string // a frame that real recursion repeats...
		recursionN  int    // ...this many times in a row
		wantSamples int
	}{
		{"writers", "__GI___libc_write+0x4f (/usr/lib/x86_64-linux-gnu/libc.so.6)", "recurse+0x10 (/tmp/p7w/writers)", 3, 649},
		{"fib", "", "fib+0x29 (/tmp/p7w/fib)", 4, 501},
	} {
		truth := stacksByText(perf7Text(t, tt.name+".perf61.txt.gz"))
		raw := stacksByText(perf7Text(t, tt.name+".perf7.txt.gz"))
		if len(truth) != tt.wantSamples || len(raw) != tt.wantSamples {
			t.Fatalf("%s: %d samples in perf 6.1's text, %d in perf 7's, want %d", tt.name, len(truth), len(raw), tt.wantSamples)
		}
		// The texts show what the test is about.
		if tt.twice != "" && (countRuns(raw, tt.twice, 2) == 0 || countRuns(truth, tt.twice, 2) != 0) {
			t.Fatalf("%s: %q twice in a row: %d samples in perf 7's text, %d in perf 6.1's", tt.name, tt.twice,
				countRuns(raw, tt.twice, 2), countRuns(truth, tt.twice, 2))
		}
		if n := countRuns(truth, tt.recursion, tt.recursionN); n == 0 {
			t.Fatalf("%s: no sample of perf 6.1's text has %q %d times in a row", tt.name, tt.recursion, tt.recursionN)
		}
		for _, concurrent := range []bool{false, true} {
			got, _ := readStacks(t, perf7Text(t, tt.name+".perf7.txt.gz"), concurrent)
			if len(got) != len(truth) {
				t.Fatalf("%s (concurrent %v): %d samples, want %d", tt.name, concurrent, len(got), len(truth))
			}
			bad := 0
			for i := range truth {
				if !reflect.DeepEqual(got[i], truth[i]) {
					if bad++; bad <= 3 {
						t.Errorf("%s (concurrent %v): sample %d:\n got  %q\n want %q (perf 6.1)", tt.name, concurrent, i, got[i], truth[i])
					}
				}
			}
			if bad > 0 {
				t.Errorf("%s (concurrent %v): %d of %d samples differ from perf 6.1's", tt.name, concurrent, bad, len(truth))
			}
		}
	}
}

// TestPerf7FibLeafAtReturnSite: fib's recursion caught at its own call's
// return address prints the leaf's address twice in perf 6.1's text too:
// a real frame, kept.
func TestPerf7FibLeafAtReturnSite(t *testing.T) {
	leafPairs := 0
	for _, s := range stacksByText(perf7Text(t, "fib.perf61.txt.gz")) {
		if len(s) > 1 && s[0] == s[1] {
			leafPairs++
		}
	}
	if leafPairs == 0 {
		t.Fatal("no sample of fib.perf61 has its leaf twice: the case is not in the text")
	}
	got, _ := readStacks(t, perf7Text(t, "fib.perf7.txt.gz"), false)
	kept := 0
	for _, s := range got {
		if len(s) > 1 && s[0] == s[1] {
			kept++
		}
	}
	if kept != leafPairs {
		t.Errorf("%d samples keep their leaf twice, perf 6.1 has %d", kept, leafPairs)
	}
}

// TestPerf7MiscColumn: perf script -F +misc,+flags prints a column
// between the tid (or cpu) and the time; the records read from it are
// those of the same perf.data without it, per-task and system-wide.
func TestPerf7MiscColumn(t *testing.T) {
	for _, name := range []string{"writers", "build"} {
		misc := perf7Text(t, name+".perf7.misc.txt.gz")
		_, plain := readStacks(t, perf7Text(t, name+".perf7.txt.gz"), false)
		_, got := readStacks(t, misc, false)
		headers := bytes.Count(misc, []byte(" cpu-clock: "))
		samples := 0
		for _, r := range got {
			if r.Kind == KindSample {
				samples++
			}
		}
		if samples != headers || headers == 0 {
			t.Errorf("%s: %d samples read, the text has %d sample headers", name, samples, headers)
		}
		if len(got) != len(plain) {
			t.Fatalf("%s: %d records with +misc, %d without", name, len(got), len(plain))
		}
		bad := 0
		for i := range plain {
			g, p := got[i], plain[i]
			g.Line, p.Line = 0, 0
			if !reflect.DeepEqual(g, p) {
				if bad++; bad <= 3 {
					t.Errorf("%s: record %d:\n +misc %+v\n plain %+v", name, i, g, p)
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d of %d records differ", name, bad, len(plain))
		}
	}
}

// TestReaderMiscHeaders: the misc column's forms, from real perf 7.2
// lines (per-task, -F +pid, system-wide right-aligned, a frame on the
// sample line without -g, blank misc).
func TestReaderMiscHeaders(t *testing.T) {
	runReadCases(t, []readCase{
		{
			name: "per-task, exec",
			in:   "writers   31923 E      8521.008289: PERF_RECORD_COMM exec: writers:31923/31923\n",
			want: []rec{func() rec {
				r := subject(side(KindComm, 1, "writers", -1, 31923, -1, 8521008289000), 31923, 31923)
				r.NewComm = "writers"
				return r
			}()},
		},
		{
			name: "per-task, switch out preempt, then blank misc",
			in: "writer-0   31925 Sp     8521.011223: PERF_RECORD_SWITCH OUT preempt\n" +
				"writer-0   31925        8521.011249: PERF_RECORD_SWITCH IN         \n",
			want: []rec{sw(side(KindSwitch, 1, "writer-0", -1, 31925, -1, 8521011223000), true, true),
				sw(side(KindSwitch, 2, "writer-0", -1, 31925, -1, 8521011249000), false, false)},
		},
		{
			name: "system-wide, right-aligned comm, cpu, switch out",
			in:   "          :32006   32006 [001] S      8522.124250: PERF_RECORD_SWITCH_CPU_WIDE OUT          next pid/tid:     0/0    \n",
			want: []rec{peer(sw(side(KindSwitchCPUWide, 1, ":32006", -1, 32006, 1, 8522124250000), true, false), 0, 0)},
		},
		{
			name: "pid/tid, no -g: the frame on the sample line",
			in:   "        writer-1     676/682     U      8791.454710:    1001001 cpu-clock:                              55765ac8623a spin_for+0x39 (/tmp/p7w/writers)\n",
			want: []rec{sample(1, "writer-1", 676, 682, -1, 8791454710000, 1001001, "cpu-clock",
				fr{"55765ac8623a", "spin_for", "0x39", "/tmp/p7w/writers", false})},
		},
		{
			name: "kernel sample with its stack",
			in:   "bash   30935 [000] K      8522.122035:    1001001 cpu-clock:                         \n\tffffffff82252cd7 exc_page_fault+0xd7 ([kernel.kallsyms])\n\n",
			want: []rec{sample(1, "bash", -1, 30935, 0, 8522122035000, 1001001, "cpu-clock",
				fr{"ffffffff82252cd7", "exc_page_fault", "0xd7", "[kernel.kallsyms]", false})},
		},
	})
}

// TestDropInlineEcho: which repeated frames go (the first user frame's
// copy) and which stay.
func TestDropInlineEcho(t *testing.T) {
	k1 := Frame{Addr: []byte("ffffffff8224d141"), Sym: []byte("do_syscall_64"), Off: []byte("0x71"), DSO: []byte("[kernel.kallsyms]")}
	w := Frame{Addr: []byte("7f88d37f938f"), Sym: []byte("__GI___libc_write"), Off: []byte("0x4f"), DSO: []byte("libc.so.6")}
	c := Frame{Addr: []byte("55ff8128d36d"), Sym: []byte("worker"), Off: []byte("0x57"), DSO: []byte("writers")}
	r := Frame{Addr: []byte("55ff8128d2fb"), Sym: []byte("recurse"), Off: []byte("0x10"), DSO: []byte("writers")}
	r2 := Frame{Addr: []byte("55ff8128d314"), Sym: []byte("recurse"), Off: []byte("0x29"), DSO: []byte("writers")}
	unk := Frame{Addr: []byte("0"), Sym: []byte("[unknown]"), DSO: []byte("[unknown]")}
	inl := Frame{Addr: []byte("7f88d37f938f"), Sym: []byte("write_nocancel"), DSO: []byte("inlined"), Inlined: true}
	syms := func(fs []Frame) string {
		var s []string
		for _, f := range fs {
			s = append(s, string(f.Sym))
		}
		return strings.Join(s, ";")
	}
	for _, tt := range []struct {
		name string
		in   []Frame
		want string
	}{
		{"leaf twice", []Frame{w, w, c}, "__GI___libc_write;worker"},
		{"after the kernel's frames", []Frame{k1, w, w, c}, "do_syscall_64;__GI___libc_write;worker"},
		{"after inlined entries at its address", []Frame{k1, inl, w, w, c}, "do_syscall_64;write_nocancel;__GI___libc_write;worker"},
		{"alone", []Frame{w, w}, "__GI___libc_write"},
		{"recursion at one call site, below the leaf", []Frame{r2, r, r, r, c}, "recurse;recurse;recurse;recurse;worker"},
		{"leaf at its own return address, caller the same function", []Frame{r, r, r2, c}, "recurse;recurse;recurse;worker"},
		{"no symbol", []Frame{unk, unk, c}, "[unknown];[unknown];worker"},
		{"a kernel frame twice", []Frame{k1, k1, w, c}, "do_syscall_64;do_syscall_64;__GI___libc_write;worker"},
		{"other frames", []Frame{w, c, c}, "__GI___libc_write;worker;worker"},
		{"empty", nil, ""},
	} {
		refs := make([]uint32, len(tt.in))
		for i := range refs {
			refs[i] = localRef | uint32(i)
		}
		var out []Frame
		for _, ref := range (&frameRefs{refs: refs, local: tt.in}).dropInlineEcho() {
			out = append(out, tt.in[ref&^localRef])
		}
		if got := syms(out); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
}

// TestPlaceholderComm: perf's ":TID" for a thread it has no name for.
func TestPlaceholderComm(t *testing.T) {
	for _, tt := range []struct {
		comm      string
		tid       int
		is, looks bool
	}{
		{":22580", 22580, true, true},
		{":22580", 22581, false, true},
		{":-1", -1, true, true},
		{":24152", 0, false, true},
		{"cc1", 22580, false, false},
		{":", 0, false, false},
		{"kworker/0:1", 0, false, false},
		{":x1", 1, false, false},
	} {
		if got := IsPlaceholderComm([]byte(tt.comm), tt.tid); got != tt.is {
			t.Errorf("IsPlaceholderComm(%q, %d) = %v", tt.comm, tt.tid, got)
		}
		if got := LooksPlaceholderComm([]byte(tt.comm)); got != tt.looks {
			t.Errorf("LooksPlaceholderComm(%q) = %v", tt.comm, got)
		}
	}
}
