package parse

import "runtime"

// The concurrent reader: with two or more CPUs, a Reader splits and parses
// lines on a goroutine of its own (the producer, a sequential Reader) while
// its caller consumes the records, as inferno's multi-threaded collapser
// does. Records travel in batches that own their bytes; syntax errors are
// records too, so that Skipped, Errors and Lines say on the caller's side
// exactly what the sequential reader says after the same Scan.

// batchBytes and batchRecords bound a batch; batchesInFlight is how many
// the producer may fill ahead of the consumer: stretches of a trace load
// one or the other more (new frames, the parser; switches, the model),
// and each waits on a full or an empty queue for the other (a runtime
// trace of gb2.txt on two CPUs: 42 and 31 ms a run at 4 in flight). 12
// took 4.4-4.7 % off the wall time there (docs/performance.md); with
// records packed (batchrec.go), 24 and 48 were within the noise.
const (
	batchBytes      = 256 << 10
	batchRecords    = 512
	batchesInFlight = 12
	batchFrames     = 16 << 10 // initial capacity: growing from nil costs more than the parse
	batchArena      = 64 << 10 // initial capacity: most records keep a few words of their lines
)

type batch struct {
	recs      []packedRec // batchrec.go
	wide      []wideRec   // the records that do not pack
	firstLine int         // Lines() after the first record
	arena     []byte
	frames    []Frame  // frames not in the table
	refs      []uint32 // the samples' frames: table IDs, or localRef|index into frames

	// Set on the last batch.
	last     bool // of the input; of its chunk in a parallel reader
	err      error
	endLine  int
	perfData bool
}

func (b *batch) reset() {
	b.recs = b.recs[:0]
	clear(b.wide) // their slices hold arenas
	b.wide = b.wide[:0]
	b.arena = b.arena[:0]
	b.frames = b.frames[:0]
	b.refs = b.refs[:0]
	// A parallel reader's worker uses its chunks' last batches again.
	b.last, b.err, b.endLine, b.perfData = false, nil, 0, false
}

// localRef marks a ref to a batch's own frames.
const localRef = 1 << 31

type concState struct {
	full    chan *batch
	free    chan *batch
	done    chan struct{}
	started bool
	cur     *batch
	next    int // index of the next record of cur
	ended   bool
	tab     *frameTable  // the producer's (read only here)
	ahead   *aheadSource // a file that the producer reads through an aheadReader
}

// concurrentDefault says whether NewReader parses on its own goroutine:
// with two CPUs or more.
func concurrentDefault() bool { return runtime.GOMAXPROCS(0) > 1 }

// scanConc is Scan for a concurrent Reader.
func (r *Reader) scanConc() bool {
	c := r.conc
	if c.ended {
		return false
	}
	if !c.started {
		r.start()
	}
	for {
		b := c.cur
		if b != nil {
			if c.next < len(b.recs) {
				// Its byte fields are b's: b stays the consumer's until
				// the next Scan.
				var from, to int
				r.lineNo, from, to = b.record(c.next, &r.batchR)
				r.rec = &r.batchR
				if r.rec.Kind == KindSample {
					refs := b.refs[from:to]
					r.stack.set(refs, refs, c.tab, b.frames)
					r.rec.Stack = &r.stack
				}
				c.next++
				return true
			}
			if b.last {
				r.lineNo = b.endLine
				r.err = b.err
				r.perfData = b.perfData
				c.ended = true
				r.batchR = Record{}
				r.rec = &r.batchR
				// The batches and the table are done with: let the
				// collector have them (a pprof run builds its profile next).
				c.full, c.free, c.cur, c.tab, r.stack = nil, nil, nil, nil, Stack{}
				return false
			}
			c.cur = nil
			c.free <- b
		}
		c.cur = <-c.full
		c.next = 0
	}
}

// start launches the producer. It holds no reference to r, so that a
// Reader dropped before the end of its input is collected and its producer
// told to stop.
func (r *Reader) start() {
	c := r.conc
	c.started = true
	c.full = make(chan *batch, batchesInFlight)
	c.free = make(chan *batch, batchesInFlight+2)
	c.done = make(chan struct{})
	src := r.p
	src.keep = true
	if a := c.ahead; a != nil {
		src.br, c.ahead = a.start(c.done), nil
	}
	c.tab = src.tab
	r.p = nil
	go produce(src, c.full, c.free, c.done)
	runtime.AddCleanup(r, func(done chan struct{}) { close(done) }, c.done)
}

func newBatch() *batch {
	return &batch{
		arena: make([]byte, 0, batchArena),
		refs:  make([]uint32, 0, batchFrames),
		recs:  make([]packedRec, 0, batchRecords),
	}
}

// firstBatch is the producer's first batch: small, as most of a short
// input's memory would be the batches' (an empty input's run took 3.2 MB
// of batches, page faults and a collection); it grows as it fills, and
// the batches made after it, once the input has filled one, are whole.
func firstBatch() *batch {
	return &batch{
		arena: make([]byte, 0, 4<<10),
		refs:  make([]uint32, 0, 256),
		recs:  make([]packedRec, 0, 8),
	}
}

func produce(src *lineParser, full, free chan *batch, done chan struct{}) {
	free <- firstBatch()
	spare := batchesInFlight + 1 // made when needed: a short input needs one
	produceChunk(src, full, free, done, false, &spare)
}

// produceChunk sends src's records to full in batches taken from free
// (or made while *spare says more may be), the last one marked; more: a
// chunk of a file with more text after it (parallel.go). It returns false
// when told to stop (done).
func produceChunk(src *lineParser, full, free chan *batch, done chan struct{}, more bool, spare *int) bool {
	var b *batch
	get := func() bool {
		if *spare > 0 && len(free) == 0 {
			*spare--
			b = newBatch()
			return true
		}
		select {
		case b = <-free:
			// The consumer read this batch last, from the other CPU: its
			// records, refs and bytes written one by one stalled the
			// parser on each line's transfer (the header's first stores
			// took half its time). Cleared in bulk first, the lines come
			// over together: 7-10 % off the wall on two CPUs
			// (docs/performance.md).
			arena, refs := len(b.arena), len(b.refs)
			b.reset()
			clear(b.recs[:cap(b.recs)])
			clear(b.arena[:arena])
			clear(b.refs[:refs])
			return true
		case <-done:
			return false
		}
	}
	if !get() {
		return false
	}
	src.arena, src.frames, src.refs = b.arena, b.frames, b.refs
	for src.scan() {
		b.add(src, more)
		if len(b.recs) >= batchRecords || len(src.arena) >= batchBytes {
			b.arena, b.frames, b.refs = src.arena, src.frames, src.refs
			select {
			case full <- b:
			case <-done:
				return false
			}
			if !get() {
				return false
			}
			src.arena, src.frames, src.refs = b.arena, b.frames, b.refs
		}
	}
	b.arena, b.frames, b.refs = src.arena, src.frames, src.refs
	b.last, b.err, b.endLine, b.perfData = true, src.err, src.lineNo, src.perfData
	select {
	case full <- b:
		return true
	case <-done:
		return false
	}
}
