package fold

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wallfold/wallfold/parse"
)

// spinner: thread 10 works alone (serial) from 1.000 to 1.0025 s while
// thread 11 spins in sched_yield (kernel frames innermost, as perf
// prints a yield caught in the kernel), then both work to 1.0045 s.
// 1 ms periods. Truth: serial 2.5 ms of wall, together 2 ms: serial's
// samples weigh 1 ms each, the spinner's nothing.
const spinner = `app    10     1.000000: PERF_RECORD_SWITCH IN
worker    11     1.000000: PERF_RECORD_SWITCH IN
app    10     1.001000:    1000000 cpu-clock:
	            1000 serial+0x1 (/bin/app)
	            2000 main+0x1 (/bin/app)

worker    11     1.001000:    1000000 cpu-clock:
	    ffffffff81000001 do_sched_yield+0x1 ([kernel.kallsyms])
	    ffffffff81000002 entry_SYSCALL_64+0x1 ([kernel.kallsyms])
	            5000 __sched_yield+0x1 (/lib/libc.so.6)
	            4000 pool_wait+0x1 (/bin/app)

app    10     1.002000:    1000000 cpu-clock:
	            1000 serial+0x1 (/bin/app)
	            2000 main+0x1 (/bin/app)

worker    11     1.002000:    1000000 cpu-clock:
	            5000 __sched_yield+0x1 (/lib/libc.so.6)
	            4000 pool_wait+0x1 (/bin/app)

app    10     1.003000:    1000000 cpu-clock:
	            3000 together+0x1 (/bin/app)
	            2000 main+0x1 (/bin/app)

worker    11     1.003000:    1000000 cpu-clock:
	            3000 together+0x1 (/bin/app)
	            5000 __sched_yield+0x1 (/lib/libc.so.6)

app    10     1.004000:    1000000 cpu-clock:
	            3000 together+0x1 (/bin/app)
	            2000 main+0x1 (/bin/app)

worker    11     1.004000:    1000000 cpu-clock:
	            3000 together+0x1 (/bin/app)
	            5000 __sched_yield+0x1 (/lib/libc.so.6)

app    10     1.004500: PERF_RECORD_SWITCH OUT
worker    11     1.004500: PERF_RECORD_SWITCH OUT
`

// plain is spinner with spinning as work: everything at parallelism 2.
const plain = "app;main;serial 1000000\napp;main;together 1000000\nworker;__sched_yield;together 1000000\nworker;pool_wait;__sched_yield 500000\nworker;pool_wait;__sched_yield;entry_SYSCALL_64;do_sched_yield 500000\n"

// TestSpinRule: the built-in list finds the yield by the innermost user
// frame (a stack with sched_yield deeper down is work); --spin=REGEX
// replaces the list; none counts spinning as work.
func TestSpinRule(t *testing.T) {
	rule := func(s string) SpinRule {
		var r SpinRule
		if err := r.UnmarshalText([]byte(s)); err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, tt := range []struct {
		name string
		spin SpinRule
		want string
		warn bool
	}{
		{"builtin", SpinRule{}, "app;main;serial 2000000\napp;main;together 1000000\nworker;__sched_yield;together 1000000\n", true},
		// the innermost user frame only: pool_wait is never it
		{"regex", rule("^pool_wait$"), plain, false},
		{"none", rule("none"), plain, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, stderr, err := runText(t, spinner, Config{Spin: tt.spin})
			// the folded lines with weight 0 are dropped
			if err != nil || out != tt.want {
				t.Errorf("got (%v)\n%s\nwant\n%s", err, out, tt.want)
			}
			if got := strings.Contains(stderr, "spin-waits"); got != tt.warn {
				t.Errorf("spin warning %v, want %v: %q", got, tt.warn, stderr)
			}
		})
	}
	var r SpinRule
	if err := r.UnmarshalText([]byte("(")); err == nil || !strings.Contains(err.Error(), "--spin") {
		t.Errorf("bad regex: %v", err)
	}
}

// TestBuiltinSpinNames: the built-in list takes the spin-waits' names as
// perf prints them (recorded: __sched_yield, Debian's unnamed libgomp and
// OpenBLAS code as [dso]; documented: libgomp's, LLVM OpenMP's), and not
// the work around them.
func TestBuiltinSpinNames(t *testing.T) {
	for _, n := range []string{"sched_yield", "__sched_yield", "__GI___sched_yield", "blas_thread_server",
		"[libopenblasp-r0.3.21.so]", "[libgomp.so.1.0.0]", "gomp_team_barrier_wait_end", "gomp_barrier_wait_end",
		"do_spin", "__kmp_wait_4", "__kmp_wait_template<kmp_flag_64<false, true>, true, false, true>",
		"__kmp_yield", "__kmp_hyper_barrier_gather", "pthread_spin_lock"} {
		if !builtinSpin().MatchString(n) {
			t.Errorf("%s is not a spin-wait", n)
		}
	}
	for _, n := range []string{"dgemm_kernel_SKYLAKEX", "spin_for", "[libc.so.6]", "main._omp_fn.1",
		"GOMP_parallel", "my_sched_yield_wrapper", "x__kmp_wait"} {
		if builtinSpin().MatchString(n) {
			t.Errorf("%s is a spin-wait", n)
		}
	}
}

// TestSpinWordsCoverBuiltin: every name the built-in list matches holds
// one of builtinSpinWords (match skips the regexp for names without
// one), over names made of the list's own pieces in random order.
func TestSpinWordsCoverBuiltin(t *testing.T) {
	pieces := []string{"_", "__GI_", "sched_yield", "blas_thread_server", "[libopenblas", "p-r0.3.so", "]",
		"gomp_", "team_", "simple_", "barrier_wait", "_end", "do_", "spin", "wait", "[libgomp", ".so.1",
		"__kmp_", "yield", "barrier", "<", "kmp_flag>", "x", "pthread_spin_", "lock", "trylock"}
	rng := rand.New(rand.NewPCG(3, 4))
	matched := 0
	for i := 0; i < 200000; i++ {
		var b strings.Builder
		for n := 1 + rng.IntN(4); n > 0; n-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		name := b.String()
		if builtinSpin().MatchString(name) {
			matched++
			if !hasSpinWord(name) {
				t.Fatalf("%q is a spin-wait with none of builtinSpinWords", name)
			}
		}
	}
	if matched < 1000 {
		t.Fatalf("only %d of the names were spin-waits: the test says little", matched)
	}
}

// TestSpinsByFrameID: one detector, frames met again in other stacks:
// what it learnt of a frame by its ID (a kernel frame passed over, a
// user frame's verdict) holds there too, and a frame without an ID is
// judged each time.
func TestSpinsByFrameID(t *testing.T) {
	kern := parse.Frame{Sym: []byte("do_syscall_64"), DSO: []byte("[kernel.kallsyms]"), ID: 1}
	yield := parse.Frame{Sym: []byte("__sched_yield"), DSO: []byte("/lib/libc.so.6"), ID: 2}
	work := parse.Frame{Sym: []byte("work"), DSO: []byte("/bin/app"), ID: 3}
	plainYield := yield
	plainYield.ID = 0
	d := newSpinDetector(SpinRule{})
	for _, tt := range []struct {
		frames []parse.Frame
		spins  bool
	}{
		{[]parse.Frame{kern, yield, work}, true},
		{[]parse.Frame{kern, work, yield}, false},
		{[]parse.Frame{yield}, true},
		{[]parse.Frame{kern}, false},
		{[]parse.Frame{kern, kern, yield}, true},
		{[]parse.Frame{kern, plainYield}, true},
		{[]parse.Frame{work, plainYield}, false},
		{nil, false},
	} {
		if got := d.spins(parse.NewStack(tt.frames)); got != tt.spins {
			t.Errorf("%+v: spins %v, want %v", tt.frames, got, tt.spins)
		}
	}
}
