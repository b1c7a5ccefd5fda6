package parse

import (
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
	// OverLimit: the line is over MaxLineBytes, or its sample's stack
	// over MaxSampleFrames (say so rather than quote the line).
	OverLimit bool
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
	fileName string
	// p parses: on the caller's goroutine (sequential), or nil once a
	// concurrent Reader's producer has taken it (concurrent.go).
	p    *lineParser
	conc *concState
	par  *parState // a file parsed in chunks (parallel.go)

	rec    *Record // the current record
	batchR Record  // parallel: the current record, copied from its batch; at the end, none
	stack  Stack   // the current sample's frames

	lineNo  int
	err     error // I/O error other than EOF
	skipped int
	errs    []*SyntaxError
	records int // records other than errors
	// perfData: the input starts with perf.data's magic and was not read.
	perfData bool
}

// NewReader returns a Reader reading from r. fileName is used in errors;
// a name in angle brackets ("<stdin>") is not a file that perf could read.
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
	rd := &Reader{fileName: fileName, p: newLineParser(r, fileName)}
	rd.rec = &rd.batchR
	if concurrent {
		rd.conc = &concState{}
	} else {
		rd.p.arena = make([]byte, 0, 1<<16)
	}
	return rd
}

// Record returns the record read by the last successful Scan. It and the
// memory it points to are valid until the next Scan.
func (r *Reader) Record() *Record { return r.rec }

// Err returns the first I/O error met, if any (io.EOF is not an error).
func (r *Reader) Err() error { return r.err }

// Skipped returns the number of lines skipped as unparseable.
func (r *Reader) Skipped() int { return r.skipped }

// Errors returns the first few syntax errors (at most MaxKeptErrors).
func (r *Reader) Errors() []*SyntaxError { return r.errs }

// Lines returns the number of lines read so far.
func (r *Reader) Lines() int { return r.lineNo }

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
	switch {
	case r.par != nil:
		ok = r.scanPar()
	case r.conc != nil:
		ok = r.scanConc()
	default:
		ok = r.scanSeq()
	}
	if !ok {
		return false
	}
	if r.rec.Kind == KindError {
		r.countError(r.rec.Err)
	} else {
		r.records++
	}
	return true
}

// scanSeq is Scan for a sequential Reader.
func (r *Reader) scanSeq() bool {
	p := r.p
	if p == nil {
		return false
	}
	ok := p.scan()
	r.rec, r.lineNo = &p.rec, p.lineNo
	if ok && p.rec.Kind == KindSample {
		refs := p.refs[p.refStart:]
		r.stack.set(refs, refs, p.tab, p.frames)
		p.rec.Stack = &r.stack
	}
	if !ok {
		r.err = p.err
		r.perfData = p.perfData
		r.batchR = Record{}
		r.rec = &r.batchR
		r.p, r.stack = nil, Stack{} // let the collector have the parser's memory
	}
	return ok
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

const badStackLine = "bad stack line (expected \"ADDR SYMBOL+OFF (DSO)\"); its sample is dropped"
