package parse

import (
	"bufio"
	"io"
	"runtime"
)

// ScanFileTaskIDs is ScanTaskIDs on the regular file src of size bytes:
// with more than one CPU, its chunks (at any line start: the pass reads
// lines one by one) are read by workers (parallel.go's), and fn is
// called in input order all the same, up to the same first sample.
func ScanFileTaskIDs(src io.ReaderAt, size int64, fn func(TaskID)) error {
	// every CPU: the caller only gathers the facts, it runs no model
	return scanFileTaskIDs(src, size, fn, min(runtime.GOMAXPROCS(0), maxWorkers), fileChunk)
}

// taskChunk is what a worker found in a chunk.
type taskChunk struct {
	facts    []TaskID
	sample   bool // the chunk has a sample header; the first one ...
	sampleAt int  // ... comes after facts[:sampleAt]
	stop     bool // ... and needs no pass (needsNoPass)
	err      error
}

func scanFileTaskIDs(src io.ReaderAt, size int64, fn func(TaskID), workers int, chunk int64) error {
	chunks := int((size + chunk - 1) / chunk)
	if workers < 2 || chunks < 2 {
		return ScanTaskIDs(io.NewSectionReader(src, 0, size), fn)
	}
	// Chunk 0 first, here: a trace's first sample is most often in it, and
	// when that sample says the pass is not needed (needsNoPass) it ends
	// there, as the sequential pass does, before any worker starts (the
	// workers read 1.1 MB of a 172 MB go build trace for nothing, into
	// buffers of their own; the run's set-up took 2.8-3.4 ms on 2 CPUs
	// against 1.3-1.8 ms on one).
	first := scanTaskChunk(src, bufio.NewReaderSize(nil, boundaryBuf), bufio.NewReaderSize(nil, taskBuf), size, chunk, 0, needsNoPass)
	facts := first.facts
	if first.sample && first.stop {
		facts = facts[:first.sampleAt]
	}
	for _, f := range facts {
		fn(f)
	}
	if first.err != nil || first.stop {
		return first.err
	}
	done := make(chan struct{})
	defer close(done)
	outs := make([]chan *taskChunk, min(workers, chunks-1))
	for w := range outs {
		// Two chunks ahead at most: memory stays bounded.
		outs[w] = make(chan *taskChunk, 2)
		go scanTaskChunks(src, size, chunk, 1+w, len(outs), chunks, outs[w], done)
	}
	sampleSeen := first.sample
	for k := 1; k < chunks; k++ {
		tc := <-outs[(k-1)%len(outs)]
		facts := tc.facts
		if !sampleSeen && tc.sample {
			sampleSeen = true
			for _, f := range facts[:tc.sampleAt] {
				fn(f)
			}
			if tc.stop {
				return nil
			}
			facts = facts[tc.sampleAt:]
		}
		for _, f := range facts {
			fn(f)
		}
		if tc.err != nil {
			return tc.err
		}
	}
	return nil
}

// taskBuf is a chunk reader's buffer: ScanTaskIDs's, so that its long
// lines are skipped alike.
const taskBuf = 256 << 10

// scanTaskChunks reads chunks first, first+step, ... for their facts.
func scanTaskChunks(src io.ReaderAt, size, chunk int64, first, step, chunks int, out chan<- *taskChunk, done <-chan struct{}) {
	find := bufio.NewReaderSize(nil, boundaryBuf)
	br := bufio.NewReaderSize(nil, taskBuf)
	for k := first; k < chunks; k += step {
		// The facts after a chunk's first sample count if an earlier
		// chunk has a sample: read on.
		tc := scanTaskChunk(src, find, br, size, chunk, k, func(*header) bool { return false })
		select {
		case out <- tc:
		case <-done:
			return
		}
	}
}

// scanTaskChunk reads chunk k for its facts, up to its first sample if
// stopAt says so of it.
func scanTaskChunk(src io.ReaderAt, find, br *bufio.Reader, size, chunk int64, k int, stopAt func(*header) bool) *taskChunk {
	start, end := chunkBounds(src, find, size, chunk, k, true)
	br.Reset(io.NewSectionReader(src, start, end-start))
	tc := &taskChunk{}
	tc.err = scanTaskLines(br, func(id TaskID) { tc.facts = append(tc.facts, id) },
		func(h *header) bool {
			tc.sample, tc.sampleAt, tc.stop = true, len(tc.facts), needsNoPass(h)
			return stopAt(h)
		})
	return tc
}
