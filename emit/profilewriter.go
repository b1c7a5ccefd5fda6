package emit

import (
	"io"

	"github.com/wallfold/wallfold/parse"
	"github.com/wallfold/wallfold/state"
)

// profileWriter is the pprof output: a handle is a (stack, comm) pair of
// the Profile's tables, its comm a label.
type profileWriter struct {
	prof *Profile
	refs chunkList[profileRef] // by handle
	// stackRef is the handle + 1 of each stack's latest (stack, comm)
	// pair, 0: none; the stack's other pairs follow from there (a stack
	// is mostly seen with one comm).
	stackRef chunkList[uint32]
	offLeaf  map[[2]uint32]uint32 // (stack, state) -> the stack with its leaf
	wakers   *WakerNames          // names Sample.Waker
}

// profileRef is a handle's (stack, comm) pair, and the handle + 1 of its
// stack's pair made before it (0: none).
type profileRef struct {
	stack, comm, next uint32
}

func newProfileWriter(o Options) *profileWriter {
	p := NewProfile(o.Names, o.Labels)
	return &profileWriter{prof: p, refs: chunkList[profileRef]{huge: true}, stackRef: chunkList[uint32]{huge: true},
		offLeaf: make(map[[2]uint32]uint32), wakers: o.Wakers}
}

func (w *profileWriter) Intern(rec *parse.Record, stack *parse.Stack) uint32 {
	st, comm := w.prof.Stack(stack, string(rec.Comm) == "java"), w.prof.Comm(rec.Comm)
	for int(st) >= w.stackRef.n {
		w.stackRef.add(0)
	}
	first := w.stackRef.at(st)
	for r := *first; r != 0; r = w.refs.at(r - 1).next {
		if w.refs.at(r-1).comm == comm {
			return r - 1
		}
	}
	h := w.refs.add(profileRef{st, comm, *first})
	*first = h + 1
	return h
}

// Add adds a sample to the profile; off-CPU and lost time (wall only,
// label state) at the stack with a leaf frame that names the state.
func (w *profileWriter) Add(s *Sample) {
	r := w.refs.at(s.Ref)
	if s.State == state.OnCPU {
		w.prof.Add(s.Window, r.stack, r.comm, s.PID, s.TID, s.Parallelism, s.Period, s.Wall)
		return
	}
	k := [2]uint32{r.stack, uint32(s.State)}
	st, ok := w.offLeaf[k]
	if !ok {
		st = w.prof.WithLeaf(r.stack, "["+s.State.String()+"]")
		w.offLeaf[k] = st
	}
	w.prof.AddOffWoken(s.Window, st, r.comm, s.PID, s.TID, s.State.String(), w.wakers.Name(s.Waker), s.Wall)
}

func (w *profileWriter) Comm(ref uint32) string     { return w.prof.CommName(w.refs.at(ref).comm) }
func (w *profileWriter) Frames(ref uint32) []string { return w.prof.StackNames(w.refs.at(ref).stack) }

// WriteTo writes one profile of all the samples (whatever --split).
func (w *profileWriter) WriteTo(out io.Writer, end *End) error {
	meta := end.Meta(-1)
	return w.prof.WriteEach(func(int32) Meta { return meta }, true, func(_ int32, enc func(io.Writer) error) error {
		return enc(out)
	})
}

// WriteEach writes one profile per --split window that has samples, in
// order: open is called with the window's number (from 0 at the trace's
// first record) and a function that writes its profile.
func (w *profileWriter) WriteEach(end *End, open func(win int, write func(io.Writer) error) error) error {
	return w.prof.WriteEach(end.Meta, false, func(win int32, enc func(io.Writer) error) error {
		return open(int(win), enc)
	})
}

// SplitWriter is a Writer that can write one output per --split window.
type SplitWriter interface {
	WriteEach(end *End, open func(win int, write func(io.Writer) error) error) error
}
