package parse

// Stack is a sample's frames, innermost first: each frame's ID (see
// Frame.ID) at once, its Frame only when asked. Most of what is made of
// a sample needs only the IDs (an output keeps what it made of a frame
// by ID); a Frame is 112 bytes filled from the frame table, which a
// concurrent Reader's caller reads from the other core's cache.
//
// A Stack and its Frames are the Reader's, valid until its next Scan.
type Stack struct {
	// ids are the frames' IDs as callers see them: refs, but the reader's
	// numbering in a parallel reader (its workers number their own). A
	// frame not in a table is localRef|i: no ID.
	ids []uint32
	frameRefs
	frames []Frame // made by Frames once per sample, memory reused
	made   bool
}

// NewStack returns the Stack of frames (innermost first) made elsewhere,
// their IDs as they are.
func NewStack(frames []Frame) *Stack {
	s := &Stack{frames: frames, made: true, ids: make([]uint32, len(frames))}
	for i := range frames {
		s.ids[i] = frames[i].ID
	}
	return s
}

// Len is the number of frames (a nil Stack has none).
func (s *Stack) Len() int {
	if s == nil {
		return 0
	}
	return len(s.ids)
}

// ID is frame i's ID, Frame.ID: 0 for a frame the Reader did not number.
func (s *Stack) ID(i int) uint32 {
	if id := s.ids[i]; id&localRef == 0 {
		return id
	}
	return 0
}

// Frame sets *f to frame i: for a caller that needs few of the frames
// (those whose IDs it has not met), each made on its own.
func (s *Stack) Frame(i int, f *Frame) {
	if s.made {
		*f = s.frames[i]
		return
	}
	s.frame(i, f)
	f.ID = s.ID(i)
}

// Frames returns the frames, made at the sample's first call.
func (s *Stack) Frames() []Frame {
	if s == nil {
		return nil
	}
	if !s.made {
		n := len(s.refs)
		if cap(s.frames) < n {
			s.frames = make([]Frame, n, max(n, 2*cap(s.frames)))
		}
		fs := s.frames[:n:n]
		for i := range fs {
			s.Frame(i, &fs[i])
		}
		s.frames, s.made = fs, true
	}
	return s.frames
}

// set makes s the stack of the frames at refs, whose IDs are ids (refs
// itself, but in a parallel reader).
func (s *Stack) set(ids, refs []uint32, tab *frameTable, local []Frame) {
	// Field by field: a frameRefs literal is copied by loads that the
	// CPU cannot forward from its stores (batch.record).
	s.ids, s.refs, s.tab, s.local = ids, refs, tab, local
	s.frames, s.made = s.frames[:0], false
}

// The producer's side: a sample's frames as refs (p.refs[p.refStart:])
// and, for those not in the table, Frames (p.frames).

// tabled adds the table's frame id to the sample.
func (p *lineParser) tabled(id uint32) {
	p.follow(id)
	p.refs = append(p.refs, id)
}

// guessed adds the table's frame id, the guess (next[last]), to the
// sample: the guess needs no recording.
func (p *lineParser) guessed(id uint32) {
	p.last = id
	p.refs = append(p.refs, id)
}

// addFrame appends a frame that is not in the table.
func (p *lineParser) addFrame(f Frame) {
	p.refs = append(p.refs, localRef|uint32(len(p.frames)))
	p.frames = append(p.frames, f)
}

// MaxSampleFrames and maxSampleBytes bound a sample's stack, so that one
// endless sample (a header, then stack lines without end) cannot take
// all memory: 128 Ki frames is a thousand times perf's default depth.
const (
	MaxSampleFrames = 1 << 17
	maxSampleBytes  = 64 << 20
)

// tooDeep reports a sample whose stack so far is at a bound. The arena
// holds the sample's header and frames not in the table (in a
// concurrent reader, a batch's records before it too: at most a batch).
func (p *lineParser) tooDeep() bool {
	return len(p.refs)-p.refStart >= MaxSampleFrames || len(p.arena) > maxSampleBytes
}

// finishSample ends the sample's frames, refs[refStart:]: perf 7's echo
// dropped, here where the table's entries were just read (a concurrent
// Reader's caller reads only the refs).
func (p *lineParser) finishSample() {
	refs := (&frameRefs{p.refs[p.refStart:], p.tab, p.frames}).dropInlineEcho()
	p.refs = p.refs[:p.refStart+len(refs)]
}

// frameRefs are a sample's frames as the producer keeps them: IDs in
// tab, or localRef|i for local[i].
type frameRefs struct {
	refs  []uint32
	tab   *frameTable
	local []Frame
}

// frame sets *f to frame i.
func (s *frameRefs) frame(i int, f *Frame) {
	if ref := s.refs[i]; ref&localRef != 0 {
		*f = s.local[ref&^localRef]
	} else {
		s.tab.entry(ref).fill(f, ref)
	}
}

// inlined is frame i's Inlined.
func (s *frameRefs) inlined(i int) bool {
	if ref := s.refs[i]; ref&localRef != 0 {
		return s.local[ref&^localRef].Inlined
	}
	return s.tab.entry(s.refs[i]).inlined
}

// kernel is isKernelAddr of frame i's address.
func (s *frameRefs) kernel(i int) bool {
	if ref := s.refs[i]; ref&localRef != 0 {
		return isKernelAddr(s.local[ref&^localRef].Addr)
	}
	return s.tab.entry(s.refs[i]).kernel
}

// addr is frame i's address.
func (s *frameRefs) addr(i int) []byte {
	if ref := s.refs[i]; ref&localRef != 0 {
		return s.local[ref&^localRef].Addr
	}
	e := s.tab.entry(s.refs[i])
	return field(e.text, e.addr)
}
