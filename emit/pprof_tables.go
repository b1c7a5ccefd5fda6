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
// takes its Location from locByID.
func (p *Profile) Stack(frames []parse.Frame, java bool) uint32 {
	ids := p.idsBuf[:0]
	byID := !java
	start := 0
	for i := range frames {
		f := &frames[i]
		if f.Inlined && i+1 < len(frames) {
			continue
		}
		run := frames[start : i+1]
		start = i + 1
		var loc *profile.Location
		if cached := byID && len(run) == 1 && f.ID != 0; cached && int(f.ID) < len(p.locByID) && p.locByID[f.ID].set {
			loc = p.locByID[f.ID].loc
		} else {
			ok := false
			if cached {
				loc, ok = p.locationByAddr(run, java)
			}
			if !ok {
				p.keyBuf = appendRunKey(p.keyBuf[:0], run, java)
				loc = p.location(run, p.keyBuf, java)
			}
			if cached {
				for int(f.ID) >= len(p.locByID) {
					p.locByID = append(p.locByID, locCache{})
				}
				p.locByID[f.ID] = locCache{loc, true}
			}
		}
		if loc != nil {
			ids = append(ids, uint32(loc.ID-1))
		}
	}
	// Outermost first.
	slices.Reverse(ids)
	p.idsBuf = ids
	return p.stackOf(ids)
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
// ones (leaf first) and the real frame last. It is nil when the run names
// nothing.
func (p *Profile) location(run []parse.Frame, k []byte, java bool) *profile.Location {
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
func (p *Profile) locationByAddr(run []parse.Frame, java bool) (loc *profile.Location, ok bool) {
	if f := &run[0]; f.Inlined || parseHex(f.Addr) == 0 {
		return nil, false
	}
	return p.newLocation(run, java), true
}

// newLocation returns the Location of (mapping, address, functions) of a
// run of frames, made from the run if there is none (or the address is
// 0); nil if the run names nothing (as the folded output drops such
// frames, whatever else shares their address). The functions count
// because one address can hold two symbols (JIT code in a perf-PID.map
// reusing addresses, a rebuilt binary): found by address alone, every
// sample there went to the name seen first.
func (p *Profile) newLocation(run []parse.Frame, java bool) *profile.Location {
	// The names first: a run that names nothing has no Location.
	names, ends := p.runBuf.names[:0], p.runBuf.ends[:0]
	for i := range run {
		names = FrameNames(names, &run[i], java, p.names)
		ends = append(ends, len(names))
	}
	p.runBuf.names, p.runBuf.ends = names, ends
	if len(names) == 0 {
		return nil
	}
	// Lines are leaf first; the last is the function the others were
	// inlined into.
	fns := p.runBuf.fns[:0]
	start := 0
	for i, end := range ends {
		// "A->B->C" chains are root first: B and C are inlined into A.
		for j := end - 1; j >= start; j-- {
			fns = append(fns, p.function(names[j], run[i].Sym))
		}
		start = end
	}
	p.runBuf.fns = fns
	real := &run[len(run)-1]
	dso := string(real.DSO)
	if real.Inlined {
		dso = ""
	}
	m := p.mapping(dso)
	addr := parseHex(real.Addr)
	lk := locKey{m, addr}
	last := p.locs[lk]
	if addr != 0 {
		for loc := last; loc != nil; loc = p.madeBefore(loc) {
			if sameFunctions(loc.Line, fns) {
				return loc
			}
		}
	}
	loc := &profile.Location{ID: uint64(len(p.locList) + 1), Mapping: m, Address: addr,
		Line: make([]profile.Line, len(fns))}
	for i, f := range fns {
		loc.Line[i] = profile.Line{Function: f}
	}
	p.locList = append(p.locList, loc)
	if addr != 0 {
		p.locs[lk] = loc
		if last != nil {
			p.sameAddr = append(p.sameAddr, make([]uint32, len(p.locList)-len(p.sameAddr))...)
			p.sameAddr[loc.ID-1] = uint32(last.ID)
		}
	}
	return loc
}

// madeBefore is the Location made before loc at its (mapping, address),
// nil if none.
func (p *Profile) madeBefore(loc *profile.Location) *profile.Location {
	if i := loc.ID - 1; i < uint64(len(p.sameAddr)) && p.sameAddr[i] != 0 {
		return p.locList[p.sameAddr[i]-1]
	}
	return nil
}

// sameFunctions tells whether lines are the functions fns, in order.
func sameFunctions(lines []profile.Line, fns []*profile.Function) bool {
	if len(lines) != len(fns) {
		return false
	}
	for i, ln := range lines {
		if ln.Function != fns[i] {
			return false
		}
	}
	return true
}

func (p *Profile) mapping(dso string) *profile.Mapping {
	if m := p.mappings[dso]; m != nil {
		return m
	}
	m := &profile.Mapping{
		ID:           uint64(len(p.mapList) + 1),
		File:         dso,
		HasFunctions: true, // perf already symbolized
	}
	p.mappings[dso] = m
	p.mapList = append(p.mapList, m)
	return m
}

func (p *Profile) function(name string, sym []byte) *profile.Function {
	if f := p.funcs[name]; f != nil {
		return f
	}
	f := &profile.Function{ID: uint64(len(p.funcList) + 1), Name: name, SystemName: string(sym)}
	if f.SystemName == "" {
		f.SystemName = name
	}
	p.funcs[name] = f
	p.funcList = append(p.funcList, f)
	return f
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
