package emit

import (
	"unsafe"

	"github.com/wallfold/wallfold/parse"
)

// Stacks interns frame names and whole stacks, so that a sample costs a
// few map lookups and no allocation once its frames have been seen.
type Stacks struct {
	opts NameOptions

	names  []string
	nameID map[string]uint32

	frameIDs   []uint32          // flat: the name ids of cached frames
	frameCache map[string][2]int // raw frame key -> (start, n) in frameIDs

	stackFrames [][]uint32 // per stack id: name ids, root first
	stackID     map[string]uint32

	key    []byte
	ids    []uint32
	names0 []string

	// The previous stack of each root, outermost frame first: the frames
	// a sample shares with it (a thread's outer frames seldom change) take
	// their ids from it without a map lookup.
	last   map[uint32]*lastStack
	noLast bool // tests: the straightforward path only
}

// lastStack is a stack's frame keys (concatenated) and where each frame's
// key and name ids are.
type lastStack struct {
	keys   []byte
	frames []lastFrame
	ids    []uint32
}

type lastFrame struct {
	keyEnd int // keys[previous keyEnd:keyEnd]
	idEnd  int // ids[previous idEnd:idEnd]
}

// NewStacks returns an empty interner that names frames with o.
func NewStacks(o NameOptions) *Stacks {
	return &Stacks{
		opts:       o,
		nameID:     make(map[string]uint32),
		frameCache: make(map[string][2]int),
		stackID:    make(map[string]uint32),
		last:       make(map[uint32]*lastStack),
	}
}

// Name returns the name with id.
func (s *Stacks) Name(id uint32) string { return s.names[id] }

// Len returns the number of distinct stacks.
func (s *Stacks) Len() int { return len(s.stackFrames) }

// Frames returns the name ids of stack id, root first (the root is the
// comm name given to Intern).
func (s *Stacks) Frames(id uint32) []uint32 { return s.stackFrames[id] }

func (s *Stacks) intern(name string) uint32 {
	if id, ok := s.nameID[name]; ok {
		return id
	}
	id := uint32(len(s.names))
	s.names = append(s.names, name)
	s.nameID[name] = id
	return id
}

// InternName interns a single name (a root frame) and returns its id.
func (s *Stacks) InternName(name []byte) uint32 {
	if id, ok := s.nameID[string(name)]; ok {
		return id
	}
	return s.intern(string(name))
}

// Intern returns the id of the stack root;frames (frames leaf first, as
// perf prints them). java selects inferno's Java tidying (comm "java").
func (s *Stacks) Intern(root uint32, frames []parse.Frame, java bool) uint32 {
	ids := append(s.ids[:0], root)
	var prev *lastStack
	if !s.noLast {
		prev = s.last[root]
		if prev == nil {
			prev = &lastStack{}
			s.last[root] = prev
		}
	}
	// Frames shared with the root's previous stack, outermost first.
	same, keyOff, idOff := 0, 0, 0
	for i := len(frames) - 1; i >= 0; i-- {
		f := &frames[i]
		k := s.frameKey(f, java)
		if prev != nil && same == len(frames)-1-i && same < len(prev.frames) {
			pf := prev.frames[same]
			if string(prev.keys[keyOff:pf.keyEnd]) == string(k) {
				ids = append(ids, prev.ids[idOff:pf.idEnd]...)
				keyOff, idOff = pf.keyEnd, pf.idEnd
				same++
				continue
			}
		}
		loc, ok := s.frameCache[string(k)]
		if !ok {
			s.names0 = FrameNames(s.names0[:0], f, java, s.opts)
			loc[0] = len(s.frameIDs)
			for _, n := range s.names0 {
				s.frameIDs = append(s.frameIDs, s.intern(n))
			}
			loc[1] = len(s.names0)
			s.frameCache[string(k)] = loc
		}
		ids = append(ids, s.frameIDs[loc[0]:loc[0]+loc[1]]...)
	}
	s.ids = ids
	if prev != nil {
		s.remember(prev, same, keyOff, idOff, frames, ids, java)
	}
	kb := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(ids))), len(ids)*4)
	if id, ok := s.stackID[string(kb)]; ok {
		return id
	}
	id := uint32(len(s.stackFrames))
	s.stackFrames = append(s.stackFrames, append([]uint32(nil), ids...))
	s.stackID[string(kb)] = id
	return id
}

// remember makes frames (whose first same outermost frames are prev's)
// the root's previous stack.
func (s *Stacks) remember(prev *lastStack, same, keyOff, idOff int, frames []parse.Frame, ids []uint32, java bool) {
	prev.keys = prev.keys[:keyOff]
	prev.frames = prev.frames[:same]
	prev.ids = append(prev.ids[:idOff], ids[1+idOff:]...)
	// ids[1:] holds each frame's ids in order; walk them with the frames.
	n := idOff
	for i := len(frames) - 1 - same; i >= 0; i-- {
		f := &frames[i]
		prev.keys = append(prev.keys, s.frameKey(f, java)...)
		loc := s.frameCache[string(s.key)]
		n += loc[1]
		prev.frames = append(prev.frames, lastFrame{keyEnd: len(prev.keys), idEnd: n})
	}
}

// frameKey is what a frame's names depend on.
func (s *Stacks) frameKey(f *parse.Frame, java bool) []byte {
	k := append(s.key[:0], f.Sym...)
	k = append(k, 0)
	k = append(k, f.DSO...)
	if s.opts.Addrs || len(f.Sym) == 0 || string(f.Sym) == "[unknown]" {
		k = append(k, 0)
		k = append(k, f.Addr...)
	}
	if java {
		k = append(k, 1)
	}
	s.key = k
	return k
}

// Prepend returns the id of stack id with the name root put before it.
func (s *Stacks) Prepend(root, id uint32) uint32 {
	ids := append([]uint32{root}, s.stackFrames[id]...)
	kb := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(ids))), len(ids)*4)
	if nid, ok := s.stackID[string(kb)]; ok {
		return nid
	}
	nid := uint32(len(s.stackFrames))
	s.stackFrames = append(s.stackFrames, ids)
	s.stackID[string(kb)] = nid
	return nid
}
