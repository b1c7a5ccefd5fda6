package fold

import (
	"fmt"
	"strings"

	"github.com/wallfold/wallfold/emit"
	"github.com/wallfold/wallfold/parse"
)

// A frame-pointer unwinder (perf record -g) stops at the first function
// built without frame pointers: a program built with -O2 (which omits
// them), or a library such as libcrypto or most of libc, gives stacks of
// a frame or two under the thread's name, and the profile says nothing of
// who called them. Such a stack is told by its user frames: one to three,
// the outermost of which is not where a thread's code starts. A stack
// that reaches its thread's start is whole however short (a busy main).

// shortStackMaxFrames: a stack with more user frames is taken as whole.
// Three: _start, __libc_start_main and main, or start_thread and the
// thread's function, hold whole stacks of one or two functions.
const shortStackMaxFrames = 3

// shortStackShare: the warning comes when more of the wall time on CPU (a
// CPU profile's CPU time) than this sits in cut stacks: the profile then
// mostly lacks its callers.
const shortStackShare = 0.5

// shortStackMinSamples: fewer profiled samples say too little to warn.
const shortStackMinSamples = 20

// entryPoints are the functions at which a thread's stack starts, as
// perf names them once rootName has taken off their versions and
// suffixes:
//   - a process: _start, glibc's __libc_start_main (and since glibc 2.34
//     __libc_start_call_main, where a frame-pointer walk ends), main
//     (when the libc frames above it have no frame pointers), the dynamic
//     loader's _dl_start and _dl_start_user before main;
//   - a thread: glibc's start_thread, the clone and clone3 system call
//     wrappers (__clone, __clone3 inside glibc) where dwarf unwinding
//     ends, musl's start and thread_start (bionic's __pthread_start);
//   - Go: a goroutine's runtime.goexit, runtime.main, runtime.mstart
//     (a thread's system stack), runtime.rt0_go (start-up).
//
// Kernel frames never count: a stack all in the kernel (kernel threads,
// idle, a process's exit) has no user part to cut.
var entryPoints = map[string]bool{
	"_start": true, "__libc_start_main": true, "__libc_start_main_impl": true, "__libc_start_call_main": true,
	"main": true, "_dl_start": true, "_dl_start_user": true,
	"start_thread": true, "clone": true, "clone3": true, "__clone": true, "__clone3": true,
	"start": true, "thread_start": true, "__pthread_start": true,
	"runtime.goexit": true, "runtime.main": true, "runtime.mstart": true, "runtime.rt0_go": true,
}

// rootName is a symbol as entryPoints lists it: without glibc's internal
// __GI_ prefix, a symbol version (@@GLIBC_2.34) or Go's ABI suffix.
func rootName(sym []byte) string {
	s := string(sym)
	if i := strings.IndexByte(s, '@'); i > 0 {
		s = s[:i]
	}
	s = strings.TrimSuffix(strings.TrimSuffix(s, ".abi0"), ".abiinternal")
	return strings.TrimPrefix(s, "__GI_")
}

// shortStacks counts the wall time on CPU (CPU time) in cut stacks. Its verdicts
// are kept by the output's stack handle, asked once per stack: a sample
// costs an index, not a walk of its frames.
type shortStacks struct {
	byRef []uint8 // 0 not judged, 1 whole, 2 cut
	// byID is what isCut asks of a frame (frameUser, frameEntry; 0 not
	// asked yet), by its ID: a new stack of frames met before is judged
	// without making a Frame.
	byID []uint8
	wall []float64 // a cut stack's wall time, by handle
	// The profiled samples' wall time on CPU, those of cut stacks, and
	// how many samples of each.
	total, cut     float64
	samples, short int
	// cpu: a CPU profile, which has no wall time: the same shares by
	// CPU time (what the profile weighs).
	cpu bool
}

// see judges the stack the output interned as ref, once.
func (c *shortStacks) see(ref int, st *parse.Stack) {
	if ref < 0 || ref >= maxSpinRefs {
		return
	}
	if ref >= len(c.byRef) {
		c.byRef = extended(c.byRef, ref+1)
		c.wall = extended(c.wall, ref+1)
	}
	if c.byRef[ref] == 0 {
		c.byRef[ref] = 1
		if c.isCut(st) {
			c.byRef[ref] = 2
		}
	}
}

// isCut reports a stack (innermost frame first) of 1 to
// shortStackMaxFrames user frames whose outermost is not an entry point.
// A frame of a sample's header line (recorded without -g: no stack was
// asked for) has ID 0, and so has every frame once the reader stops
// numbering them: such a stack is not judged.
func (c *shortStacks) isCut(st *parse.Stack) bool {
	n, root := 0, uint8(0)
	for i := range st.Len() {
		id := st.ID(i)
		if id == 0 {
			return false
		}
		var is uint8
		if int(id) < len(c.byID) {
			is = c.byID[id]
		}
		if is == 0 {
			is = c.judge(st, i, id)
		}
		if is&frameUser == 0 {
			continue
		}
		n++
		root = is
		if n > shortStackMaxFrames {
			return false // a long stack: no need to walk the rest
		}
	}
	return n > 0 && root&frameEntry == 0
}

// What isCut asks of a frame: frameKnown once asked, frameUser for user
// code (the vDSO is: clock_gettime's), frameEntry for an entry point.
const (
	frameKnown uint8 = 1 << iota
	frameUser
	frameEntry
)

// judge returns what isCut asks of frame i of st, whose ID is id, and
// keeps it.
func (c *shortStacks) judge(st *parse.Stack, i int, id uint32) uint8 {
	var f parse.Frame
	st.Frame(i, &f)
	is := frameKnown
	if !emit.IsKernelDSO(f.DSO) || string(f.DSO) == "[vdso]" {
		is |= frameUser
		if entryPoints[rootName(f.Sym)] {
			is |= frameEntry
		}
	}
	if int(id) >= len(c.byID) {
		c.byID = extended(c.byID, int(id)+1)
	}
	c.byID[id] = is
	return is
}

// note counts a profiled sample of wall time wall (CPU time period in a
// CPU profile) at stack ref.
func (c *shortStacks) note(ref int, wall float64, period uint64) {
	if c.cpu {
		wall = float64(period)
	}
	c.samples++
	c.total += wall
	if ref >= 0 && ref < len(c.byRef) && c.byRef[ref] == 2 {
		c.short++
		c.cut += wall
		c.wall[ref] += wall
	}
}

// warning says, once, that most of the profile sits in cut stacks, with
// the heaviest of them, and how to record whole ones ("": no need).
func (c *shortStacks) warning(names emit.Namer, format func(float64) string) string {
	if c.samples < shortStackMinSamples || c.cut <= shortStackShare*c.total {
		return ""
	}
	top := 0
	for ref, w := range c.wall {
		if w > c.wall[top] {
			top = ref
		}
	}
	stack := strings.Join(append([]string{names.Comm(uint32(top))}, names.Frames(uint32(top))...), ";")
	time := "wall time on CPU"
	if c.cpu {
		time = "CPU time"
	}
	return fmt.Sprintf("%.1f %% of the %s (%s of %s, %d of %d samples) is in stacks of 1-%d frames that do not reach a thread's start (main, start_thread, runtime.goexit...), the heaviest %s (%s): the unwinder stopped at code built without frame pointers, so callers are missing. Record with --call-graph dwarf (perf record --call-graph dwarf: a larger perf.data, a slower perf script), or build with -fno-omit-frame-pointer",
		100*c.cut/c.total, time, format(c.cut), format(c.total), c.short, c.samples, shortStackMaxFrames, stack, format(c.wall[top]))
}
