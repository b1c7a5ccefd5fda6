package emit

import (
	"compress/gzip"
	"io"
	"math"
	"sort"
	"strings"
	"unsafe"

	"github.com/google/pprof/profile"
	"github.com/wallfold/wallfold/parse"
)

// Profile gathers samples for a pprof profile: one Mapping per DSO,
// Locations keyed by (mapping, address), Functions keyed by name, perf's
// "(inlined)" frames as extra Lines of the Location they were inlined
// into. Samples with the same stack and labels are merged.
type Profile struct {
	names NameOptions

	mappings map[string]*profile.Mapping
	mapList  []*profile.Mapping
	funcs    map[string]*profile.Function
	funcList []*profile.Function
	locs     map[locKey]*profile.Location
	locList  []*profile.Location

	frameLoc map[string]*profile.Location // raw frame run -> location
	stacks   [][]*profile.Location        // per stack id, leaf first
	stackID  map[string]uint32
	comms    []string
	commID   map[string]uint32
	samples  map[sampleKey]*sampleVal
	idsBuf   []uint64
	keyBuf   []byte
	namesBuf []string
	runBuf   []parse.Frame
	locsBuf  []*profile.Location
}

type locKey struct {
	m    *profile.Mapping
	addr uint64
}

type sampleKey struct {
	stack    uint32
	comm     uint32
	pid, tid int32
	par      int32
}

type sampleVal struct {
	n    int64
	cpu  uint64
	wall float64
}

// NewProfile returns an empty profile builder naming frames with o.
func NewProfile(o NameOptions) *Profile {
	return &Profile{
		names:    o,
		mappings: make(map[string]*profile.Mapping),
		funcs:    make(map[string]*profile.Function),
		locs:     make(map[locKey]*profile.Location),
		frameLoc: make(map[string]*profile.Location),
		stackID:  make(map[string]uint32),
		commID:   make(map[string]uint32),
		samples:  make(map[sampleKey]*sampleVal),
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
func (p *Profile) Stack(frames []parse.Frame, java bool) uint32 {
	ids := p.idsBuf[:0]
	// A run of "(inlined)" frames ends at the real frame they were
	// inlined into: together they are one Location.
	start := 0
	for i := range frames {
		if frames[i].Inlined && i+1 < len(frames) {
			continue
		}
		loc := p.location(frames[start:i+1], java)
		start = i + 1
		if loc != nil {
			ids = append(ids, loc.ID)
		}
	}
	p.idsBuf = ids
	kb := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(ids))), len(ids)*8)
	if id, ok := p.stackID[string(kb)]; ok {
		return id
	}
	id := uint32(len(p.stacks))
	locs := make([]*profile.Location, len(ids))
	for i, lid := range ids {
		locs[i] = p.locList[lid-1]
	}
	p.stacks = append(p.stacks, locs)
	p.stackID[string(kb)] = id
	return id
}

// location returns the Location for a run of frames: inlined ones (leaf
// first) and the real frame last. It is nil when the run names nothing.
func (p *Profile) location(run []parse.Frame, java bool) *profile.Location {
	k := p.keyBuf[:0]
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
	p.keyBuf = k
	if loc, ok := p.frameLoc[string(k)]; ok {
		return loc
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
		for i := range run {
			names := FrameNames(p.namesBuf[:0], &run[i], java, p.names)
			p.namesBuf = names
			// "A->B->C" chains are root first: B and C are inlined into A.
			for j := len(names) - 1; j >= 0; j-- {
				loc.Line = append(loc.Line, profile.Line{Function: p.function(names[j], run[i].Sym)})
			}
		}
		if len(loc.Line) == 0 {
			p.frameLoc[string(k)] = nil
			return nil
		}
		p.locList = append(p.locList, loc)
		if addr != 0 {
			p.locs[lk] = loc
		}
	}
	p.frameLoc[string(k)] = loc
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

// Add adds one sample. pid < 0 leaves the pid label out.
func (p *Profile) Add(stack, comm uint32, pid, tid, parallelism int, period uint64, wall float64) {
	k := sampleKey{stack, comm, int32(pid), int32(tid), int32(parallelism)}
	v := p.samples[k]
	if v == nil {
		v = &sampleVal{}
		p.samples[k] = v
	}
	v.n++
	v.cpu += period
	v.wall += wall
}

// Meta is what a profile says about its trace.
type Meta struct {
	Event      string // the event sampled
	TimeBased  bool   // period in nanoseconds (cpu-clock, task-clock)
	Period     int64  // typical sampling period
	StartNanos int64  // first timestamp of the trace (perf clock)
	EndNanos   int64
	Comments   []string
}

// SampleTypes returns the sample types a profile of event has: count,
// then cpu and wall (time events), or the event count and the event
// count divided by parallelism (other events).
func SampleTypes(event string, timeBased bool) []*profile.ValueType {
	if timeBased {
		return []*profile.ValueType{
			{Type: "samples", Unit: "count"},
			{Type: "cpu", Unit: "nanoseconds"},
			{Type: "wall", Unit: "nanoseconds"},
		}
	}
	return []*profile.ValueType{
		{Type: "samples", Unit: "count"},
		{Type: event, Unit: "count"},
		{Type: event + "_wall", Unit: "count"},
	}
}

// Build returns the profile.
func (p *Profile) Build(meta Meta) *profile.Profile {
	types := SampleTypes(meta.Event, meta.TimeBased)
	// pprof takes the first mapping for the main binary: prefer a program
	// over the kernel and shared libraries.
	maps := append([]*profile.Mapping(nil), p.mapList...)
	for i, m := range maps {
		if m.File != "" && m.File[0] != '[' && !strings.Contains(m.File, ".so") {
			maps[0], maps[i] = maps[i], maps[0]
			break
		}
	}
	pr := &profile.Profile{
		SampleType:        types,
		DefaultSampleType: types[2].Type,
		Mapping:           maps,
		Location:          p.locList,
		Function:          p.funcList,
		TimeNanos:         meta.StartNanos,
		DurationNanos:     meta.EndNanos - meta.StartNanos,
		Comments:          meta.Comments,
		Period:            meta.Period,
	}
	if meta.TimeBased {
		pr.PeriodType = &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}
	} else {
		pr.PeriodType = &profile.ValueType{Type: meta.Event, Unit: "count"}
	}
	keys := make([]sampleKey, 0, len(p.samples))
	for k := range p.samples {
		keys = append(keys, k)
	}
	// A stable order makes the output reproducible.
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.stack != b.stack {
			return a.stack < b.stack
		}
		if a.comm != b.comm {
			return a.comm < b.comm
		}
		if a.pid != b.pid {
			return a.pid < b.pid
		}
		if a.tid != b.tid {
			return a.tid < b.tid
		}
		return a.par < b.par
	})
	pr.Sample = make([]*profile.Sample, 0, len(keys))
	for _, k := range keys {
		v := p.samples[k]
		s := &profile.Sample{
			Location: p.stacks[k.stack],
			Value:    []int64{v.n, int64(v.cpu), int64(math.Round(v.wall))},
			Label:    map[string][]string{"comm": {p.comms[k.comm]}},
			NumLabel: map[string][]int64{"tid": {int64(k.tid)}, "parallelism": {int64(k.par)}},
		}
		if k.pid >= 0 {
			s.NumLabel["pid"] = []int64{int64(k.pid)}
		}
		pr.Sample = append(pr.Sample, s)
	}
	return pr
}

// WritePprof writes pr gzipped. profile.Write ignores the gzip writer's
// Close error (where it flushes), so compress here and check it.
func WritePprof(w io.Writer, pr *profile.Profile) error {
	zw := gzip.NewWriter(w)
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
	locs := p.stacks[id]
	for i := len(locs) - 1; i >= 0; i-- {
		ls := locs[i].Line
		for j := len(ls) - 1; j >= 0; j-- {
			names = append(names, ls[j].Function.Name)
		}
	}
	return names
}
