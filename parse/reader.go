package parse

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// SyntaxError is a line the Reader could not understand. Scan returns it
// in its place as a KindError record; the line is skipped (with the
// sample it belonged to) and reading goes on.
type SyntaxError struct {
	FileName string
	Line     int
	Msg      string
	Text     string // the line, cut to a readable length
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s:%d: %s", e.FileName, e.Line, e.Msg)
}

// MaxKeptErrors is how many syntax errors a Reader keeps for reporting;
// later ones are only counted.
const MaxKeptErrors = 5

// Reader reads perf script text record by record, in the manner of
// bufio.Scanner:
//
//	r := parse.NewReader(f, "trace.txt")
//	for r.Scan() {
//		rec := r.Record()
//		...
//	}
//	if err := r.Err(); err != nil { ... }
//
// Bad lines come as KindError records, and are counted (see Skipped,
// Errors); they do not stop the scan. Lines may be of any length.
type Reader struct {
	br       *bufio.Reader
	fileName string
	lineNo   int
	err      error // I/O error other than EOF
	eof      bool

	long    []byte   // accumulates a line longer than the bufio buffer
	split   [][]byte // rest of a line split at bare CRs
	held    []byte   // a line read but not consumed: the next Scan starts with it
	hasHeld bool

	rec    Record
	arena  []byte // what records keep of their lines (header fields, frames not in the table)
	frames []Frame

	// keep: the producer of a concurrent Reader; records accumulate in
	// arena and frames (a batch's) instead of reusing them, and a sample's
	// frames are refs[refStart:]: table IDs, or localRef|i for frames[i].
	keep     bool
	refs     []uint32
	refStart int

	inSample  bool
	sampleBad bool

	skipped int
	errs    []*SyntaxError
	records int // records other than errors

	conc *concState // non-nil: parsing happens on a goroutine (concurrent.go)

	tab *frameTable // distinct stack lines, parsed (frametab.go)
}

// NewReader returns a Reader reading from r. fileName is used in errors.
//
// With more than one CPU (GOMAXPROCS > 1) the lines are split and parsed
// on a goroutine of the Reader's own, ahead of the caller's Scan; the
// records, errors and counts are the same.
func NewReader(r io.Reader, fileName string) *Reader {
	return newReader(r, fileName, concurrentDefault())
}

// NewSequentialReader is NewReader that parses on the caller's goroutine
// whatever the CPUs: for input from a pipe, whose writer (perf script)
// needs the other CPU more than the parsing does.
func NewSequentialReader(r io.Reader, fileName string) *Reader {
	return newReader(r, fileName, false)
}

func newReader(r io.Reader, fileName string, concurrent bool) *Reader {
	rd := &Reader{
		br:       bufio.NewReaderSize(r, 128<<10),
		fileName: fileName,
		tab:      newFrameTable(),
	}
	if concurrent {
		rd.conc = &concState{}
	} else {
		rd.arena = make([]byte, 0, 1<<16)
	}
	return rd
}

// Record returns the record read by the last successful Scan. It and the
// memory it points to are valid until the next Scan.
func (r *Reader) Record() *Record { return &r.rec }

// Err returns the first I/O error met, if any (io.EOF is not an error).
func (r *Reader) Err() error { return r.err }

// Skipped returns the number of lines skipped as unparseable.
func (r *Reader) Skipped() int { return r.skipped }

// Errors returns the first few syntax errors (at most MaxKeptErrors).
func (r *Reader) Errors() []*SyntaxError { return r.errs }

// Lines returns the number of lines read so far.
func (r *Reader) Lines() int { return r.lineNo }

// nextLine returns the next line without its line end, or ok=false at the
// end of input. The slice is valid until the next call.
func (r *Reader) nextLine() (line []byte, ok bool) {
	if r.hasHeld {
		r.hasHeld = false
		return r.held, true
	}
	if len(r.split) > 0 {
		line, r.split = r.split[0], r.split[1:]
		r.lineNo++
		return line, true
	}
	if r.eof {
		return nil, false
	}
	line, err := r.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		// Longer than the buffer: gather it (C++ symbols can be huge).
		r.long = append(r.long[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = r.br.ReadSlice('\n')
			r.long = append(r.long, line...)
		}
		line = r.long
	}
	if err != nil {
		if err != io.EOF {
			r.err = err
		}
		r.eof = true
		if len(line) == 0 {
			return nil, false
		}
	}
	r.lineNo++
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	if i := bytes.IndexByte(line, '\r'); i >= 0 {
		// Old Mac line ends: bare CRs inside the line end lines too.
		r.split = r.split[:0]
		parts := bytes.Split(line, []byte{'\r'})
		for _, p := range parts[1:] {
			r.split = append(r.split, append([]byte(nil), p...))
		}
		line = parts[0]
	}
	return line, true
}

// hold puts line back so that the next nextLine returns it again.
func (r *Reader) hold(line []byte) {
	r.held = line
	r.hasHeld = true
}

// syntaxError makes the current record a KindError for line; Scan
// returns it next.
func (r *Reader) syntaxError(line []byte, msg string) {
	e := &SyntaxError{FileName: r.fileName, Line: r.lineNo, Msg: msg, Text: clip(line)}
	r.rec = Record{Kind: KindError, Line: r.lineNo, Err: e}
	r.countError(e)
}

func (r *Reader) countError(e *SyntaxError) {
	r.skipped++
	if len(r.errs) < MaxKeptErrors {
		r.errs = append(r.errs, e)
	}
}

func clip(b []byte) string {
	const max = 120
	if len(b) > max {
		return string(b[:max]) + "..."
	}
	return string(b)
}

// Scan advances to the next record. It returns false at the end of input
// or on an I/O error (see Err).
func (r *Reader) Scan() bool {
	var ok bool
	if r.conc != nil {
		ok = r.scanConc()
	} else {
		ok = r.scan()
	}
	if ok && r.rec.Kind != KindError {
		r.records++
	}
	return ok
}

func (r *Reader) scan() bool {
	for {
		line, ok := r.nextLine()
		if !ok {
			if r.inSample {
				r.inSample = false
				if !r.sampleBad {
					r.finishSample()
					return true
				}
			}
			r.release()
			return false
		}
		if isBlank(line) {
			if r.inSample {
				r.inSample = false
				if !r.sampleBad {
					r.finishSample()
					return true
				}
			}
			continue
		}
		if line[0] == '#' {
			continue
		}
		if r.inSample && (line[0] == '\t' || line[0] == ' ') {
			// A stack line, unless it is a right-aligned header that
			// follows a one-line (no -g) sample.
			if line[0] == ' ' && looksLikeHeader(line) {
				r.inSample = false
				r.hold(line)
				if !r.sampleBad {
					r.finishSample()
					return true
				}
				continue
			}
			if r.sampleBad {
				continue
			}
			if r.stackLine(line) {
				return true // an error
			}
			continue
		}
		if r.inSample && isBareFrame(line) {
			// perf 3.2 printed stack lines without leading whitespace.
			if !r.sampleBad && r.stackLine(line) {
				return true
			}
			continue
		}
		if r.inSample {
			// A header with no blank line before it ends the sample.
			r.inSample = false
			r.hold(line)
			if !r.sampleBad {
				r.finishSample()
				return true
			}
			continue
		}
		if line[0] == '\t' {
			r.syntaxError(line, "stack line outside a sample (expected a sample header \"COMM TID TIME: PERIOD EVENT:\")")
			return true
		}
		if r.header(line) {
			return true
		}
	}
}

// own returns a copy of b in the arena.
func (r *Reader) own(b []byte) []byte {
	if len(b) == 0 {
		return b
	}
	n := len(r.arena)
	r.arena = append(r.arena, b...)
	return r.arena[n:len(r.arena):len(r.arena)]
}

// release lets the collector have what a Reader needs only while it
// reads (its buffer, frame table and arenas), once the input has ended.
func (r *Reader) release() {
	if r.keep {
		return // a producer: its memory is a batch's, still to be read
	}
	r.br, r.tab, r.arena, r.frames, r.refs, r.long, r.split, r.held = nil, nil, nil, nil, nil, nil, nil, nil
}

// isBareFrame reports a stack line printed without leading whitespace
// (perf 3.2: "ffffffff8103d0ca native_write_msr_safe ([kernel.kallsyms])"):
// a hex address, a "(DSO)" at the end, and not a header ("false 39654 ..."
// starts with a hex word too).
func isBareFrame(line []byte) bool {
	if t := bytes.TrimRight(line, " \t"); len(t) == 0 || !isHex(t[0]) || t[len(t)-1] != ')' {
		return false
	}
	f, ok := parseFrame(line)
	if !ok || len(f.DSO) == 0 {
		return false
	}
	_, isHeader := parseHeader(line)
	return !isHeader
}

func isBlank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\v' && c != '\f' {
			return false
		}
	}
	return true
}

// header parses a non-indented line. It returns true when a complete
// side-band record (or an error) is ready; a sample header starts a
// sample instead.
func (r *Reader) header(line []byte) bool {
	lineNo := r.lineNo
	// Parsed where it lies (in the read buffer, hot); what a record keeps
	// of it is copied to the arena (own) where it must outlive the line.
	h, ok := parseHeader(line)
	if !ok {
		r.syntaxError(line, "not a perf script line (expected \"COMM [PID/]TID [CPU] TIME: [PERIOD] EVENT:\" or a PERF_RECORD_* record)")
		return true
	}
	if !r.keep {
		r.arena = r.arena[:0]
	}
	rec := &r.rec
	*rec = Record{
		Line: lineNo, Comm: h.comm, PID: h.pid, TID: h.tid, CPU: h.cpu,
		Time: h.time, HasTime: h.hasTime,
	}
	if h.sideband != nil {
		if !parseSideband(rec, h.sideband) {
			r.syntaxError(line, "unrecognised PERF_RECORD_ line")
			return true
		}
		if r.keep {
			// Else the line outlives the record: Scan returns now.
			rec.Comm, rec.NewComm = r.own(rec.Comm), r.own(rec.NewComm)
		}
		return true
	}
	// A sample's header must outlive the stack lines that follow.
	rec.Comm = r.own(h.comm)
	h.event, h.rest = r.own(h.event), r.own(h.rest)
	rec.Kind = KindSample
	rec.Event = h.event
	rec.Period = 1
	if h.hasPeriod {
		rec.Period, rec.HasPeriod = h.period, true
	}
	if r.keep {
		r.refStart = len(r.refs)
	} else {
		r.frames = r.frames[:0]
	}
	r.inSample = true
	r.sampleBad = false
	if h.hasPeriod && h.period > MaxPeriod {
		r.sampleBad = true
		r.syntaxError(line, fmt.Sprintf("absurd period %d (over 2^40): a corrupt line; its sample is dropped", h.period))
		return true
	}
	if len(h.rest) > 0 {
		// Recorded without -g: the only frame is on the header line.
		if f, ok := parseFrame(h.rest); ok {
			r.addFrame(f)
		} else {
			rec.Payload = h.rest
		}
	}
	return false
}

// stackLine adds a frame to the sample; it returns true when the line is
// bad (the current record is then the error).
func (r *Reader) stackLine(line []byte) bool {
	t := r.tab
	id, ok := t.ids[string(line)]
	if !ok && t.takes(line) {
		kept := t.keep(line)
		var f Frame
		switch f, ok = parseFrame(kept); {
		case ok:
			id = t.add(kept, &f)
		case isContinuation(kept):
			id, ok = contID, true
			t.mark(kept, id)
		default:
			id, ok = badID, true
			t.mark(kept, id)
		}
	}
	if ok {
		switch id {
		case contID:
		case badID:
			r.syntaxError(line, badStackLine)
			r.sampleBad = true
			return true
		default:
			if r.keep {
				r.refs = append(r.refs, id)
			} else {
				r.frames = append(r.frames, Frame{})
				t.frame(&r.frames[len(r.frames)-1], id)
			}
		}
		return false
	}
	// Not in the table (full, or a huge line): parsed from a copy.
	start := len(r.arena)
	r.arena = append(r.arena, line...)
	f, ok := parseFrame(r.arena[start:])
	if !ok {
		r.arena = r.arena[:start]
		if !isContinuation(line) {
			r.syntaxError(line, badStackLine)
			r.sampleBad = true
			return true
		}
		return false
	}
	r.addFrame(f)
	return false
}

// addFrame appends a frame that is not in the table.
func (r *Reader) addFrame(f Frame) {
	if r.keep {
		r.refs = append(r.refs, localRef|uint32(len(r.frames)))
	}
	r.frames = append(r.frames, f)
}

const badStackLine = "bad stack line (expected \"ADDR SYMBOL+OFF (DSO)\"); its sample is dropped"

func (r *Reader) finishSample() {
	if r.keep {
		// The consumer makes the Frames from refs[refStart:].
		return
	}
	r.rec.Frames = r.frames[:len(r.frames):len(r.frames)]
}
