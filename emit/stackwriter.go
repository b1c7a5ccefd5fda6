package emit

import (
	"bytes"
	"fmt"
	"io"

	"github.com/wallfold/wallfold/parse"
	"github.com/wallfold/wallfold/state"
)

// stackWriter is the folded, top and svg outputs: stacks of frame names,
// rooted at the thread's name, with their CPU and wall totals.
type stackWriter struct {
	o      Options
	stacks *Stacks
	totals Totals
	roots  rootCache
	// (par name, stack) -> the stack with "[parallelism N]" as its root
	parRoot map[[2]uint32]uint32
	// (stack, state) -> the stack with a leaf that names the state
	offLeaf map[[2]uint32]uint32
	// --pid/--tid without a pid column: the stacks rooted at "comm-?"
	// (their thread's comm), and each re-rooted at the pid the model
	// learnt, as the pprof pid label has it (see Rooted).
	noPID    map[uint32][]byte
	withPIDs map[pidStack]uint32
	// svg: each stack's wall by parallelism band (ParallelismBand).
	bands *StackSums
}

func newStackWriter(o Options) *stackWriter {
	w := &stackWriter{o: o, stacks: NewStacks(o.Names), offLeaf: make(map[[2]uint32]uint32)}
	if o.ParallelismFrame {
		w.parRoot = make(map[[2]uint32]uint32)
	}
	if o.Format == SVG {
		w.bands = &StackSums{K: NumBands}
	}
	return w
}

// Intern roots the frames at the thread's name (comm-PID[/TID] with --pid
// or --tid), as stackcollapse-perf.pl does.
func (w *stackWriter) Intern(rec *parse.Record, st *parse.Stack) uint32 {
	root := w.roots.lookup(w.stacks, rec, w.o.PID, w.o.TID)
	id := w.stacks.Intern(root, st, string(rec.Comm) == "java")
	if rec.PID < 0 && (w.o.PID || w.o.TID) {
		if w.noPID == nil {
			w.noPID = make(map[uint32][]byte)
			w.withPIDs = make(map[pidStack]uint32)
		}
		if _, ok := w.noPID[id]; !ok {
			w.noPID[id] = append([]byte(nil), rec.Comm...)
		}
	}
	return id
}

// Add adds the sample to its stack's totals; off-CPU and lost time at the
// stack with a leaf frame that names the state.
func (w *stackWriter) Add(s *Sample) {
	ref := w.Rooted(s.Ref, s.PID, s.TID)
	if s.State != state.OnCPU {
		ref = w.leaf(ref, s.State)
	}
	if w.parRoot != nil {
		ref = w.withParFrame(ref, s.Parallelism)
	}
	w.totals.Add(ref, s.Period, s.Wall)
	if w.bands != nil {
		w.bands.Add(ref, ParallelismBand(s.State, s.Parallelism), s.Wall)
	}
}

// Comm is the name of the stack's root frame.
func (w *stackWriter) Comm(ref uint32) string { return w.stacks.Name(w.stacks.Frames(ref)[0]) }

// Frames are the stack's function names below its root.
func (w *stackWriter) Frames(ref uint32) []string {
	ids := w.stacks.Frames(ref)[1:]
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = w.stacks.Name(id)
	}
	return names
}

// WriteTo writes the folded lines, the top table or the flame graph.
func (w *stackWriter) WriteTo(out io.Writer, end *End) error {
	switch w.o.Format {
	case Top:
		return WriteTop(out, w.stacks, &w.totals, w.o.Top, end.TimeBased, end.Event)
	case SVG:
		f := w.o.SVG
		return WriteSVG(out, w.stacks, &w.totals, SVGOptions{Weight: w.o.Weight, TimeBased: end.TimeBased, Unit: end.Event,
			Title: f.Title, Width: f.Width, MinWidth: f.MinWidth, Reverse: f.Reverse, Sums: w.bands})
	}
	return WriteFolded(out, w.stacks, &w.totals, w.o.Weight)
}

// pidStack is a stack rooted at "comm-?" and the pid learnt for it.
type pidStack struct {
	stack uint32
	pid   int
}

// Rooted returns the stack ref: when it was rooted at "comm-?" (--pid or
// --tid, no pid column) and the model learnt the thread's process (from
// FORK, COMM, EXIT or CPU-wide switch records, as the pprof pid label has
// it), the same stack rooted at comm-PID[/TID].
func (w *stackWriter) Rooted(ref uint32, pid, tid int) uint32 {
	if w.noPID == nil || pid < 0 {
		return ref
	}
	comm, ok := w.noPID[ref]
	if !ok {
		return ref
	}
	k := pidStack{ref, pid}
	if id, ok := w.withPIDs[k]; ok {
		return id
	}
	root := w.stacks.InternName(commRoot(nil, comm, pid, tid, w.o.PID, w.o.TID))
	id := w.stacks.Reroot(ref, root)
	w.withPIDs[k] = id
	return id
}

// leaf returns the stack ref with a leaf frame that names st ([blocked],
// [runnable], [lost]).
func (w *stackWriter) leaf(ref uint32, st state.State) uint32 {
	k := [2]uint32{ref, uint32(st)}
	if id, ok := w.offLeaf[k]; ok {
		return id
	}
	id := w.stacks.Append(ref, w.stacks.InternName([]byte("["+st.String()+"]")))
	w.offLeaf[k] = id
	return id
}

// withParFrame returns the stack ref with "[parallelism N]" as its root.
func (w *stackWriter) withParFrame(ref uint32, par int) uint32 {
	name := w.stacks.InternName([]byte(fmt.Sprintf("[parallelism %d]", par)))
	k := [2]uint32{name, ref}
	if id, ok := w.parRoot[k]; ok {
		return id
	}
	id := w.stacks.Prepend(name, ref)
	w.parRoot[k] = id
	return id
}

// rootCache names folded roots as stackcollapse-perf.pl does (comm, or
// comm-PID[/TID]): consecutive samples mostly share their root, and then
// skip its lookup.
type rootCache struct {
	name     []byte
	id       uint32
	ok       bool
	comm     []byte
	pid, tid int
}

func (r *rootCache) lookup(s *Stacks, rec *parse.Record, withPID, withTID bool) uint32 {
	if r.ok && bytes.Equal(rec.Comm, r.comm) && (!(withPID || withTID) || (rec.PID == r.pid && rec.TID == r.tid)) {
		return r.id
	}
	r.name = commRoot(r.name, rec.Comm, rec.PID, rec.TID, withPID, withTID)
	r.id = s.InternName(r.name)
	r.comm = append(r.comm[:0], rec.Comm...)
	r.pid, r.tid, r.ok = rec.PID, rec.TID, true
	return r.id
}

// commRoot formats the root frame as stackcollapse-perf.pl does.
func commRoot(dst, comm []byte, pid, tid int, withPID, withTID bool) []byte {
	dst = dst[:0]
	for _, c := range comm {
		if c == ' ' {
			c = '_'
		}
		dst = append(dst, c)
	}
	if withPID || withTID {
		dst = append(dst, '-')
		if pid >= 0 {
			dst = fmt.Appendf(dst, "%d", pid)
		} else {
			dst = append(dst, '?')
		}
		if withTID {
			dst = fmt.Appendf(dst, "/%d", tid)
		}
	}
	return dst
}
