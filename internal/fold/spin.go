package fold

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/wallfold/wallfold/emit"
	"github.com/wallfold/wallfold/parse"
	"github.com/wallfold/wallfold/state"
)

// BuiltinSpin is the spin-wait list: functions in which runtimes burn a
// CPU while they wait for other threads' work, as they show at the
// innermost user frame of a waiting thread's samples.
//   - sched_yield, as glibc names it: OpenBLAS's idle workers, CUDA and
//     other runtimes yield in a loop;
//   - blas_thread_server: OpenBLAS's worker polling its queue between
//     yields (while it works, a kernel is the innermost frame);
//   - libgomp's barrier and thread-pool waits (GOMP_SPINCOUNT);
//   - LLVM and Intel OpenMP (also under MKL): __kmp_*wait*, *yield*,
//     *barrier*;
//   - pthread_spin_lock.
//
// Debian's libgomp and OpenBLAS have no symbols for their internal
// functions: their waits are [libgomp.so.1.0.0] and
// [libopenblasp-r0.3.21.so] (measured: with OPENBLAS_THREAD_TIMEOUT=4,
// which puts the worker to sleep at once, no sample of the worker ends
// in an unnamed OpenBLAS function; their work is in named kernels).
const BuiltinSpin = `^(?:(?:__GI_)?_*sched_yield` +
	`|blas_thread_server|\[libopenblas[^\]]*\]` +
	`|gomp_(?:team_)?barrier_wait\w*|gomp_simple_barrier_wait\w*|do_(?:spin|wait)|\[libgomp[^\]]*\]` +
	`|__kmp_\w*(?:wait|yield|barrier)\w*(?:<.*)?` +
	`|_*pthread_spin_(?:lock|trylock))$`

// The list is anchored as a whole: a search from every position of every
// distinct frame (an unanchored __kmp_ alternative) took a fifth of a
// run's instructions on a 40 MB build trace (callgrind).

// SpinRule says which samples are spin-waits: those whose innermost frame
// outside the kernel names a function it matches, by its name as the
// output writes it (emit.FrameNames: an unknown symbol as [dso], the
// DSO's base name). Its zero value is the built-in list; "none" turns the
// rule off.
type SpinRule struct {
	re  *regexp.Regexp // nil: the built-in list
	off bool
}

// builtinSpin is BuiltinSpin compiled at its first use: a CPU profile
// never matches it, and compiling it when the package was loaded cost
// every run 0.3 ms and 58 KB of startup.
var builtinSpin = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(BuiltinSpin) })

// UnmarshalText reads a regular expression, or none (for flags).
func (r *SpinRule) UnmarshalText(b []byte) error {
	if string(b) == "none" {
		*r = SpinRule{off: true}
		return nil
	}
	re, err := regexp.Compile(string(b))
	if err != nil {
		return fmt.Errorf("--spin: %v (a Go regular expression matched against function names, or none)", err)
	}
	*r = SpinRule{re: re}
	return nil
}

// spinDetector marks samples as spin-waits and counts what the rule did.
type spinDetector struct {
	re *regexp.Regexp // nil: the built-in list
	// byID caches the verdict on a frame by its parse.Frame ID: 0 not
	// asked yet, 1 no, 2 yes, 3 a kernel frame (passed over): a new stack
	// of frames met before is judged without making a Frame.
	byID []uint8
	// byRef caches the verdict on a stack by the output's handle (as byID).
	byRef []uint8
	names []string // scratch: a frame's names
	// Profiled spin samples: how many, their CPU, their wall with the
	// rule and as work (period/all running threads).
	samples          int
	cpu, wall, plain float64
}

func newSpinDetector(rule SpinRule) *spinDetector {
	if rule.off {
		return nil
	}
	return &spinDetector{re: rule.re}
}

// spinsAt is spins for a stack the output interned as ref (>= 0): its
// verdict is kept by ref, one lookup per sample (the frames' walk cost 1 %
// of a run).
func (d *spinDetector) spinsAt(ref int, st *parse.Stack) bool {
	if ref < 0 {
		return d.spins(st)
	}
	if ref >= len(d.byRef) {
		if ref >= maxSpinRefs {
			return d.spins(st)
		}
		d.byRef = extended(d.byRef, ref+1)
	}
	v := d.byRef[ref]
	if v == 0 {
		v = 1
		if d.spins(st) {
			v = 2
		}
		d.byRef[ref] = v
	}
	return v == 2
}

// maxSpinRefs bounds byRef (a byte per stack).
const maxSpinRefs = 1 << 24

// spins reports a stack (innermost frame first, as perf prints it) whose
// innermost frame outside the kernel is a spin-wait: the thread waits,
// whatever system call or interrupt it is in.
func (d *spinDetector) spins(st *parse.Stack) bool {
	var f parse.Frame
	for i := range st.Len() {
		id := st.ID(i)
		if id == 0 {
			// Not numbered: each time (a new stack's).
			if st.Frame(i, &f); emit.IsKernelDSO(f.DSO) {
				continue
			}
			return d.match(&f)
		}
		if int(id) >= len(d.byID) {
			d.byID = append(d.byID, make([]uint8, int(id)+1-len(d.byID))...)
		}
		v := d.byID[id]
		if v == 0 {
			st.Frame(i, &f)
			switch {
			case emit.IsKernelDSO(f.DSO):
				v = 3
			case d.match(&f):
				v = 2
			default:
				v = 1
			}
			d.byID[id] = v
		}
		if v != 3 {
			return v == 2
		}
	}
	return false
}

// match matches a frame's name as the output writes it (its innermost
// name, for an inline chain).
func (d *spinDetector) match(f *parse.Frame) bool {
	d.names = emit.FrameNames(d.names[:0], f, false, emit.NameOptions{})
	if len(d.names) == 0 {
		return false
	}
	name := d.names[len(d.names)-1]
	if d.re != nil {
		return d.re.MatchString(name)
	}
	if !hasSpinWord(name) {
		return false // the regexp took some 2 600 instructions to say so
	}
	return builtinSpin().MatchString(name)
}

// builtinSpinWords: every name BuiltinSpin matches holds one of them
// (each of its alternatives spells one out), so a name with none is no
// spin-wait.
var builtinSpinWords = []string{"sched_yield", "blas_thread_server", "[libopenblas", "gomp_", "do_spin", "do_wait", "[libgomp", "__kmp_", "pthread_spin_"}

func hasSpinWord(name string) bool {
	for _, w := range builtinSpinWords {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// note counts a released profiled sample of wall weight wall.
func (d *spinDetector) note(w *state.Weighted, wall float64) {
	if d == nil || !w.Spin {
		return
	}
	d.samples++
	d.cpu += float64(w.Period)
	d.wall += wall
	d.plain += float64(w.Period) / float64(max(w.Parallelism, 1))
}

// warning says, once, how the rule changed the profile.
func (d *spinDetector) warning(unit func(float64) string) string {
	if d == nil || d.samples == 0 || d.plain-d.wall < 1e-9*d.plain {
		return ""
	}
	return fmt.Sprintf("%d samples (CPU %s) are spin-waits (their innermost user frame matches --spin): they weigh nothing while another thread of their group works, wall %s instead of %s; the difference went to the threads that worked. --spin=none counts spinning as work", d.samples, unit(d.cpu), unit(d.wall), unit(d.plain))
}
