package emit

import (
	"slices"

	"github.com/google/pprof/profile"
	"github.com/wallfold/wallfold/parse"
)

// The tables of a Profile: its stacks, the Locations they are made of,
// and the Mappings and Functions of those.

// Stack interns a perf call chain (leaf first) and returns its id.
//
// A run of "(inlined)" frames ends at the real frame they were inlined
// into: together they are one Location. A run of one frame with an ID
// takes its Location from locByID, without its Frame being made.
func (p *Profile) Stack(st *parse.Stack, java bool) uint32 {
	ids := p.runBuf.ids[:0]
	run := p.runBuf.run[:0]
	for i, n := 0, st.Len(); i < n; i++ {
		if id := st.ID(i); len(run) == 0 && !java && id != 0 && int(id) < len(p.locByID) {
			if c := p.locByID[id]; c != 0 { // most frames
				if c > 1 {
					ids = append(ids, c-2)
				}
				continue
			}
		}
		run = append(run, parse.Frame{})
		f := &run[len(run)-1]
		st.Frame(i, f)
		if f.Inlined && i+1 < n {
			continue
		}
		if loc := p.runLocation(run, java); loc != noLocation {
			ids = append(ids, loc)
		}
		clear(run) // the reader's memory, not to be kept
		run = run[:0]
	}
	p.runBuf.run = run
	// Outermost first.
	slices.Reverse(ids)
	p.runBuf.ids = ids
	return p.stackOf(ids)
}

// runLocation returns the Location of a run of frames, and keeps it by
// ID for a run of one frame with an ID (Java tidying aside; not an
// inlined frame, which a run of one is only at a stack's end: locByID
// tells no frame's place in a run).
func (p *Profile) runLocation(run []parse.Frame, java bool) uint32 {
	f := &run[0]
	cached := !java && len(run) == 1 && f.ID != 0
	loc := noLocation
	ok := false
	if cached {
		loc, ok = p.locationByAddr(run, java)
	}
	if !ok {
		p.runBuf.key = appendRunKey(p.runBuf.key[:0], run, java)
		loc = p.location(run, p.runBuf.key, java)
	}
	if cached && !f.Inlined {
		if n := int(f.ID) + 1; n > len(p.locByID) {
			p.locByID = append(p.locByID, make([]uint32, max(n, 2*len(p.locByID))-len(p.locByID))...)
		}
		p.locByID[f.ID] = loc + 2 // noLocation: 1
	}
	return loc
}

// stackOf interns a sequence of location indices, outermost first.
func (p *Profile) stackOf(ids []uint32) uint32 { return p.stacks.id(ids) }

// appendRunKey appends what a run of frames' Location depends on.
func appendRunKey(k []byte, run []parse.Frame, java bool) []byte {
	for i := range run {
		f := &run[i]
		k = append(k, f.Addr...)
		k = append(k, 0)
		k = append(k, f.Sym...)
		k = append(k, 0)
		k = append(k, f.DSO...)
		k = append(k, 0)
	}
	if java {
		k = append(k, 1)
	}
	return k
}

// location returns the Location for a run of frames (k: its key): inlined
// ones (leaf first) and the real frame last. It is noLocation when the
// run names nothing.
func (p *Profile) location(run []parse.Frame, k []byte, java bool) uint32 {
	if loc, ok := p.frameLoc[string(k)]; ok {
		return loc
	}
	loc := p.newLocation(run, java)
	p.frameLoc[string(k)] = loc
	return loc
}

// locationByAddr is location for a run of one frame that has an ID:
// the Location of its (mapping, address, function), without frameLoc
// (whose keys cost memory and time, and which locByID stands in for). ok
// is false when location itself must answer: address 0 (each key its own
// Location) or an inlined frame.
func (p *Profile) locationByAddr(run []parse.Frame, java bool) (loc uint32, ok bool) {
	if f := &run[0]; f.Inlined || parseHex(f.Addr) == 0 {
		return noLocation, false
	}
	return p.newLocation(run, java), true
}

// newLocation returns the Location of (mapping, address, functions) of a
// run of frames, made from the run if there is none (or the address is
// 0); noLocation if the run names nothing (as the folded output drops such
// frames, whatever else shares their address). The functions count
// because one address can hold two symbols (JIT code in a perf-PID.map
// reusing addresses, a rebuilt binary): found by address alone, every
// sample there went to the name seen first.
func (p *Profile) newLocation(run []parse.Frame, java bool) uint32 {
	// Lines are leaf first; the last is the function the others were
	// inlined into. A run that names nothing has no Location.
	fns := p.runBuf.fns[:0]
	for i := range run {
		fns = p.frameFunctions(fns, &run[i], java)
	}
	p.runBuf.fns = fns
	if len(fns) == 0 {
		return noLocation
	}
	real := &run[len(run)-1]
	dso := real.DSO
	if real.Inlined {
		dso = nil
	}
	m := p.mapping(dso)
	addr := parseHex(real.Addr)
	last := uint32(0) // index + 1
	if addr != 0 {
		last = p.locs.get(addr, &p.locList)
		for i := last; i != 0; i = p.madeBefore(i - 1) {
			if loc := p.locList.at(i - 1); loc.mapping == m && slices.Equal(p.functions(loc), fns) {
				return i - 1
			}
		}
	}
	id := p.addLocation(location{addr: addr, mapping: m}, fns)
	if addr != 0 {
		p.locs.set(id+1, &p.locList)
		if last != 0 {
			if p.sameAddr == nil {
				p.sameAddr = make(map[uint32]uint32)
			}
			p.sameAddr[id] = last
		}
	}
	return id
}

// addLocation adds loc with functions fns and returns its index.
func (p *Profile) addLocation(loc location, fns []uint32) uint32 {
	if len(fns) == 1 && fns[0] < manyFns {
		loc.fn[0] = fns[0]
	} else {
		loc.fn[0] = manyFns + uint32(len(p.locFns))
		p.locFns = append(append(p.locFns, uint32(len(fns))), fns...)
	}
	return p.locList.add(loc)
}

// frameFunctions appends the functions of f's names to fns, leaf first
// ("A->B->C" chains are root first: B and C are inlined into A).
func (p *Profile) frameFunctions(fns []uint32, f *parse.Frame, java bool) []uint32 {
	c := &p.frameFns
	c.key = frameNameKey(c.key[:0], f, java, p.names.Addrs)
	if r, ok := c.byKey.find(c.key); ok {
		return append(fns, c.flat[r[0]:r[0]+r[1]]...)
	}
	names := FrameNames(p.runBuf.names[:0], f, java, p.names)
	p.runBuf.names = names
	start := len(c.flat)
	for j := len(names) - 1; j >= 0; j-- {
		c.flat = append(c.flat, p.function(names[j], f.Sym))
	}
	c.byKey.add(c.key, [2]int{start, len(names)})
	return append(fns, c.flat[start:]...)
}

// frameNameKey appends what FrameNames's answer for f depends on: its
// symbol and DSO, its address where names show it, java.
func frameNameKey(k []byte, f *parse.Frame, java, addrs bool) []byte {
	k = append(k, f.Sym...)
	k = append(k, 0)
	k = append(k, f.DSO...)
	if addrs {
		k = append(k, 0)
		k = append(k, f.Addr...)
	}
	if java {
		k = append(k, 1)
	}
	return k
}

// madeBefore is the index + 1 of the Location made before location i
// at its address, 0 if none.
func (p *Profile) madeBefore(i uint32) uint32 { return p.sameAddr[i] }

// mapping returns the index + 1 of the mapping of dso.
func (p *Profile) mapping(dso []byte) uint32 {
	if m := p.mappings[string(dso)]; m != nil {
		return uint32(m.ID)
	}
	m := &profile.Mapping{
		ID:           uint64(len(p.mapList) + 1),
		File:         string(dso),
		HasFunctions: true, // perf already symbolized
	}
	p.mappings[m.File] = m
	p.mapList = append(p.mapList, m)
	return uint32(m.ID)
}

// function returns the index of the function named name.
func (p *Profile) function(name string, sym []byte) uint32 {
	if i, ok := p.funcs[name]; ok {
		return i
	}
	sys := name // perf's symbol, often the name itself
	if len(sym) > 0 && string(sym) != name {
		sys = string(sym)
	}
	i := uint32(len(p.funcList))
	p.funcs[name] = i
	p.funcList = append(grown(p.funcList), function{name, sys})
	return i
}

func parseHex(b []byte) uint64 {
	var n uint64
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			n = n<<4 | uint64(c-'0')
		case c >= 'a' && c <= 'f':
			n = n<<4 | uint64(c-'a'+10)
		case c >= 'A' && c <= 'F':
			n = n<<4 | uint64(c-'A'+10)
		}
	}
	return n
}

// addrTable finds the last Location made at an address: open
// addressing (a Go map's insert cost 500 instructions here, for an
// address seen once) of Location indices + 1, the address read from the
// Location (a table of keys beside them was twice the memory, 1.5 MB
// allocated on the way on an 86 MB trace).
type addrTable struct {
	vals []uint32 // 0: an empty slot; a power of 2 long, at most half full
	n    int
}

func (t *addrTable) slot(a uint64) uint64 {
	h := a * 0x9e3779b97f4a7c15
	return (h ^ h>>29) & uint64(len(t.vals)-1)
}

// get returns the index + 1 of the last Location in locs made at address
// a, 0 if none.
func (t *addrTable) get(a uint64, locs *chunkList[location]) uint32 {
	if t.n == 0 {
		return 0
	}
	mask := uint64(len(t.vals) - 1)
	for i := t.slot(a); t.vals[i] != 0; i = (i + 1) & mask {
		if locs.at(t.vals[i]-1).addr == a {
			return t.vals[i]
		}
	}
	return 0
}

// set makes v (an index + 1 in locs) the last Location at its address.
func (t *addrTable) set(v uint32, locs *chunkList[location]) {
	if 2*(t.n+1) > len(t.vals) {
		old := t.vals
		*t = addrTable{vals: make([]uint32, max(1024, 2*len(old)))}
		for _, ov := range old {
			if ov != 0 {
				t.set(ov, locs)
			}
		}
	}
	a := locs.at(v - 1).addr
	mask := uint64(len(t.vals) - 1)
	i := t.slot(a)
	for t.vals[i] != 0 && locs.at(t.vals[i]-1).addr != a {
		i = (i + 1) & mask
	}
	if t.vals[i] == 0 {
		t.n++
	}
	t.vals[i] = v
}
