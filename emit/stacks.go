package emit

import (
	"github.com/wallfold/wallfold/parse"
)

// Stacks interns frame names and whole stacks, so that a sample costs a
// few map lookups and no allocation once its frames have been seen.
type Stacks struct {
	opts NameOptions

	names  []string
	nameID map[string]uint32

	frameIDs []uint32 // flat: the name ids of cached frames
	frames   frameKeys

	stacks seqSet // name ids, root first

	key    []byte
	ids    []uint32
	names0 []string
	frame  parse.Frame // a frame not found by its ID

	// byID caches frameCache's answer by parse.Frame.ID (Java tidying
	// aside): an index instead of a key built and looked up per frame.
	byID []frameLoc
}

// frameLoc is where a frame's name ids are in frameIDs; n1 is their number
// plus one (0: not cached yet). A frame of one name (most) has that name's
// id in start: one load per frame instead of two.
type frameLoc struct{ start, n1 uint32 }

// NewStacks returns an empty interner that names frames with o.
func NewStacks(o NameOptions) *Stacks {
	return &Stacks{
		opts:   o,
		nameID: make(map[string]uint32),
		frames: newFrameKeys(),
		stacks: newSeqSet(),
	}
}

// Name returns the name with id.
func (s *Stacks) Name(id uint32) string { return s.names[id] }

// Frames returns the name ids of stack id, root first (the root is the
// comm name given to Intern).
func (s *Stacks) Frames(id uint32) []uint32 { return s.stacks.seq(id) }

func (s *Stacks) intern(name string) uint32 {
	if id, ok := s.nameID[name]; ok {
		return id
	}
	id := uint32(len(s.names))
	s.names = append(grown(s.names), name)
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

// Intern returns the id of the stack root;st (frames leaf first, as perf
// prints them). java selects inferno's Java tidying (comm "java"). A
// frame met before is found by its ID: only the others are made (Frame).
func (s *Stacks) Intern(root uint32, st *parse.Stack, java bool) uint32 {
	ids := append(s.ids[:0], root)
	for i := st.Len() - 1; i >= 0; i-- {
		if id := st.ID(i); !java && id != 0 && int(id) < len(s.byID) {
			if l := s.byID[id]; l.n1 == 2 {
				ids = append(ids, l.start) // one name: most frames
				continue
			} else if l.n1 != 0 {
				ids = append(ids, s.frameIDs[l.start:l.start+l.n1-1]...)
				continue
			}
		}
		st.Frame(i, &s.frame)
		ids = s.appendFrame(ids, &s.frame, java)
		s.frame = parse.Frame{} // the reader's memory, not to be kept
	}
	s.ids = ids
	return s.stackOf(ids)
}

// appendFrame appends the name ids of f, a frame not cached by its ID,
// to ids, and caches them by its ID (Java's aside).
func (s *Stacks) appendFrame(ids []uint32, f *parse.Frame, java bool) []uint32 {
	k := s.frameKey(f, java)
	loc, ok := s.frames.find(k)
	if !ok {
		s.names0 = FrameNames(s.names0[:0], f, java, s.opts)
		loc[0] = len(s.frameIDs)
		for _, n := range s.names0 {
			s.frameIDs = append(s.frameIDs, s.intern(n))
		}
		loc[1] = len(s.names0)
		s.frames.add(k, loc)
	}
	ids = append(ids, s.frameIDs[loc[0]:loc[0]+loc[1]]...)
	if !java && f.ID != 0 {
		for int(f.ID) >= len(s.byID) {
			s.byID = append(grown(s.byID), frameLoc{})
		}
		l := frameLoc{uint32(loc[0]), uint32(loc[1]) + 1}
		if loc[1] == 1 {
			l.start = s.frameIDs[loc[0]]
		}
		s.byID[f.ID] = l
	}
	return ids
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
	ids := append(append(s.ids[:0], root), s.stacks.seq(id)...)
	s.ids = ids
	return s.stackOf(ids)
}

// Reroot returns the id of stack id with its root name replaced by root.
func (s *Stacks) Reroot(id, root uint32) uint32 {
	ids := append(append(s.ids[:0], root), s.stacks.seq(id)[1:]...)
	s.ids = ids
	return s.stackOf(ids)
}

// Append returns the id of stack id with the name leaf put after it.
func (s *Stacks) Append(id, leaf uint32) uint32 {
	ids := append(append(s.ids[:0], s.stacks.seq(id)...), leaf)
	s.ids = ids
	return s.stackOf(ids)
}

// stackOf interns a sequence of name ids.
func (s *Stacks) stackOf(ids []uint32) uint32 { return s.stacks.id(ids) }
