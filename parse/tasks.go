package parse

import (
	"bufio"
	"bytes"
	"io"
)

// TaskID is what a line says of a task's process: the thread TID is in
// process PID (ParentPID < 0), or process PID was forked by ParentPID
// (TID < 0).
type TaskID struct {
	PID, TID, ParentPID int
}

// ScanTaskIDs reads a whole trace for what its lines say of tasks'
// processes and parents (the pid/tid column, FORK, EXIT, COMM, CPU-wide
// next/prev pid/tid), for a first pass over a file: perf often names a
// thread's process only in a later record, and a model that knows it from
// the start counts the thread's first records in the right process. It
// reads side-band lines only (samples carry nothing a later record would
// not, and stack lines are skipped unparsed) and calls fn for each fact,
// in input order.
//
// It stops at the first sample when the trace needs no such pass: its
// lines name their process (a pid column), or it is per-task (no CPU
// column: its threads' processes come from FORK records, which precede
// them, or from nothing).
func ScanTaskIDs(r io.Reader, fn func(TaskID)) error {
	return scanTaskLines(bufio.NewReaderSize(r, 256<<10), fn, needsNoPass)
}

// needsNoPass reports a first sample that says the trace needs no first
// pass: its lines name their process, or it is per-task.
func needsNoPass(h *header) bool { return h.pid >= 0 || h.cpu < 0 }

// scanTaskLines is ScanTaskIDs reading through br, which stops when
// firstSample says so at the first sample.
func scanTaskLines(br *bufio.Reader, fn func(TaskID), firstSample func(*header) bool) error {
	var rec Record
	sampleSeen := false
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A line longer than the buffer: a stack line or junk; skip it.
			for err == bufio.ErrBufferFull {
				_, err = br.ReadSlice('\n')
			}
			continue
		}
		if len(line) > 0 && line[0] != '\t' && line[0] != '#' {
			line = bytes.TrimRight(line, "\r\n")
			if bytes.Contains(line, []byte("PERF_RECORD_")) {
				scanTaskLine(line, &rec, fn)
			} else if !sampleSeen {
				if h, ok := parseHeader(line); ok && h.sideband == nil {
					sampleSeen = true
					if firstSample(&h) {
						return nil
					}
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func scanTaskLine(line []byte, rec *Record, fn func(TaskID)) {
	h, ok := parseHeader(line)
	if !ok {
		return
	}
	if h.pid >= 0 && h.tid > 0 {
		fn(TaskID{PID: h.pid, TID: h.tid, ParentPID: -1})
	}
	if h.sideband == nil {
		return
	}
	*rec = Record{}
	if !parseSideband(rec, h.sideband) {
		return
	}
	switch rec.Kind {
	case KindFork, KindExit, KindComm:
		if rec.SubjectTID > 0 && rec.SubjectPID >= 0 {
			fn(TaskID{PID: rec.SubjectPID, TID: rec.SubjectTID, ParentPID: -1})
		}
		if rec.Kind == KindFork && rec.SubjectPID > 0 && rec.ParentPID >= 0 && rec.SubjectPID != rec.ParentPID {
			fn(TaskID{PID: rec.SubjectPID, TID: -1, ParentPID: rec.ParentPID})
		}
	case KindSwitchCPUWide:
		if rec.PeerTID > 0 && rec.PeerPID >= 0 {
			fn(TaskID{PID: rec.PeerPID, TID: rec.PeerTID, ParentPID: -1})
		}
	}
}
