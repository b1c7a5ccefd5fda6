package parse

import (
	"bufio"
	"io"
	"runtime"
	"unsafe"
)

// The parallel reader: a regular file is cut into chunks at lines where
// a parser may start afresh (split.go), and workers parse them, chunk k
// by worker k mod W, each with a frame table of its own. The caller's
// Scan takes the chunks' batches in file order, adds the lines of the
// chunks before to line numbers, and numbers frames as one table does:
// by text, from 1, in the order they are delivered. Each worker owns a few batches, which come back to it once read:
// a worker that runs ahead waits, memory stays bounded, and the worker
// of the chunk being read always has batches (no deadlock).

// fileChunk is the size of the stretch in which a chunk begins;
// workerBatches how many batches each worker owns at most (a chunk of
// a real trace fills one to three). Tests set a tiny chunk to hit every
// edge.
var fileChunk int64 = 256 << 10

const workerBatches = 4

// maxWorkers bounds the workers: the model takes the records one by one
// on the caller's goroutine (some 40 % of a folded run's CPU), so that
// more than three or four workers would wait on it, each with its own
// frame table and batches in memory.
const maxWorkers = 4

// parallelWorkers is how many workers parse a file: one per CPU that Go
// may use but one, which the caller's model needs, at most maxWorkers. So
// 2 CPUs keep the one-producer reader: on an idle 2-core machine, a 200
// MB go build trace took 0.30 s with it and 0.41 s with two workers
// (0.49 s on one CPU), the workers and the model taking turns on both.
func parallelWorkers() int { return min(runtime.GOMAXPROCS(0)-1, maxWorkers) }

type parWorker struct {
	full chan *batch
	free chan *batch
	tab  *frameTable
	// gid maps the worker's frame IDs to the reader's (0: not yet met;
	// noID: none, the reader's numbering is full).
	gid []uint32
}

const noID = ^uint32(0)

type parState struct {
	src      io.ReaderAt
	size     int64
	chunk    int64
	chunks   int
	workers  []*parWorker
	done     chan struct{}
	started  bool
	k        int // the chunk being read
	base     int // lines of the chunks before k
	cur      *batch
	next     int // index of the next record of cur
	ended    bool
	ids      map[string]uint32 // frame text -> the reader's ID
	sampleID []uint32          // the current sample's frames' IDs, the reader's
	fileName string
}

// NewFileReader returns a Reader of the regular file src of size bytes.
// With more than one CPU and more than one chunk's worth of text, it
// parses on several CPUs at once (records, errors and counts as
// NewReader's): with two, one parses while a goroutine reads the file
// ahead (ahead.go); else it is NewReader on the file.
func NewFileReader(src io.ReaderAt, size int64, fileName string) *Reader {
	return newFileReader(src, size, fileName, parallelWorkers(), fileChunk)
}

func newFileReader(src io.ReaderAt, size int64, fileName string, workers int, chunk int64) *Reader {
	var magic [len(perfDataMagic)]byte
	n, _ := src.ReadAt(magic[:], 0)
	seq := io.NewSectionReader(src, 0, size)
	chunks := int((size + chunk - 1) / chunk)
	if chunks < 2 || string(magic[:n]) == perfDataMagic {
		// perf.data: the sequential parser says so without reading it.
		return NewReader(seq, fileName)
	}
	if workers < 2 {
		if !concurrentDefault() {
			return NewReader(seq, fileName)
		}
		return newFileReaderAhead(seq, fileName, aheadData, aheadCarry)
	}
	rd := &Reader{fileName: fileName}
	rd.rec = &rd.batchR
	rd.par = &parState{src: src, size: size, chunk: chunk, chunks: chunks,
		workers: make([]*parWorker, min(workers, chunks)), fileName: fileName}
	return rd
}

// startPar launches the workers. They hold no reference to r, so that a
// Reader dropped before the end of its input is collected and its
// workers told to stop.
func (r *Reader) startPar() {
	c := r.par
	c.started = true
	c.done = make(chan struct{})
	c.ids = make(map[string]uint32)
	for w := range c.workers {
		pw := &parWorker{full: make(chan *batch, workerBatches), free: make(chan *batch, workerBatches), tab: newFrameTable()}
		c.workers[w] = pw
		go pw.run(c.src, c.size, c.chunk, c.fileName, w, len(c.workers), c.chunks, c.done)
	}
	runtime.AddCleanup(r, func(done chan struct{}) { close(done) }, c.done)
}

// run parses chunks first, first+step, ... of the file.
func (w *parWorker) run(src io.ReaderAt, size, chunk int64, fileName string, first, step, chunks int, done chan struct{}) {
	find := bufio.NewReaderSize(nil, boundaryBuf)
	br := bufio.NewReaderSize(nil, 128<<10)
	spare := workerBatches // made when first needed: a small file needs few
	for k := first; k < chunks; k += step {
		start, end := chunkBounds(src, find, size, chunk, k, false)
		br.Reset(io.NewSectionReader(src, start, end-start))
		p := &lineParser{br: br, fileName: fileName, tab: w.tab, keep: true, started: k > 0}
		if !produceChunk(p, w.full, w.free, done, end < size, &spare) {
			return
		}
	}
}

// scanPar is Scan for a parallel Reader.
func (r *Reader) scanPar() bool {
	c := r.par
	if c.ended {
		return false
	}
	if !c.started {
		r.startPar()
	}
	for {
		if b := c.cur; b != nil {
			if c.next < len(b.recs) {
				r.deliver(b)
				return true
			}
			last, lines, err := b.last, b.endLine, b.err
			c.workers[c.k%len(c.workers)].free <- b
			c.cur = nil
			if last {
				c.base += lines
				c.k++
				if err != nil || c.k == c.chunks {
					// The workers are done, or stopped when r is collected.
					r.lineNo, r.err, c.ended = c.base, err, true
					r.batchR = Record{}
					c.workers, c.ids, c.sampleID, r.stack = nil, nil, nil, Stack{}
					return false
				}
			}
		}
		c.cur = <-c.workers[c.k%len(c.workers)].full
		c.next = 0
	}
}

// deliver makes the next record of b the current one, its line numbers
// counted from the file's start and its frames numbered as one table's.
func (r *Reader) deliver(b *batch) {
	c := r.par
	i := c.next
	c.next++
	rec := &r.batchR
	lines, from, to := b.record(i, rec)
	r.lineNo = lines + c.base
	rec.Line += c.base
	if rec.Kind == KindError {
		rec.Err.Line += c.base // the worker made it and let go of it
	}
	if rec.Kind == KindSample {
		w := c.workers[c.k%len(c.workers)]
		refs := b.refs[from:to]
		r.stack.set(c.readerIDs(w, refs), refs, w.tab, b.frames)
		rec.Stack = &r.stack
	}
}

// readerIDs returns the reader's IDs of refs, a sample's frames in a
// batch of worker w (localRef|i, a frame not in the table, stays: no
// ID), in memory reused from one sample to the next.
func (c *parState) readerIDs(w *parWorker, refs []uint32) []uint32 {
	ids := c.sampleID[:0]
	for _, ref := range refs {
		switch {
		case ref&localRef != 0:
		case int(ref) < len(w.gid) && w.gid[ref]-1 < noID-1:
			ref = w.gid[ref] // met before (inlined: the consumer's time is the bound)
		default:
			ref = c.globalID(w, ref)
		}
		ids = append(ids, ref)
	}
	c.sampleID = ids
	return ids
}

// globalID returns the reader's ID for worker w's frame id: the same for
// the same text whichever worker read it, numbered from 1 in the order
// of delivery, and 0 past maxTableLines (as a full table gives).
func (c *parState) globalID(w *parWorker, id uint32) uint32 {
	if int(id) < len(w.gid) {
		switch g := w.gid[id]; g {
		case 0:
		case noID:
			return 0
		default:
			return g
		}
	} else {
		w.gid = append(w.gid, make([]uint32, int(id)+1-len(w.gid))...)
	}
	e := &w.tab.blocks[(id-1)/tableBlock][(id-1)%tableBlock]
	key := unsafe.String(e.text, e.n)
	g, ok := c.ids[key]
	if !ok {
		g = noID
		if len(c.ids) < maxTableLines {
			g = uint32(len(c.ids) + 1)
			c.ids[key] = g
		}
	}
	w.gid[id] = g
	if g == noID {
		return 0
	}
	return g
}
