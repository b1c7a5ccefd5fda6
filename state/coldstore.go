package state

import "encoding/binary"

// This file is the cold store's memory (cold.go says what goes in it):
// records packed in chunks, in the order the threads were forgotten, and
// a bound on them. Past the bound the oldest records are dropped: memory
// stays bounded however many threads go quiet and never come back (two
// million threads seen once kept 58 MB of records), and a thread that
// comes back after its record was dropped is taken as new, counted and
// said (Model.Warnings).

// coldStore holds the forgotten threads' records. An entry is a length
// byte, the tid (varint) and the record.
type coldStore struct {
	at     TIDTable // tid -> 1 + where its entry is: chunk number%coldMaxChunks<<coldChunkBits | offset; or a dropped mark
	chunks [][]byte // chunks[i] is chunk number first+i
	first  int
	live   int // bytes of entries in use
	dead   int // bytes of entries brought back since
	queue  []coldCandidate
	qhead  int
	buf    [coldMaxRecord]byte
	// dropped counts the records dropped at the bound; droppedUnknown
	// those of them sampled with no process known (stats.UnknownPID);
	// returned the threads that came back after theirs was.
	dropped, droppedUnknown, returned int
}

const (
	coldChunkBits = 18 // 256 KiB a chunk
	// coldMaxChunks numbers the chunks (mod it) in an entry's place; the
	// bound keeps fewer.
	coldMaxChunks = 1 << (31 - coldChunkBits)
	coldMaxRecord = 255
	// coldDropped marks a tid whose record was dropped at the bound;
	// coldDroppedUnknown one that was sampled with no process known.
	coldDropped        = ^uint32(0)
	coldDroppedUnknown = ^uint32(0) - 1
)

// coldBoundChunks is the bound: 8 MiB of entries, some 240 000 threads
// sampled once (coldOnceEntry). It was 32 MiB, some million threads,
// the largest part of the peak of two million threads seen once (and a
// third of it with the collector's headroom); a thread that comes back
// after 240 000 others went quiet since it did is new now, counted in the
// warning, where it came back as it was. A var for tests.
var coldBoundChunks = 32

// coldOnceEntry is the entry of a thread sampled once: a length byte, its
// tid (3 bytes below 2^20) and a record of 31 bytes (flags, firstAt, its
// sample's stack, period, time on CPU and its share).
const coldOnceEntry = 35

// put appends tid's record. It reports false when the record is too
// long to keep, or the store is at its bound (the caller drops the
// oldest chunk, dropOldest, and puts again).
func (c *coldStore) put(tid int, rec []byte) (ok, full bool) {
	var tb [binary.MaxVarintLen64]byte
	tidLen := binary.PutVarint(tb[:], int64(tid))
	n := tidLen + len(rec)
	if n > coldMaxRecord {
		return false, false
	}
	if len(c.chunks) == 0 || len(c.chunks[len(c.chunks)-1])+n+1 > 1<<coldChunkBits {
		if len(c.chunks) >= coldBoundChunks {
			return false, true
		}
		c.chunks = append(c.chunks, make([]byte, 0, 1<<coldChunkBits))
	}
	last := len(c.chunks) - 1
	pos := len(c.chunks[last])
	c.chunks[last] = append(append(append(c.chunks[last], byte(n)), tb[:tidLen]...), rec...)
	c.at.Set(tid, uint32((c.first+last)%coldMaxChunks<<coldChunkBits|pos)+1)
	c.live += n + 1
	return true, false
}

// record returns tid's record in the cold store (nil: none, or dropped).
func (c *coldStore) record(tid int) []byte {
	v := c.at.Get(tid)
	if v == 0 || v >= coldDroppedUnknown {
		return nil
	}
	v--
	chunk := c.chunks[(int(v>>coldChunkBits)-c.first%coldMaxChunks+coldMaxChunks)%coldMaxChunks]
	_, rec, _ := entryAt(chunk, int(v&(1<<coldChunkBits-1)))
	return rec
}

// entryAt returns the entry at pos of chunk: its tid, its record and its
// size in the chunk.
func entryAt(chunk []byte, pos int) (tid int, rec []byte, size int) {
	n := int(chunk[pos])
	e := chunk[pos+1 : pos+1+n]
	v, k := binary.Varint(e)
	return int(v), e[k:], n + 1
}

// placeOf returns tid's entry's place in at, were it at pos of chunks[i].
func (c *coldStore) placeOf(i, pos int) uint32 {
	return uint32((c.first+i)%coldMaxChunks<<coldChunkBits|pos) + 1
}

// take removes tid's entry (its record is the caller's, until the next put).
func (c *coldStore) take(tid int, rec []byte) {
	c.at.Set(tid, 0)
	size := len(rec) + 1 + varintLen(tid)
	c.live -= size
	c.dead += size
	if c.live == 0 {
		c.first += len(c.chunks)
		c.chunks, c.dead = nil, 0
	} else if c.dead > c.live && c.dead > 1<<coldChunkBits {
		c.compact()
	}
}

func varintLen(v int) int {
	var b [binary.MaxVarintLen64]byte
	return binary.PutVarint(b[:], int64(v))
}

// compact copies the entries in use to new chunks, oldest first.
func (c *coldStore) compact() {
	old, oldFirst := c.chunks, c.first
	c.first += len(old)
	c.chunks, c.live, c.dead = nil, 0, 0
	for i, chunk := range old {
		for pos := 0; pos < len(chunk); {
			tid, rec, size := entryAt(chunk, pos)
			if c.at.Get(tid) == uint32((oldFirst+i)%coldMaxChunks<<coldChunkBits|pos)+1 {
				c.put(tid, rec) // fewer bytes than before: within the bound
			}
			pos += size
		}
	}
}

// storeCold puts th's record in the cold store, dropping the oldest
// records if it is at its bound; false if th cannot be kept there.
func (t *tracker) storeCold(th *thread, rec []byte) bool {
	ok, full := t.cold.put(th.tid, rec)
	if full {
		t.dropOldest()
		ok, _ = t.cold.put(th.tid, rec)
	}
	return ok
}

// dropOldest drops the records of the oldest chunk: each thread is
// forgotten as an exited one is (its time since its last sample told,
// its off-CPU wait ended now, its group left), its tid marked so that a
// return is counted.
func (t *tracker) dropOldest() {
	c := &t.cold
	chunk := c.chunks[0]
	for pos := 0; pos < len(chunk); {
		tid, rec, size := entryAt(chunk, pos)
		if c.at.Get(tid) == c.placeOf(0, pos) {
			th := t.decodeCold(tid, rec)
			mark := coldDropped
			if _, ok := t.pidOf.get(tid); !ok && th.sampled && tid > 0 {
				mark = coldDroppedUnknown
				c.droppedUnknown++
			}
			c.at.Set(tid, mark)
			c.live -= size
			c.dropped++
			t.unsampledEnd(th, t.now)
			if th.inSet {
				t.runOff(th, t.now, offGone)
			}
			t.leaveGroup(th)
		} else {
			c.dead -= size
		}
		pos += size
	}
	c.chunks[0] = nil
	c.chunks = c.chunks[1:]
	c.first++
}

// returned notes that tid, whose record was dropped (mark), comes back:
// it is taken as new.
func (c *coldStore) returnedAfterDrop(tid int, mark uint32) {
	c.at.Set(tid, 0)
	c.returned++
	if mark == coldDroppedUnknown {
		c.droppedUnknown--
	}
}
