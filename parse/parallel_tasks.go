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
	done := make(chan struct{})
	defer close(done)
	outs := make([]chan *taskChunk, min(workers, chunks))
	for w := range outs {
		// Two chunks ahead at most: memory stays bounded.
		outs[w] = make(chan *taskChunk, 2)
		go scanTaskChunks(src, size, chunk, w, len(outs), chunks, outs[w], done)
	}
	sampleSeen := false
	for k := range chunks {
		tc := <-outs[k%len(outs)]
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

// scanTaskChunks reads chunks first, first+step, ... for their facts.
func scanTaskChunks(src io.ReaderAt, size, chunk int64, first, step, chunks int, out chan<- *taskChunk, done <-chan struct{}) {
	find := bufio.NewReaderSize(nil, boundaryBuf)
	br := bufio.NewReaderSize(nil, 256<<10) // ScanTaskIDs's: its long lines are skipped alike
	for k := first; k < chunks; k += step {
		start, end := chunkBounds(src, find, size, chunk, k, true)
		br.Reset(io.NewSectionReader(src, start, end-start))
		tc := &taskChunk{}
		tc.err = scanTaskLines(br, func(id TaskID) { tc.facts = append(tc.facts, id) },
			func(h *header) bool {
				tc.sample, tc.sampleAt, tc.stop = true, len(tc.facts), needsNoPass(h)
				return false // the facts after it count if an earlier chunk has a sample
			})
		select {
		case out <- tc:
		case <-done:
			return
		}
	}
}
