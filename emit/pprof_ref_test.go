package emit

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
)

// The reference for the pprof writer: the profile.Profile its bytes
// encode, built with the library's types (as wallfold's pprof output was
// made before it was encoded straight from the tables), for the library
// to encode.

// refBuildEach builds the profile of each window (merged: one profile of
// all) in order and hands it to write, as WriteEach writes them; it stops
// at write's first error. The profiles share their label maps and
// location lists: they are for writing, not for changing. It is the last
// call, as WriteEach is.
func (p *Profile) refBuildEach(meta func(win int32) Meta, merged bool, write func(win int32, pr *profile.Profile) error) error {
	type entry struct {
		k sampleKey
		v sampleVal
	}
	es := make([]entry, 0, p.samples.entries.n)
	for i := range p.samples.entries.n {
		k, v := p.samples.entry(uint32(i)).k, p.samples.entry(uint32(i)).v
		if merged {
			k.win = 0
		}
		es = append(es, entry{k, v})
	}
	// The lookup tables are done with: let the collector have them while
	// the profile is built and encoded (the encoder's copies of the
	// samples are the peak of a pprof run's memory).
	p.samples, p.frameLoc, p.locByID = sampleTable{}, nil, nil
	p.stacks.dropIndex()
	p.locs, p.mappings, p.funcs, p.commID = addrTable{}, nil, nil, nil
	p.runBuf, p.frameFns, p.sameAddr = runScratch{}, frameFuncs{}, nil
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
		if c := cmp.Compare(a.state, b.state); c != 0 {
			return c
		}
		return cmp.Compare(a.waker, b.waker)
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
	b := newRefBuilder(p)
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

// refBuilder makes profiles out of a Profile's tables, each with its own
// copies of the mappings, locations and functions it uses.
type refBuilder struct {
	p *Profile
	// by the Profile's index: the current profile's copy, and the build
	// (generation) it belongs to
	locs  []*profile.Location
	locAt []int
	fns   map[uint32]*profile.Function
	maps  map[*profile.Mapping]*profile.Mapping
	gen   int
}

func newRefBuilder(p *Profile) *refBuilder {
	return &refBuilder{p: p, locs: make([]*profile.Location, p.locList.n), locAt: make([]int, p.locList.n)}
}

// location returns the current profile's copy of location index id.
func (b *refBuilder) location(pr *profile.Profile, id uint32) *profile.Location {
	if b.locAt[id] == b.gen {
		return b.locs[id]
	}
	src := b.p.locList.at(id)
	loc := &profile.Location{ID: uint64(len(pr.Location) + 1), Address: src.addr}
	if src.mapping != 0 {
		srcMap := b.p.mapList[src.mapping-1]
		m := b.maps[srcMap]
		if m == nil {
			c := *srcMap
			m = &c
			b.maps[srcMap] = m
			pr.Mapping = append(pr.Mapping, m)
		}
		loc.Mapping = m
	}
	fns := b.p.functions(src)
	loc.Line = make([]profile.Line, len(fns))
	for i, fi := range fns {
		f := b.fns[fi]
		if f == nil {
			src := &b.p.funcList[fi]
			f = &profile.Function{ID: uint64(len(pr.Function) + 1), Name: src.name, SystemName: src.sys}
			b.fns[fi] = f
			pr.Function = append(pr.Function, f)
		}
		loc.Line[i] = profile.Line{Function: f}
	}
	pr.Location = append(pr.Location, loc)
	b.locs[id], b.locAt[id] = loc, b.gen
	return loc
}

// build makes one profile of the samples keys, vals (sorted).
func (b *refBuilder) build(meta Meta, keys []sampleKey, vals []sampleVal) *profile.Profile {
	p := b.p
	b.gen++
	b.fns = make(map[uint32]*profile.Function)
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
func (b *refBuilder) labels(k sampleKey) map[string][]string {
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
	if k.waker != 0 {
		l["waker"] = []string{p.wakers[k.waker]}
	}
	return l
}
