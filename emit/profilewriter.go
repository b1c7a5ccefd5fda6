package emit

import (
	"io"

	"github.com/wallfold/wallfold/parse"
	"github.com/wallfold/wallfold/state"
)

// profileWriter is the pprof output: a handle is a (stack, comm) pair of
// the Profile's tables, its comm a label.
type profileWriter struct {
	prof  *Profile
	refs  [][2]uint32 // handle -> (stack, comm)
	refID map[[2]uint32]uint32
	// stackRef is the handle + 1 of each stack with the first comm it was
	// seen with (0: none yet): a lookup without refID for most samples.
	stackRef []uint32
	offLeaf  map[[2]uint32]uint32 // (stack, state) -> the stack with its leaf
	wakers   *WakerNames          // names Sample.Waker
}

func newProfileWriter(o Options) *profileWriter {
	return &profileWriter{prof: NewProfile(o.Names, o.Labels), refID: make(map[[2]uint32]uint32),
		offLeaf: make(map[[2]uint32]uint32), wakers: o.Wakers}
}

func (w *profileWriter) Intern(rec *parse.Record, frames []parse.Frame) uint32 {
	k := [2]uint32{w.prof.Stack(frames, string(rec.Comm) == "java"), w.prof.Comm(rec.Comm)}
	st := int(k[0])
	if st < len(w.stackRef) {
		if r := w.stackRef[st]; r != 0 && w.refs[r-1] == k {
			return r - 1
		}
	}
	ref, ok := w.refID[k]
	if !ok {
		ref = uint32(len(w.refs))
		w.refs = appendDoubling(w.refs, k)
		w.refID[k] = ref
	}
	if st >= len(w.stackRef) {
		w.stackRef = append(w.stackRef, make([]uint32, max(st+1, 2*len(w.stackRef))-len(w.stackRef))...)
	}
	if w.stackRef[st] == 0 {
		w.stackRef[st] = ref + 1
	}
	return ref
}

// Add adds a sample to the profile; off-CPU and lost time (wall only,
// label state) at the stack with a leaf frame that names the state.
func (w *profileWriter) Add(s *Sample) {
	r := w.refs[s.Ref]
	if s.State == state.OnCPU {
		w.prof.Add(s.Window, r[0], r[1], s.PID, s.TID, s.Parallelism, s.Period, s.Wall)
		return
	}
	k := [2]uint32{r[0], uint32(s.State)}
	st, ok := w.offLeaf[k]
	if !ok {
		st = w.prof.WithLeaf(r[0], "["+s.State.String()+"]")
		w.offLeaf[k] = st
	}
	w.prof.AddOffWoken(s.Window, st, r[1], s.PID, s.TID, s.State.String(), w.wakers.Name(s.Waker), s.Wall)
}

func (w *profileWriter) Comm(ref uint32) string     { return w.prof.CommName(w.refs[ref][1]) }
func (w *profileWriter) Frames(ref uint32) []string { return w.prof.StackNames(w.refs[ref][0]) }

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
