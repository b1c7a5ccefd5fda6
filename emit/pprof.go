package emit

import (
	"cmp"
	"compress/gzip"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
	"github.com/wallfold/wallfold/parse"
)

// Profile gathers samples for a pprof profile: one Mapping per DSO,
// Locations keyed by (mapping, address), Functions keyed by name, perf's
// "(inlined)" frames as extra Lines of the Location they were inlined
// into. Samples with the same stack and labels are merged.
type Profile struct {
	names  NameOptions
	labels Labels

	mappings map[string]*profile.Mapping
	mapList  []*profile.Mapping
	funcs    map[string]*profile.Function
	funcList []*profile.Function
	locs     map[locKey]*profile.Location
	locList  []*profile.Location

	frameLoc map[string]*profile.Location // raw frame run -> location
	stacks   seqSet                       // location indices, outermost first
	comms    []string
	commID   map[string]uint32
	samples  map[sampleKey]sampleVal
	idsBuf   []uint32
	keyBuf   []byte
	namesBuf []string
	nameEnds []int

	// locByID caches location's answer for a run of one frame by
	// parse.Frame.ID (Java tidying aside): most runs are one frame.
	locByID []locCache

	// pseudo are the Locations of leaf frames that are no code
	// ([blocked], [runnable]), by name.
	pseudo map[string]uint32
	states []string // state label values by sampleKey.state (0: none)
}

type locCache struct {
	loc *profile.Location
	set bool
}

type locKey struct {
	m    *profile.Mapping
	addr uint64
}

type sampleKey struct {
	win      int32 // the profile's window (--split); 0: the only one
	stack    uint32
	comm     uint32
	pid, tid int32 // -1: no label
	par      int32 // 0: no label
	state    uint8 // index in Profile.states: 0 on CPU
}

type sampleVal struct {
	n    int64
	cpu  uint64
	wall float64
}

// NewProfile returns an empty profile builder naming frames with o, its
// samples labelled with labels.
func NewProfile(o NameOptions, labels Labels) *Profile {
	return &Profile{
		names:    o,
		labels:   labels,
		mappings: make(map[string]*profile.Mapping),
		funcs:    make(map[string]*profile.Function),
		locs:     make(map[locKey]*profile.Location),
		frameLoc: make(map[string]*profile.Location),
		stacks:   newSeqSet(),
		commID:   make(map[string]uint32),
		samples:  make(map[sampleKey]sampleVal),
	}
}

// Comm interns a thread name for the comm label.
func (p *Profile) Comm(comm []byte) uint32 {
	if id, ok := p.commID[string(comm)]; ok {
		return id
	}
	id := uint32(len(p.comms))
	p.comms = append(p.comms, string(comm))
	p.commID[string(comm)] = id
	return id
}

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
// the Location of its (mapping, address), without frameLoc (whose keys
// cost memory and time, and which locByID stands in for). ok is false
// when location itself must answer: address 0 (each key its own
// Location) or an inlined frame.
func (p *Profile) locationByAddr(run []parse.Frame, java bool) (loc *profile.Location, ok bool) {
	if f := &run[0]; f.Inlined || parseHex(f.Addr) == 0 {
		return nil, false
	}
	return p.newLocation(run, java), true
}

// newLocation returns the Location of (mapping, address) of a run of
// frames, made from the run if there is none (or the address is 0); nil
// if the run names nothing (as the folded output drops such frames,
// whatever else shares their address).
func (p *Profile) newLocation(run []parse.Frame, java bool) *profile.Location {
	// The names first: a run that names nothing has no Location.
	names, ends := p.namesBuf[:0], p.nameEnds[:0]
	for i := range run {
		names = FrameNames(names, &run[i], java, p.names)
		ends = append(ends, len(names))
	}
	p.namesBuf, p.nameEnds = names, ends
	if len(names) == 0 {
		return nil
	}
	real := &run[len(run)-1]
	dso := string(real.DSO)
	if real.Inlined {
		dso = ""
	}
	m := p.mapping(dso)
	addr := parseHex(real.Addr)
	lk := locKey{m, addr}
	loc := p.locs[lk]
	if loc == nil || addr == 0 {
		loc = &profile.Location{ID: uint64(len(p.locList) + 1), Mapping: m, Address: addr}
		// Lines are leaf first; the last is the function the others were
		// inlined into.
		start := 0
		for i, end := range ends {
			// "A->B->C" chains are root first: B and C are inlined into A.
			for j := end - 1; j >= start; j-- {
				loc.Line = append(loc.Line, profile.Line{Function: p.function(names[j], run[i].Sym)})
			}
			start = end
		}
		p.locList = append(p.locList, loc)
		if addr != 0 {
			p.locs[lk] = loc
		}
	}
	return loc
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

// key is the sample key of a sample, with what its labels leave out
// merged.
func (p *Profile) key(win int32, stack, comm uint32, pid, tid, parallelism int, state uint8) sampleKey {
	k := sampleKey{win, stack, comm, int32(pid), int32(tid), int32(parallelism), state}
	if !p.labels.Comm {
		k.comm = 0
	}
	if !p.labels.PID || pid < 0 {
		k.pid = -1
	}
	if !p.labels.TID || tid < 0 {
		k.tid = -1
	}
	if !p.labels.Parallelism {
		k.par = 0
	}
	if !p.labels.State {
		k.state = 0
	}
	return k
}

// Add adds one sample to window win. pid < 0 leaves the pid label out.
func (p *Profile) Add(win int32, stack, comm uint32, pid, tid, parallelism int, period uint64, wall float64) {
	k := p.key(win, stack, comm, pid, tid, parallelism, 0)
	v := p.samples[k]
	v.n++
	v.cpu += period
	v.wall += wall
	p.samples[k] = v
}

// AddOff adds off-CPU time (wall ns, no CPU, no sample) of a thread in
// state (a label value: "blocked", "runnable") to window win. stack
// should end in the state's leaf (WithLeaf).
func (p *Profile) AddOff(win int32, stack, comm uint32, pid, tid int, state string, wall float64) {
	si := slices.Index(p.states, state)
	if si < 0 {
		if len(p.states) == 0 {
			p.states = append(p.states, "")
		}
		si = len(p.states)
		p.states = append(p.states, state)
	}
	k := p.key(win, stack, comm, pid, tid, 0, uint8(si))
	v := p.samples[k]
	v.wall += wall
	p.samples[k] = v
}

// WithLeaf returns stack with a frame named leaf (no code: no mapping, no
// address) as its leaf.
func (p *Profile) WithLeaf(stack uint32, leaf string) uint32 {
	id, ok := p.pseudo[leaf]
	if !ok {
		if p.pseudo == nil {
			p.pseudo = make(map[string]uint32)
		}
		fn := p.function(leaf, nil)
		loc := &profile.Location{ID: uint64(len(p.locList) + 1), Line: []profile.Line{{Function: fn}}}
		p.locList = append(p.locList, loc)
		id = uint32(len(p.locList) - 1)
		p.pseudo[leaf] = id
	}
	ids := append(append(p.idsBuf[:0], p.stacks.seq(stack)...), id)
	p.idsBuf = ids
	return p.stackOf(ids)
}

// Meta is what a profile says about its trace.
type Meta struct {
	Event     string // the event sampled
	TimeBased bool   // period in nanoseconds (cpu-clock, task-clock)
	Period    int64  // typical sampling period
	// TimeNanos and DurationNanos: the profile's window in Unix time.
	TimeNanos, DurationNanos int64
	Comments                 []string
}

// SampleTypes returns the sample types a profile of event has: count,
// then cpu and wall (time events), or the event count and the event
// count divided by parallelism (other events), named in SafeName's
// alphabet.
func SampleTypes(event string, timeBased bool) []*profile.ValueType {
	if timeBased {
		return []*profile.ValueType{
			{Type: "samples", Unit: "count"},
			{Type: "cpu", Unit: "nanoseconds"},
			{Type: "wall", Unit: "nanoseconds"},
		}
	}
	name := SafeName(event)
	return []*profile.ValueType{
		{Type: "samples", Unit: "count"},
		{Type: name, Unit: "count"},
		{Type: name + "_wall", Unit: "count"},
	}
}

// Build returns the profile of every sample (all windows in one).
func (p *Profile) Build(meta Meta) *profile.Profile {
	var pr *profile.Profile
	p.BuildEach(func(int32) Meta { return meta }, true, func(_ int32, x *profile.Profile) error {
		pr = x
		return nil
	})
	return pr
}

// BuildEach builds the profile of each window (merged: one profile of all)
// in order and hands it to write; it stops at write's first error. Each
// profile has only the mappings, locations and functions its samples use,
// numbered from 1 in order (Parca checks that ids are positions + 1); the
// first mapping is a program's when there is one (pprof takes it for the
// main binary). A sample without a stack gets one frame, "[no stack]".
// The profiles share their label maps and location lists: they are for
// writing, not for changing. BuildEach is the last call: it releases the
// tables that Stack, Comm and Add use (CommName and StackNames still work).
func (p *Profile) BuildEach(meta func(win int32) Meta, merged bool, write func(win int32, pr *profile.Profile) error) error {
	type entry struct {
		k sampleKey
		v sampleVal
	}
	es := make([]entry, 0, len(p.samples))
	for k, v := range p.samples {
		if merged {
			k.win = 0
		}
		es = append(es, entry{k, v})
	}
	// The lookup tables are done with: let the collector have them while
	// the profile is built and encoded (the encoder's copies of the
	// samples are the peak of a pprof run's memory).
	p.samples, p.frameLoc, p.stacks.head, p.stacks.next, p.locByID = nil, nil, nil, nil, nil
	p.locs, p.mappings, p.funcs, p.commID = nil, nil, nil, nil
	p.keyBuf, p.idsBuf, p.namesBuf, p.nameEnds = nil, nil, nil, nil
	// A stable order makes the output reproducible.
	slices.SortFunc(es, func(x, y entry) int {
		a, b := x.k, y.k
		if c := cmp.Compare(a.win, b.win); c != 0 {
			return c
		}
		if c := cmp.Compare(a.stack, b.stack); c != 0 {
			return c
		}
		if c := cmp.Compare(a.comm, b.comm); c != 0 {
			return c
		}
		if c := cmp.Compare(a.pid, b.pid); c != 0 {
			return c
		}
		if c := cmp.Compare(a.tid, b.tid); c != 0 {
			return c
		}
		if c := cmp.Compare(a.par, b.par); c != 0 {
			return c
		}
		return cmp.Compare(a.state, b.state)
	})
	if merged {
		// Samples that differ only by window are one.
		out := es[:0]
		for _, e := range es {
			if n := len(out); n > 0 && out[n-1].k == e.k {
				v := &out[n-1].v
				v.n, v.cpu, v.wall = v.n+e.v.n, v.cpu+e.v.cpu, v.wall+e.v.wall
				continue
			}
			out = append(out, e)
		}
		es = out
	}
	b := newBuilder(p)
	for start := 0; start < len(es); {
		win := es[start].k.win
		end := start
		for end < len(es) && es[end].k.win == win {
			end++
		}
		keys := make([]sampleKey, end-start)
		vals := make([]sampleVal, end-start)
		for i, e := range es[start:end] {
			keys[i], vals[i] = e.k, e.v
		}
		clear(es[start:end])
		if err := write(win, b.build(meta(win), keys, vals)); err != nil {
			return err
		}
		start = end
	}
	if len(es) == 0 {
		return write(0, b.build(meta(0), nil, nil))
	}
	return nil
}

// builder makes profiles out of a Profile's tables, each with its own
// copies of the mappings, locations and functions it uses.
type builder struct {
	p *Profile
	// by the Profile's index: the current profile's copy, and the build
	// (generation) it belongs to
	locs  []*profile.Location
	locAt []int
	fns   map[*profile.Function]*profile.Function
	maps  map[*profile.Mapping]*profile.Mapping
	gen   int
}

func newBuilder(p *Profile) *builder {
	return &builder{p: p, locs: make([]*profile.Location, len(p.locList)), locAt: make([]int, len(p.locList))}
}

// location returns the current profile's copy of location index id.
func (b *builder) location(pr *profile.Profile, id uint32) *profile.Location {
	if b.locAt[id] == b.gen {
		return b.locs[id]
	}
	src := b.p.locList[id]
	loc := &profile.Location{ID: uint64(len(pr.Location) + 1), Address: src.Address}
	if src.Mapping != nil {
		m := b.maps[src.Mapping]
		if m == nil {
			c := *src.Mapping
			m = &c
			b.maps[src.Mapping] = m
			pr.Mapping = append(pr.Mapping, m)
		}
		loc.Mapping = m
	}
	loc.Line = make([]profile.Line, len(src.Line))
	for i, ln := range src.Line {
		f := b.fns[ln.Function]
		if f == nil {
			c := *ln.Function
			c.ID = uint64(len(pr.Function) + 1)
			f = &c
			b.fns[ln.Function] = f
			pr.Function = append(pr.Function, f)
		}
		loc.Line[i] = profile.Line{Function: f, Line: ln.Line}
	}
	pr.Location = append(pr.Location, loc)
	b.locs[id], b.locAt[id] = loc, b.gen
	return loc
}

// build makes one profile of the samples keys, vals (sorted).
func (b *builder) build(meta Meta, keys []sampleKey, vals []sampleVal) *profile.Profile {
	p := b.p
	b.gen++
	b.fns = make(map[*profile.Function]*profile.Function)
	b.maps = make(map[*profile.Mapping]*profile.Mapping)
	types := SampleTypes(meta.Event, meta.TimeBased)
	pr := &profile.Profile{
		SampleType:        types,
		DefaultSampleType: types[2].Type,
		TimeNanos:         meta.TimeNanos,
		DurationNanos:     meta.DurationNanos,
		Comments:          meta.Comments,
		Period:            meta.Period,
	}
	if meta.TimeBased {
		pr.PeriodType = &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}
	} else {
		pr.PeriodType = &profile.ValueType{Type: types[1].Type, Unit: "count"}
	}
	// The smallest structures the encoder takes: samples, values and
	// location lists in a few large allocations; samples with the same
	// stack share its location list, samples with the same labels share
	// their label map (the encoder only reads them).
	n := len(keys)
	samples := make([]profile.Sample, n)
	values := make([]int64, 3*n)
	stackLocs := make(map[uint32][]*profile.Location)
	labelMaps := make(map[sampleKey]map[string][]string)
	var noStack []*profile.Location
	pr.Sample = make([]*profile.Sample, n)
	for i, k := range keys {
		v := vals[i]
		s := &samples[i]
		locs, ok := stackLocs[k.stack]
		if !ok {
			ids := p.stacks.seq(k.stack)
			locs = make([]*profile.Location, len(ids))
			for j, id := range ids {
				locs[len(ids)-1-j] = b.location(pr, id) // leaf first
			}
			stackLocs[k.stack] = locs
		}
		if len(locs) == 0 {
			if noStack == nil {
				fn := &profile.Function{ID: uint64(len(pr.Function) + 1), Name: "[no stack]", SystemName: "[no stack]"}
				pr.Function = append(pr.Function, fn)
				loc := &profile.Location{ID: uint64(len(pr.Location) + 1), Line: []profile.Line{{Function: fn}}}
				pr.Location = append(pr.Location, loc)
				noStack = []*profile.Location{loc}
			}
			locs = noStack
		}
		s.Location = locs
		s.Value = values[3*i : 3*i+3 : 3*i+3]
		s.Value[0], s.Value[1], s.Value[2] = v.n, int64(v.cpu), int64(math.Round(v.wall))
		lk := k
		lk.stack = 0
		l := labelMaps[lk]
		if l == nil {
			l = b.labels(k)
			labelMaps[lk] = l
		}
		s.Label = l
		pr.Sample[i] = s
	}
	// pprof takes the first mapping for the main binary: prefer a program
	// over the kernel and shared libraries. Ids are positions + 1.
	for i, m := range pr.Mapping {
		if m.File != "" && m.File[0] != '[' && !strings.Contains(m.File, ".so") {
			pr.Mapping[0], pr.Mapping[i] = pr.Mapping[i], pr.Mapping[0]
			break
		}
	}
	for i, m := range pr.Mapping {
		m.ID = uint64(i + 1)
	}
	return pr
}

// labels returns the string labels of a sample key.
func (b *builder) labels(k sampleKey) map[string][]string {
	p := b.p
	l := make(map[string][]string, 3)
	if p.labels.Comm {
		l["comm"] = []string{p.comms[k.comm]}
	}
	if k.par > 0 {
		l["parallelism"] = []string{strconv.Itoa(int(k.par))}
	}
	if k.state != 0 {
		l["state"] = []string{p.states[k.state]}
	}
	if k.pid >= 0 {
		l["pid"] = []string{strconv.Itoa(int(k.pid))}
	}
	if k.tid >= 0 {
		l["tid"] = []string{strconv.Itoa(int(k.tid))}
	}
	return l
}

// WritePprof writes pr gzipped. profile.Write ignores the gzip writer's
// Close error (where it flushes), so compress here and check it.
//
// gzip.BestSpeed: on the 120 MB go build trace it compresses the 5.6 MB
// protobuf in a third of the default level's time (34 ms instead of
// 103 ms) to 1.41 MB instead of 1.21 MB.
func WritePprof(w io.Writer, pr *profile.Profile) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestSpeed)
	if err != nil {
		return err
	}
	if err := pr.WriteUncompressed(zw); err != nil {
		zw.Close()
		return err
	}
	return zw.Close()
}

// CommName returns the thread name with id.
func (p *Profile) CommName(id uint32) string { return p.comms[id] }

// StackNames returns the function names of stack id, root first.
func (p *Profile) StackNames(id uint32) []string {
	var names []string
	for _, lid := range p.stacks.seq(id) {
		ls := p.locList[lid].Line
		for j := len(ls) - 1; j >= 0; j-- {
			names = append(names, ls[j].Function.Name)
		}
	}
	return names
}
