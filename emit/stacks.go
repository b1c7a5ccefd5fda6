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
	arena       idArena    // where stackFrames are
	stackID     map[string]uint32

	key    []byte
	ids    []uint32
	names0 []string

	// The previous stack of each root, outermost frame first: the frames
	// a sample shares with it (a thread's outer frames seldom change) take
	// their ids from it without a map lookup.
	last  map[uint32]*lastStack
	plain bool // tests: the straightforward path only
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
	var prev *lastStack
	if !s.plain {
		prev = s.last[root]
		if prev == nil {
			prev = &lastStack{}
			s.last[root] = prev
		}
	}
	return s.internAfter(prev, root, frames, java)
}

// internAfter is Intern with prev (nil: none) the previous stack to share
// frames with; prev becomes this stack.
func (s *Stacks) internAfter(prev *lastStack, root uint32, frames []parse.Frame, java bool) uint32 {
	ids := append(s.ids[:0], root)
	// Frames shared with the root's previous stack, outermost first. From
	// the first frame that differs on, prev is rewritten as the loop goes
	// (it is not read again): each frame's key and where its ids end.
	same, keyOff, idOff := 0, 0, 0
	shared := prev != nil
	for i := len(frames) - 1; i >= 0; i-- {
		f := &frames[i]
		k := s.frameKey(f, java)
		if shared {
			if same < len(prev.frames) {
				pf := prev.frames[same]
				if string(prev.keys[keyOff:pf.keyEnd]) == string(k) {
					ids = append(ids, prev.ids[idOff:pf.idEnd]...)
					keyOff, idOff = pf.keyEnd, pf.idEnd
					same++
					continue
				}
			}
			shared = false
			prev.keys = prev.keys[:keyOff]
			prev.frames = prev.frames[:same]
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
		if prev != nil {
			prev.keys = append(prev.keys, k...)
			prev.frames = append(prev.frames, lastFrame{keyEnd: len(prev.keys), idEnd: len(ids) - 1})
		}
	}
	s.ids = ids
	if prev != nil {
		if shared {
			// The whole stack is a prefix of (or is) the previous one.
			prev.keys = prev.keys[:keyOff]
			prev.frames = prev.frames[:same]
		}
		prev.ids = append(prev.ids[:idOff], ids[1+idOff:]...)
	}
	return s.stackOf(ids)
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
	ids := append(append(s.ids[:0], root), s.stackFrames[id]...)
	s.ids = ids
	return s.stackOf(ids)
}

// stackOf interns a sequence of name ids.
func (s *Stacks) stackOf(ids []uint32) uint32 {
	if id, ok := s.stackID[idKey(ids)]; ok {
		return id
	}
	id := uint32(len(s.stackFrames))
	kept := s.arena.add(ids)
	s.stackFrames = append(s.stackFrames, kept)
	s.stackID[idKey(kept)] = id
	return id
}

// idArena keeps sequences of ids in large chunks: no allocation per
// sequence, and the map key of one (idKey) can point into them, as
// chunks are never written again where they are used.
type idArena struct {
	cur   []uint32
	total int // ids kept
}

const arenaChunk = 1 << 16

func (a *idArena) add(ids []uint32) []uint32 {
	if cap(a.cur)-len(a.cur) < len(ids) {
		a.cur = make([]uint32, 0, max(arenaChunk, len(ids)))
	}
	n := len(a.cur)
	a.cur = append(a.cur, ids...)
	a.total += len(ids)
	return a.cur[n:len(a.cur):len(a.cur)]
}

// idKey is ids' bytes as a string, without a copy: the caller keeps ids
// unchanged as long as the string is used (as a map key: for good).
func idKey(ids []uint32) string {
	if len(ids) == 0 {
		return ""
	}
	return unsafe.String((*byte)(unsafe.Pointer(&ids[0])), len(ids)*4)
}
