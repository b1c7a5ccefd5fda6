package fold

import (
	"bufio"
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wallfold/wallfold/internal/testtrace"
	"github.com/wallfold/wallfold/parse"
)

// countCutStacks counts in perf script text, without the package's
// parser, the cpu-clock samples and those whose stack has 1 to 3 frames
// outside the kernel, the outermost of which is none of the entry points
// the shipped recordings have.
func countCutStacks(text []byte) (samples, cut int) {
	entry := map[string]bool{"_start": true, "__libc_start_main_impl": true, "__libc_start_call_main": true, "main": true,
		"_dl_start_user": true, "start_thread": true, "clone3": true, "runtime.goexit.abi0": true, "runtime.mstart.abi0": true}
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(nil, 1<<20)
	in, user, root := false, 0, ""
	end := func() {
		if in && user > 0 && user <= 3 && !entry[root] {
			cut++
		}
		in = false
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.Contains(line, " cpu-clock:"):
			end()
			samples++
			in, user, root = strings.HasSuffix(strings.TrimSpace(line), "cpu-clock:"), 0, ""
		case in && strings.HasPrefix(line, "\t"):
			f := strings.Fields(line)
			dso := f[len(f)-1]
			if len(f) < 3 || dso == "([kernel.kallsyms])" {
				continue
			}
			user++
			root, _, _ = strings.Cut(f[1], "+0x")
		default:
			end()
		}
	}
	end()
	return samples, cut
}

// The same binary built with -O2 -fomit-frame-pointer, recorded with -g
// (the walk stops at spin_for) and with --call-graph dwarf (whole
// stacks): one warning on the first, naming both remedies and the
// samples as counted here; none on the second.
func TestShortStacksRecorded(t *testing.T) {
	for _, tt := range []struct {
		name string
		warn bool
	}{{"omitfp.g", true}, {"omitfp.dwarf", false}} {
		t.Run(tt.name, func(t *testing.T) {
			text := testtrace.Read(t, filepath.Join("testdata", "shortstack", tt.name+".txt.gz"))
			samples, cut := countCutStacks(text)
			_, stderr, err := runText(t, string(text), Config{})
			if err != nil {
				t.Fatal(err)
			}
			n := strings.Count(stderr, "do not reach a thread's start")
			if !tt.warn {
				if n != 0 || cut*10 > samples {
					t.Fatalf("%d of %d samples cut (counted), warnings:\n%s", cut, samples, stderr)
				}
				return
			}
			want := fmt.Sprintf("%d of %d samples", cut, samples)
			if n != 1 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "--call-graph dwarf") ||
				!strings.Contains(stderr, "-fno-omit-frame-pointer") || !strings.Contains(stderr, "phases_nofp;[unknown];spin_for") {
				t.Fatalf("want one warning with %q, the heaviest stack and both remedies, got:\n%s", want, stderr)
			}
		})
	}
}

// Every shipped trace: the warning comes exactly where most samples sit
// in cut stacks by the count here. Those recorded from programs built
// with frame pointers (phases, spin, the Go program) have none; the
// build's compilers (Debian's cc1 and as, without frame pointers) have
// most of theirs cut.
func TestShortStacksShipped(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "..", "testdata", "traces", "*.txt*"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no traces: %v", err)
	}
	warned := 0
	for _, p := range paths {
		text := testtrace.Read(t, p)
		samples, cut := countCutStacks(text)
		_, stderr, err := runText(t, string(text), Config{})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		share := float64(cut) / float64(max(samples, 1))
		if share > 0.4 && share < 0.6 {
			t.Fatalf("%s: %d of %d samples cut: too near the threshold for this test", p, cut, samples)
		}
		got := strings.Contains(stderr, "do not reach a thread's start")
		if got != (share > 0.5) {
			t.Errorf("%s: %d of %d samples cut (counted), warning %v:\n%s", p, cut, samples, got, stderr)
		}
		if got {
			warned++
		}
	}
	if warned != 2 { // build.txt.gz and build.pid.txt.gz
		t.Errorf("%d traces warned, want the build's 2", warned)
	}
}

// The warning needs a cut stack: a trace recorded without -g (the frame
// on the sample's line) says nothing, nor does one whose stacks start at
// main.
func TestShortStacksNotJudged(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "app    10     1.%03d000:    1000000 cpu-clock:      1000 leaf+0x1 (/bin/app)\n", i+1)
	}
	if _, stderr, err := runText(t, b.String(), Config{}); err != nil || strings.Contains(stderr, "thread's start") {
		t.Errorf("no -g: %v\n%s", err, stderr)
	}
	b.Reset()
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "app    10     1.%03d000:    1000000 cpu-clock:\n\t            1000 leaf+0x1 (/bin/app)\n\t            2000 main+0x1 (/bin/app)\n\n", i+1)
	}
	if _, stderr, err := runText(t, b.String(), Config{}); err != nil || strings.Contains(stderr, "thread's start") {
		t.Errorf("main;leaf: %v\n%s", err, stderr)
	}
}

// isCut on stacks as perf prints them (innermost first): the entry
// points under their printed names, kernel frames not counted, the vDSO
// counted as user code.
func TestIsCutStack(t *testing.T) {
	fr := func(specs ...string) []parse.Frame {
		var fs []parse.Frame
		for i, s := range specs {
			sym, dso, _ := strings.Cut(s, " ")
			fs = append(fs, parse.Frame{Sym: []byte(sym), DSO: []byte(dso), ID: uint32(i + 1)})
		}
		return fs
	}
	for _, tt := range []struct {
		frames []parse.Frame
		cut    bool
	}{
		{fr("spin_for /bin/app", "[unknown] [unknown]"), true},
		{fr("__vdso_clock_gettime [vdso]"), true},
		{fr("leaf /bin/app", "main /bin/app"), false},
		{fr("leaf /bin/app", "__libc_start_main@@GLIBC_2.34 /lib/libc.so.6"), false},
		{fr("leaf /bin/app", "__GI___clone3 /lib/libc.so.6"), false},
		{fr("main.work /bin/app", "runtime.goexit.abi0 /bin/app"), false},
		{fr("schedule [kernel.kallsyms]", "do_syscall_64 [kernel.kallsyms]"), false},
		{fr("schedule [kernel.kallsyms]", "do_syscall_64 [kernel.kallsyms]", "read /lib/libc.so.6", "[unknown] [unknown]"), true},
		{fr("a /bin/app", "b /bin/app", "c /bin/app", "d /bin/app"), false},
		{nil, false},
	} {
		if got := new(shortStacks).isCut(parse.NewStack(tt.frames)); got != tt.cut {
			t.Errorf("%+v: cut %v, want %v", tt.frames, got, tt.cut)
		}
	}
	if new(shortStacks).isCut(parse.NewStack([]parse.Frame{{Sym: []byte("leaf"), DSO: []byte("/bin/app")}})) {
		t.Error("a frame of the sample's line (ID 0: recorded without -g) is judged")
	}
	// One judge, frames met again in other stacks: what it learnt of a
	// frame by its ID (user code, an entry point) holds there too.
	leaf := parse.Frame{Sym: []byte("leaf"), DSO: []byte("/bin/app"), ID: 10}
	main := parse.Frame{Sym: []byte("main"), DSO: []byte("/bin/app"), ID: 11}
	kern := parse.Frame{Sym: []byte("schedule"), DSO: []byte("[kernel.kallsyms]"), ID: 12}
	c := new(shortStacks)
	for _, tt := range []struct {
		frames []parse.Frame
		cut    bool
	}{
		{[]parse.Frame{kern, leaf, main}, false},
		{[]parse.Frame{leaf}, true},
		{[]parse.Frame{kern, main}, false},
		{[]parse.Frame{kern, leaf}, true},
		{[]parse.Frame{kern}, false},
	} {
		if got := c.isCut(parse.NewStack(tt.frames)); got != tt.cut {
			t.Errorf("%+v: cut %v, want %v", tt.frames, got, tt.cut)
		}
	}
}
