package parse

import (
	"hash/maphash"
	"unsafe"

	"github.com/wallfold/wallfold/internal/hashindex"
	"github.com/wallfold/wallfold/internal/hugemem"
)

// A trace repeats few distinct stack lines many times (a 120 MB go build
// trace: 1.05 M stack lines, 36 k distinct). frameTable keeps each
// distinct line once, parsed, under an ID: a line seen before costs one
// lookup (a hash of the line, a slot or two, one comparison) instead of
// a parse and a copy (or only a comparison, when the reader guessed it:
// lineParser.guess), and callers can cache by ID what they derive from a
// frame (Frame.ID). A concurrent Reader passes
// IDs (4 bytes) from its producer to its consumer instead of Frames.
//
// The table stops growing at maxTableLines lines or maxTableBytes bytes of
// text, so that memory does not grow with the trace even when every line
// differs; lines first seen after that are parsed each time, with ID 0.
//
// Only the producer writes; an entry is never changed once written, and
// the consumer reads only entries whose IDs came to it through a channel.
type frameTable struct {
	ids    hashindex.Index // line hash -> ID, or markBit|its index in marks
	seed   maphash.Seed
	marks  []markedLine // kept lines that are not frames
	blocks [maxTableLines / tableBlock]*[tableBlock]tabEntry
	n      int    // entries
	chunk  []byte // where new lines are copied; never moved
	bytes  int
	// heap holds the chunks in the Go heap: entries in huge pages
	// (newBlock) point into them where the collector does not look.
	heap [][]byte
}

// markedLine is a kept line that is not a frame, and its ID (contID or
// badID).
type markedLine struct {
	text []byte
	id   uint32
}

// markBit tells a marked line's number in ids from an entry's ID.
const markBit = 1 << 31

// tabEntry is a Frame in 32 bytes instead of 112: where its line is and
// where the fields are in it (lines longer than maxTabled are not kept).
// Entries with their Frame made once (136 bytes) ran fewer instructions
// but no faster, in more memory (docs/performance.md, issue 28); with the
// line as a slice (48 bytes, half of them across two cache lines) they
// took a third more memory, read for every stack line.
type tabEntry struct {
	text                *byte // the line, n bytes
	addr, sym, off, dso [2]uint16
	n                   uint16
	inlined             bool
	kernel              bool // isKernelAddr(addr): asked of every sample's first frames (echo.go)
}

// line is e's line.
func (e *tabEntry) line() []byte { return unsafe.Slice(e.text, e.n) }

const (
	maxTableLines = 1 << 18
	maxTableBytes = 32 << 20
	tableChunk    = 1 << 18
	tableBlock    = 1 << 10
	maxTabled     = 1<<16 - 1

	// contID marks a continuation line (srcline and the like): no frame;
	// badID a line that is neither (kept once, so that a bad line
	// repeated in every sample does not fill the table).
	contID = ^uint32(0)
	badID  = ^uint32(1)
)

func newFrameTable() *frameTable {
	return &frameTable{ids: hashindex.NewHuge(), seed: maphash.MakeSeed()}
}

// hash is line's hash for lookup.
func (t *frameTable) hash(line []byte) uint64 { return maphash.Bytes(t.seed, line) }

// lookup returns line's ID (or contID, badID) and true when the table has
// line, h its hash (tests: any); else where to add it (add, mark), as
// the next line added.
func (t *frameTable) lookup(line []byte, h uint64) (uint32, bool, hashindex.Probe) {
	p := t.ids.Start(h)
	for v := t.ids.Next(&p); v != 0; v = t.ids.Next(&p) {
		if v&markBit == 0 {
			if string(t.entry(v).line()) == string(line) {
				return v, true, p
			}
		} else if m := &t.marks[v&^markBit]; string(m.text) == string(line) {
			return m.id, true, p
		}
	}
	return 0, false, p
}

// takes says whether the table takes line as a new entry.
func (t *frameTable) takes(line []byte) bool {
	return t.n < maxTableLines && t.bytes < maxTableBytes && len(line) <= maxTabled
}

// keep copies line into the table's memory, where it stays unchanged for
// the table's life (frames point into it). Past the first chunk (256 KB),
// a large trace's, the chunks are huge pages where the system gives them
// (hugemem): 3 MB of text took 670 page faults in 4 KB pages.
func (t *frameTable) keep(line []byte) []byte {
	if cap(t.chunk)-len(t.chunk) < len(line) {
		t.chunk = nil
		if t.bytes > 0 && len(line) <= hugemem.Size {
			t.chunk = hugemem.Bytes()
		}
		if t.chunk == nil {
			t.chunk = make([]byte, 0, max(tableChunk, len(line)))
			t.heap = append(t.heap, t.chunk)
		}
	}
	n := len(t.chunk)
	t.chunk = append(t.chunk, line...)
	t.bytes += len(line)
	return t.chunk[n:len(t.chunk):len(t.chunk)]
}

// add records f, parsed from kept (kept by keep), under a new ID, which
// it returns; at is where lookup did not find kept.
func (t *frameTable) add(at hashindex.Probe, kept []byte, f *Frame) uint32 {
	if t.n%tableBlock == 0 {
		t.blocks[t.n/tableBlock] = t.newBlock()
	}
	e := &t.blocks[t.n/tableBlock][t.n%tableBlock]
	t.n++
	*e = tabEntry{
		text: unsafe.SliceData(kept), n: uint16(len(kept)), inlined: f.Inlined, kernel: isKernelAddr(f.Addr),
		addr: span(kept, f.Addr), sym: span(kept, f.Sym), off: span(kept, f.Off), dso: span(kept, f.DSO),
	}
	t.ids.Add(at, uint32(t.n))
	return uint32(t.n)
}

// heapBlocks is how many blocks of entries are in the Go heap (a small
// trace's), before newBlock takes them from huge pages.
const heapBlocks = 4

// newBlock returns a block of zero entries for the next IDs: past the
// first heapBlocks (4 k lines, 128 KB), a piece of huge pages where the
// system gives it (hugemem.Alloc; 29 k lines of a go build took 232
// page faults in 4 KB pages), else from the Go heap. The collector does
// not see the text pointers in such a block: the chunks they point into
// are huge pages too, or held in t.heap.
func (t *frameTable) newBlock() *[tableBlock]tabEntry {
	if t.n >= heapBlocks*tableBlock {
		return (*[tableBlock]tabEntry)(hugemem.Make[tabEntry](tableBlock))
	}
	return new([tableBlock]tabEntry)
}

// span returns where sub, a slice of line (or empty), is in it.
func span(line, sub []byte) [2]uint16 {
	if len(sub) == 0 {
		return [2]uint16{}
	}
	start := len(line) - cap(sub) // sub shares line's end of capacity
	return [2]uint16{uint16(start), uint16(start + len(sub))}
}

// mark records a kept line that is not a frame (contID, badID); at is
// where lookup did not find it.
func (t *frameTable) mark(at hashindex.Probe, kept []byte, id uint32) {
	t.ids.Add(at, markBit|uint32(len(t.marks)))
	t.marks = append(t.marks, markedLine{kept, id})
}

// entry is the entry with id (1 ≤ id ≤ t.n).
func (t *frameTable) entry(id uint32) *tabEntry {
	return &t.blocks[(id-1)/tableBlock][(id-1)%tableBlock]
}

// fill sets every field of *f to the Frame of e, whose ID is id, in
// place: a Frame is 112 bytes, and one built and returned by value was
// copied twice on its way into a sample's frames (its every stack line).
func (e *tabEntry) fill(f *Frame, id uint32) {
	base := e.text
	f.Addr, f.Sym = field(base, e.addr), field(base, e.sym)
	f.Off, f.DSO = field(base, e.off), field(base, e.dso)
	f.Inlined, f.ID = e.inlined, id
}

// field is the part s of an entry's text at base (nil: none). The spans
// were cut from the text when it was kept (add), so they are in it: no
// bounds to check again for every stack line.
func field(base *byte, s [2]uint16) []byte {
	if s[1] == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(base), s[0])), s[1]-s[0])
}
