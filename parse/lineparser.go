package parse

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// lineParser is the producer: it reads lines and parses them into records,
// one at a time. A sequential Reader drives one on the caller's goroutine,
// a concurrent one on a goroutine of its own (concurrent.go).
type lineParser struct {
	br       lineReader
	fileName string
	lineNo   int
	err      error // I/O error other than EOF
	eof      bool

	long longLine   // a line longer than the read buffer (or the carry room, aheadReader)
	src  lineSource // where the next line comes from

	rec    Record
	arena  []byte // what records keep of their lines (header fields, frames not in the table)
	frames []Frame

	// A sample's frames are refs[refStart:]: table IDs, or localRef|i
	// for frames[i] (stack.go). keep: the producer of a concurrent
	// Reader; records accumulate in arena, refs and frames (a batch's)
	// instead of reusing them.
	keep     bool
	refs     []uint32
	refStart int

	inSample  bool
	sampleBad bool

	started  bool // the first scan has looked at the input's first bytes
	perfData bool // the input is a perf.data file: nothing was read

	lastEnd sampleEnd // the last sample header's end, read

	tab *frameTable // distinct stack lines, parsed (frametab.go)
	frameGuess
}

// frameGuess is what a stack line is compared with before it is looked
// up (three in four guesses are right in a go build trace): next[id] is
// the ID of the frame that came after frame id last time (next[0]: a
// sample's first), last the current sample's last frame's.
type frameGuess struct {
	next []uint32
	last uint32
}

// lineSource is where nextLine takes lines from before it reads: a held
// line, the parts of a line split at bare CRs, the window of the read
// buffer.
type lineSource struct {
	held    []byte // a line read but not consumed: the next scan starts with it
	hasHeld bool
	split   [][]byte // rest of a line split at bare CRs
	win     []byte   // bytes buffered in br, of which off are read (readSlice)
	off     int
}

// lineReader is what lineParser reads through: a bufio.Reader, or an
// aheadReader on a file when a CPU is free to read it.
type lineReader interface {
	ReadSlice(delim byte) ([]byte, error)
	Peek(n int) ([]byte, error)
	Discard(n int) (int, error)
	Buffered() int
}

func newLineParser(r io.Reader, fileName string) *lineParser {
	return &lineParser{br: bufio.NewReaderSize(r, 128<<10), fileName: fileName, tab: newFrameTable()}
}

// nextLine returns the next line without its line end, or ok=false at the
// end of input. The slice is valid until the next call.
func (p *lineParser) nextLine() (line []byte, ok bool) {
	if p.src.hasHeld {
		p.src.hasHeld = false
		return p.src.held, true
	}
	if len(p.src.split) > 0 {
		line, p.src.split = p.src.split[0], p.src.split[1:]
		p.lineNo++
		return line, true
	}
	if p.eof {
		return nil, false
	}
	p.long.over = 0
	line, err := p.readSlice()
	if err == bufio.ErrBufferFull {
		line, err = p.gatherLong(line)
	}
	if err != nil {
		if err != io.EOF {
			p.err = err
		}
		p.eof = true
		if len(line) == 0 {
			return nil, false
		}
	}
	p.lineNo++
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	// Each line is searched for a CR on its own: the stack lines guessed
	// (stackRun), most lines, are not searched at all, and the 2 KB
	// searched ahead at a time cost more than the few lines left.
	if i := bytes.IndexByte(line, '\r'); i >= 0 && p.long.over == 0 {
		// Old Mac line ends: bare CRs inside the line end lines too.
		p.src.split = p.src.split[:0]
		parts := bytes.Split(line, []byte{'\r'})
		for _, part := range parts[1:] {
			p.src.split = append(p.src.split, append([]byte(nil), part...))
		}
		line = parts[0]
	}
	return line, true
}

// readSlice is bufio.Reader.ReadSlice('\n') for the lines in the window
// (src.win[src.off:]: bytes the buffer holds, of which the reader has
// consumed src.off): a search for the line's end and no more. A line not
// whole in the window is read with ReadSlice itself, and the window
// then remade of what the buffer holds after it.
func (p *lineParser) readSlice() ([]byte, error) {
	if i := bytes.IndexByte(p.src.win[p.src.off:], '\n'); i >= 0 {
		line := p.src.win[p.src.off : p.src.off+i+1]
		p.src.off += i + 1
		return line, nil
	}
	if p.src.off > 0 {
		p.br.Discard(p.src.off) // cannot fail: the bytes are buffered
	}
	p.src.win, p.src.off = nil, 0
	line, err := p.br.ReadSlice('\n')
	if err == nil {
		// Peek of what is buffered reads nothing: line stays valid.
		p.src.win, _ = p.br.Peek(p.br.Buffered())
	}
	return line, err
}

// isBlankByte is a byte of a blank line (isBlank): a line that ends
// otherwise (a stack line ends with its DSO's ')') is not blank.
func isBlankByte(c byte) bool { return c == ' ' || c == '\t' || c == '\v' || c == '\f' }

// longLine gathers a line that the reader gives in parts: longer than
// its buffer (or across two buffers and longer than an aheadReader's
// carry room).
type longLine struct {
	buf []byte
	// over is the length of the line nextLine returned last when it was
	// over MaxLineBytes (of which buf has the first MaxLineBytes), else 0.
	over int64
}

// MaxLineBytes is the longest line a Reader reads: a longer one is a
// syntax error of its own (skipped and counted, its sample dropped), read
// through without being kept, so that memory stays bounded on any input
// (/dev/zero is one endless line). perf's longest lines are stack lines
// with demangled C++ or Rust symbols: a few KB (the longest in the
// FlameGraph and inferno corpora: 4941 bytes), rarely some MB for deeply
// nested templates. 4 MiB takes those whole and costs some 16 MB at
// most (the line, its copies in the arena and the frame).
const MaxLineBytes = 4 << 20

// gatherLong reads the rest of a line that came in parts (longLine), first
// its part: into p.long up to MaxLineBytes, the rest only counted (in
// p.long.over).
func (p *lineParser) gatherLong(part []byte) ([]byte, error) {
	var err error = bufio.ErrBufferFull
	l := &p.long
	l.buf = append(l.buf[:0], part...)
	for err == bufio.ErrBufferFull && len(l.buf) <= MaxLineBytes {
		part, err = p.br.ReadSlice('\n')
		l.buf = append(l.buf, part...)
	}
	if len(l.buf) <= MaxLineBytes {
		return l.buf, err
	}
	n := int64(len(l.buf))
	for err == bufio.ErrBufferFull {
		part, err = p.br.ReadSlice('\n')
		n += int64(len(part))
	}
	if len(part) > 0 && part[len(part)-1] == '\n' {
		n--
	}
	p.long.over = n
	return l.buf[:MaxLineBytes], err
}

// perfDataMagic starts a perf.data file (perf's header, version 2).
const perfDataMagic = "PERFILE2"

// isPerfData reports an input that starts with perf.data's magic; it reads
// nothing else of it, so that none of its binary bytes become records or
// messages.
func (p *lineParser) isPerfData() bool {
	b, err := p.br.Peek(len(perfDataMagic))
	if err != nil && err != io.EOF {
		p.err = err // Peek forgets it; the lines before it are still read
	}
	return string(b) == perfDataMagic
}

// hold puts line back so that the next nextLine returns it again.
func (p *lineParser) hold(line []byte) {
	p.src.held = line
	p.src.hasHeld = true
}

// syntaxError makes the current record a KindError for line; scan
// returns it next.
func (p *lineParser) syntaxError(line []byte, msg string) {
	e := &SyntaxError{FileName: p.fileName, Line: p.lineNo, Msg: msg, Text: clip(line)}
	p.rec = Record{Kind: KindError, Line: p.lineNo, Err: e}
}

// begin looks at the input's first bytes, once: it returns true for a
// perf.data file, of which nothing is read.
func (p *lineParser) begin() bool {
	p.started = true
	if p.isPerfData() {
		p.perfData, p.eof = true, true
		p.release()
		return true
	}
	return false
}

func (p *lineParser) scan() bool {
	if !p.started && p.begin() {
		return false
	}
	for {
		if p.inSample && !p.sampleBad && p.stackRun() {
			return true // an error
		}
		line, ok := p.nextLine()
		if !ok {
			if p.inSample {
				p.inSample = false
				if !p.sampleBad {
					p.finishSample()
					return true
				}
			}
			p.release()
			return false
		}
		if p.long.over > 0 {
			// Whatever the line was, its sample (if any) is incomplete.
			dropped := ""
			if p.inSample {
				p.sampleBad, dropped = true, "; the sample it belongs to is dropped"
			}
			p.syntaxError(line, fmt.Sprintf("line of %d bytes, over the limit of %d bytes (perf's longest, stack lines with C++ symbols, are some KB): not read%s", p.long.over, MaxLineBytes, dropped))
			p.rec.Err.OverLimit = true
			return true
		}
		if n := len(line); n == 0 || isBlankByte(line[n-1]) && isBlank(line) {
			if p.inSample {
				p.inSample = false
				if !p.sampleBad {
					p.finishSample()
					return true
				}
			}
			continue
		}
		if line[0] == '#' {
			if !p.inSample && isTimeHeader(line) {
				if !p.keep {
					p.arena = p.arena[:0]
				}
				p.rec = Record{Kind: KindHeader, Line: p.lineNo, Payload: p.own(line)}
				return true
			}
			continue
		}
		if p.inSample && (line[0] == '\t' || line[0] == ' ') {
			// A stack line, unless it is a right-aligned header that
			// follows a one-line (no -g) sample.
			if line[0] == ' ' && looksLikeHeader(line) {
				p.inSample = false
				p.hold(line)
				if !p.sampleBad {
					p.finishSample()
					return true
				}
				continue
			}
			if p.sampleBad {
				continue
			}
			if p.stackLine(line, true) {
				return true // an error
			}
			continue
		}
		if p.inSample && isBareFrame(line) {
			// perf 3.2 printed stack lines without leading whitespace.
			if !p.sampleBad && p.stackLine(line, true) {
				return true
			}
			continue
		}
		if p.inSample {
			// A header with no blank line before it ends the sample.
			p.inSample = false
			p.hold(line)
			if !p.sampleBad {
				p.finishSample()
				return true
			}
			continue
		}
		if line[0] == '\t' {
			p.syntaxError(line, "stack line outside a sample (expected a sample header \"COMM TID TIME: PERIOD EVENT:\")")
			return true
		}
		if p.header(line) {
			return true
		}
	}
}

// own returns a copy of b in the arena.
func (p *lineParser) own(b []byte) []byte {
	if len(b) == 0 {
		return b
	}
	n := len(p.arena)
	p.arena = append(p.arena, b...)
	return p.arena[n:len(p.arena):len(p.arena)]
}

// release lets the collector have what a Reader needs only while it
// reads (its buffer, frame table and arenas), once the input has ended.
func (p *lineParser) release() {
	if p.keep {
		return // a producer: its memory is a batch's, still to be read
	}
	p.br, p.tab, p.arena, p.frames, p.refs, p.long, p.src, p.next = nil, nil, nil, nil, nil, longLine{}, lineSource{}, nil
}

// header parses a non-indented line. It returns true when a complete
// side-band record (or an error) is ready; a sample header starts a
// sample instead.
func (p *lineParser) header(line []byte) bool {
	lineNo := p.lineNo
	// Parsed where it lies (in the read buffer, hot); what a record keeps
	// of it is copied to the arena (own) where it must outlive the line.
	var h header
	after, ok := h.prefix(line)
	if ok && !p.lastEnd.read(&h, line[after:]) {
		if ok = h.tail(line[after:]); ok && h.sideband == nil {
			p.lastEnd.remember(&h, line[after:])
		}
	}
	if !ok && isRoundLine(line) {
		p.rec = Record{Kind: KindRound, Line: lineNo, PID: -1, TID: -1, CPU: -1}
		return true
	}
	if !ok {
		p.syntaxError(line, "not a perf script line (expected \"COMM [PID/]TID [CPU] TIME: [PERIOD] EVENT:\" or a PERF_RECORD_* record)")
		return true
	}
	if h.pidRange {
		// Read as tid 0 before: the samples of the thread counted as idle.
		what := "record"
		if h.sideband == nil {
			what = "sample"
			p.inSample, p.sampleBad = true, true // its stack lines go with it
		}
		p.syntaxError(line, fmt.Sprintf("pid or tid out of range (over %d digits; perf's are below 2^22): a corrupt line; its %s is dropped", maxPidDigits, what))
		return true
	}
	if !p.keep {
		p.arena = p.arena[:0]
	}
	rec := &p.rec
	// Cleared whole: clearing only what the record before may have set
	// (Record.plain, as batch.record does) was 0.9-3.6 % slower on one CPU.
	*rec = Record{}
	rec.Line, rec.Comm, rec.PID, rec.TID, rec.HasTID, rec.CPU = lineNo, h.comm, h.pid, h.tid, h.hasTID, h.cpu
	rec.Time, rec.HasTime = h.time, h.hasTime
	if h.sideband != nil {
		if !parseSideband(rec, h.sideband) {
			p.syntaxError(line, "unrecognised PERF_RECORD_ line")
			return true
		}
		if p.keep {
			// Else the line outlives the record: Scan returns now.
			rec.Comm, rec.NewComm = p.own(rec.Comm), p.own(rec.NewComm)
		}
		return true
	}
	// A sample's header must outlive the stack lines that follow.
	rec.Comm = p.own(h.comm)
	h.event, h.rest = p.own(h.event), p.own(h.rest)
	rec.Kind = KindSample
	rec.Event = h.event
	rec.Period = 1
	if h.hasPeriod {
		rec.Period, rec.HasPeriod = h.period, true
	}
	if !p.keep {
		p.refs, p.frames = p.refs[:0], p.frames[:0]
	}
	p.refStart = len(p.refs)
	p.inSample = true
	p.sampleBad = false
	p.last = 0
	if h.hasPeriod && h.period > MaxPeriod {
		p.sampleBad = true
		p.syntaxError(line, fmt.Sprintf("absurd period %d (over 2^40): a corrupt line; its sample is dropped", h.period))
		return true
	}
	if len(h.rest) > 0 {
		// Recorded without -g: the only frame is on the header line.
		if f, ok := parseFrame(h.rest); ok {
			p.addFrame(f)
		} else {
			rec.Payload = h.rest
		}
	}
	return false
}

// stackLine adds a frame to the sample; it returns true when the line is
// bad (the current record is then the error). guess false: the line is
// known not to be the guess (stackRun tried it).
func (p *lineParser) stackLine(line []byte, guess bool) bool {
	if p.tooDeep() {
		p.syntaxError(line, fmt.Sprintf("a stack of over %d frames or %d MiB (perf's callchains have at most kernel.perf_event_max_stack frames, 127 by default, and their inlined ones): a corrupt or endless sample; it is dropped", MaxSampleFrames, maxSampleBytes>>20))
		p.rec.Err.OverLimit, p.sampleBad = true, true
		p.refs = p.refs[:p.refStart]
		return true
	}
	t := p.tab
	if guess {
		if id := p.guess(line); id != 0 {
			// The guess was right: the frame's entry, without a lookup.
			p.tabled(id)
			return false
		}
	}
	id, ok, at := t.lookup(line, t.hash(line))
	if !ok && t.takes(line) {
		kept := t.keep(line)
		var f Frame
		switch f, ok = parseFrame(kept); {
		case ok:
			id = t.add(at, kept, &f)
		case isContinuation(kept):
			id, ok = contID, true
			t.mark(at, kept, id)
		default:
			id, ok = badID, true
			t.mark(at, kept, id)
		}
	}
	if ok {
		switch id {
		case contID:
		case badID:
			p.syntaxError(line, badStackLine)
			p.sampleBad = true
			return true
		default:
			p.tabled(id)
		}
		return false
	}
	// Not in the table (full, or a huge line): parsed from a copy.
	start := len(p.arena)
	p.arena = append(p.arena, line...)
	f, ok := parseFrame(p.arena[start:])
	if !ok {
		p.arena = p.arena[:start]
		if !isContinuation(line) {
			p.syntaxError(line, badStackLine)
			p.sampleBad = true
			return true
		}
		return false
	}
	p.addFrame(f)
	return false
}

// guess returns the ID of the frame that followed the sample's last
// frame last time, when line is that frame's line, else 0.
func (p *lineParser) guess(line []byte) uint32 {
	if int(p.last) >= len(p.next) {
		return 0
	}
	id := p.next[p.last]
	if id == 0 || string(p.tab.entry(id).line()) != string(line) {
		return 0
	}
	return id
}

// follow makes id the sample's last frame, and the guess after the one
// before it.
func (p *lineParser) follow(id uint32) {
	for int(p.last) >= len(p.next) {
		p.next = append(p.next, make([]uint32, max(len(p.next), 1024))...)
	}
	p.next[p.last] = id
	p.last = id
}
