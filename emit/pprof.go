package emit

import (
	"slices"

	"github.com/google/pprof/profile"
)

// Profile gathers samples for a pprof profile: one Mapping per DSO,
// Locations keyed by (mapping, address, functions), Functions keyed by
// name, perf's "(inlined)" frames as extra Lines of the Location they
// were inlined into. Samples with the same stack and labels are merged.
type Profile struct {
	names  NameOptions
	labels Labels

	mappings map[string]*profile.Mapping
	mapList  []*profile.Mapping
	funcs    map[string]*profile.Function
	funcList []*profile.Function
	locs     map[locKey]*profile.Location // the last made at each (mapping, address)
	locList  []*profile.Location
	// sameAddr links the Locations of one (mapping, address) that differ
	// in their functions, by index in locList: the one made before,
	// index + 1; 0 if none.
	sameAddr []uint32

	frameLoc map[string]*profile.Location // raw frame run -> location
	stacks   seqSet                       // location indices, outermost first
	comms    []string
	commID   map[string]uint32
	samples  sampleTable
	idsBuf   []uint32
	keyBuf   []byte
	runBuf   runScratch

	// locByID caches location's answer for a run of one frame by
	// parse.Frame.ID (Java tidying aside): most runs are one frame.
	locByID []locCache

	// pseudo are the Locations of leaf frames that are no code
	// ([blocked], [runnable]), by name.
	pseudo map[string]uint32
	offLabels
}

// offLabels are the label values of off-CPU samples, few: lists.
type offLabels struct {
	states []string // state label values by sampleKey.state (0: none)
	wakers []string // waker label values by sampleKey.waker (0: none)
}

// runScratch is newLocation's reused memory: a run's names, where each
// frame's names end, and their functions (leaf first).
type runScratch struct {
	names []string
	ends  []int
	fns   []*profile.Function
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
	pid, tid int32  // -1: no label
	par      int32  // 0: no label
	state    uint8  // index in Profile.states: 0 on CPU
	waker    uint32 // index in Profile.wakers: 0 none
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

// key is the sample key of a sample, with what its labels leave out
// merged.
func (p *Profile) key(win int32, stack, comm uint32, pid, tid, parallelism int, state uint8) sampleKey {
	k := sampleKey{win, stack, comm, int32(pid), int32(tid), int32(parallelism), state, 0}
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
	v := p.samples.at(p.key(win, stack, comm, pid, tid, parallelism, 0))
	v.n++
	v.cpu += period
	v.wall += wall
}

// AddOff adds off-CPU time (wall ns, no CPU, no sample) of a thread in
// state (a label value: "blocked", "runnable") to window win. stack
// should end in the state's leaf (WithLeaf).
func (p *Profile) AddOff(win int32, stack, comm uint32, pid, tid int, state string, wall float64) {
	p.AddOffWoken(win, stack, comm, pid, tid, state, "", wall)
}

// AddOffWoken is AddOff with the label waker ("": none): who ended the
// thread's blocked time with a wakeup.
func (p *Profile) AddOffWoken(win int32, stack, comm uint32, pid, tid int, state, waker string, wall float64) {
	k := p.key(win, stack, comm, pid, tid, 0, uint8(labelIndex(&p.states, state)))
	if waker != "" && p.labels.Waker {
		k.waker = uint32(labelIndex(&p.wakers, waker))
	}
	p.samples.at(k).wall += wall
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

// labelIndex interns an off-CPU label value in values (from 1; 0 is
// none). The values are few (two states, the wakers' commands): a list.
func labelIndex(values *[]string, v string) int {
	i := slices.Index(*values, v)
	if i < 0 {
		if len(*values) == 0 {
			*values = append(*values, "")
		}
		i = len(*values)
		*values = append(*values, v)
	}
	return i
}
