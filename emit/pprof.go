package emit

import (
	"slices"

	"github.com/google/pprof/profile"
	"github.com/wallfold/wallfold/parse"
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
	funcs    map[string]uint32 // name -> index in funcList
	funcList []function
	locs     addrTable // address -> the index + 1 of the last Location made there
	locList  chunkList[location]
	locFns   []uint32 // the functions of Locations that have more than one
	// sameAddr links the Locations of one address (in any mapping), by
	// index in locList: the one made before, index + 1; none if absent.
	// A map: few addresses have two (21 of 29,116 Locations on an 86 MB
	// trace), where a slice by index grew to most of locList's length.
	sameAddr map[uint32]uint32

	frameLoc map[string]uint32 // raw frame run -> location index, noLocation: none
	stacks   seqSet            // location indices, outermost first
	comms    []string
	commID   map[string]uint32
	samples  sampleTable
	runBuf   runScratch
	frameFns frameFuncs

	// locByID caches location's answer for a run of one frame by
	// parse.Frame.ID (Java tidying aside): most runs are one frame. 0:
	// not cached, 1: no Location (the frame names nothing), else the
	// Location's index + 2.
	locByID []uint32

	// pseudo are the Locations of leaf frames that are no code
	// ([blocked], [runnable]), by name.
	pseudo map[string]uint32
	offLabels
}

// location is a Location: a mapping (index in mapList + 1, 0: none),
// an address, and functions, leaf first (the last is the one the others
// were inlined into). fn is the function (an index in funcList) of a
// Location that has one, most do; else manyFns + the index in locFns of
// its number of functions, followed by them. Plain values, not
// profile.Location objects: 16 bytes each, nothing for the collector to
// follow.
type location struct {
	addr    uint64
	mapping uint32
	fn      [1]uint32
}

// manyFns marks a location's fn as an index in locFns.
const manyFns = 1 << 31

// function is a Function: its name and system name (perf's symbol).
// Values, not profile.Function objects: 32 bytes each, not 96.
type function struct{ name, sys string }

// noLocation is the location index of a run of frames that names
// nothing.
const noLocation = ^uint32(0)

// functions returns the function indices of loc, leaf first.
func (p *Profile) functions(loc *location) []uint32 {
	if loc.fn[0] < manyFns {
		return loc.fn[:]
	}
	i := loc.fn[0] - manyFns
	return p.locFns[i+1 : i+1+p.locFns[i]]
}

// offLabels are the label values of off-CPU samples, few: lists.
type offLabels struct {
	states []string // state label values by sampleKey.state (0: none)
	wakers []string // waker label values by sampleKey.waker (0: none)
}

// runScratch is Stack's reused memory: a stack's location indices, a
// run's key, names and functions (leaf first).
type runScratch struct {
	ids   []uint32
	run   []parse.Frame // the frames of a run not found by ID
	key   []byte
	names []string
	fns   []uint32
}

// frameFuncs are the functions a frame's names make (leaf first), by
// what the names depend on (frameNameKey): one naming per symbol, where
// a Location is made per address.
type frameFuncs struct {
	byKey frameKeys // key -> (start, count) in flat
	flat  []uint32  // function indices
	key   []byte
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
		locList:  chunkList[location]{huge: true},
		samples:  sampleTable{entries: chunkList[sampleEntry]{huge: true}},
		names:    o,
		labels:   labels,
		mappings: make(map[string]*profile.Mapping),
		funcs:    make(map[string]uint32),
		frameLoc: make(map[string]uint32),
		stacks:   newSeqSet(),
		frameFns: frameFuncs{byKey: newFrameKeys()},
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
		id = p.addLocation(location{}, []uint32{p.function(leaf, nil)})
		p.pseudo[leaf] = id
	}
	ids := append(append(p.runBuf.ids[:0], p.stacks.seq(stack)...), id)
	p.runBuf.ids = ids
	return p.stackOf(ids)
}

// CommName returns the thread name with id.
func (p *Profile) CommName(id uint32) string { return p.comms[id] }

// StackNames returns the function names of stack id, root first.
func (p *Profile) StackNames(id uint32) []string {
	var names []string
	for _, lid := range p.stacks.seq(id) {
		fns := p.functions(p.locList.at(lid))
		for j := len(fns) - 1; j >= 0; j-- {
			names = append(names, p.funcList[fns[j]].name)
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
