package emit

import (
	"hash/maphash"

	"github.com/wallfold/wallfold/internal/hashindex"
)

// frameKeys finds where a frame's name ids are by the frame's key (what
// its names depend on: Stacks.frameKey). It is asked once per distinct
// stack line of a trace, tens of thousands of times: a Go map of string
// keys grew by rehashing them into new tables, 7 % of a folded run's page
// faults; here the keys are copied once into chunks and the index holds
// 8-byte slots, doubled without hashing a key again.
type frameKeys struct {
	index hashindex.Index // hash -> entry+1
	keys  []frameKey
	chunk []byte          // where keys are copied; a full chunk is left as it is
	last  hashindex.Probe // where find's last miss ended, for add
	seed  maphash.Seed
}

// frameKey is a key, kept, and its (start, n) in Stacks.frameIDs.
type frameKey struct {
	key []byte
	loc [2]int
}

const frameKeyChunk = 64 << 10

func newFrameKeys() frameKeys {
	return frameKeys{index: hashindex.New(), seed: maphash.MakeSeed()}
}

// find returns k's location, if added. After a miss, add(k, ...) adds k
// where the walk ended.
func (t *frameKeys) find(k []byte) ([2]int, bool) {
	p := t.index.Start(maphash.Bytes(t.seed, k))
	for v := t.index.Next(&p); v != 0; v = t.index.Next(&p) {
		if e := &t.keys[v-1]; string(e.key) == string(k) {
			return e.loc, true
		}
	}
	t.last = p
	return [2]int{}, false
}

// add keeps a copy of k, which find just missed, with loc.
func (t *frameKeys) add(k []byte, loc [2]int) {
	if cap(t.chunk)-len(t.chunk) < len(k) {
		t.chunk = make([]byte, 0, max(frameKeyChunk, len(k)))
	}
	n := len(t.chunk)
	t.chunk = append(t.chunk, k...)
	t.keys = append(grown(t.keys), frameKey{t.chunk[n:len(t.chunk):len(t.chunk)], loc})
	t.index.Add(t.last, uint32(len(t.keys)))
}
