package parse

import "bytes"

// header is the decoded prefix of a sample or side-band line.
type header struct {
	comm     []byte
	pid, tid int
	hasTID   bool // false: a timed header with no pid/tid word (perf script -F without tid)
	// pidRange: the pid or tid has more digits than any (left -1).
	pidRange bool
	cpu      int
	time     int64
	hasTime  bool

	sideband []byte // text after "PERF_RECORD_", nil for samples

	period    uint64
	hasPeriod bool
	event     []byte
	rest      []byte // after "EVENT:", trimmed
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func allDigits(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !isDigit(c) {
			return false
		}
	}
	return true
}

// maxPidDigits is atoi's longest number: no overflow past 2^62.
const maxPidDigits = 18

// atoi parses a non-negative decimal; ok is false on anything else or
// overflow past 2^62.
func atoi(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > maxPidDigits {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if !isDigit(c) {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func atou(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if !isDigit(c) {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, true
}

// parseTime parses "SEC.FRAC:" (the token including its colon) into
// nanoseconds.
func parseTime(tok []byte) (int64, bool) {
	// One pass (a header's costliest word): SEC of at most 18 digits up
	// to 2^33, '.', FRAC of 1 to 9 digits, ':'.
	n := len(tok) - 1
	if n < 3 || tok[n] != ':' {
		return 0, false
	}
	var sec, ns int64
	i := 0
	for ; i < n && tok[i] != '.'; i++ {
		if !isDigit(tok[i]) || i == maxPidDigits {
			return 0, false
		}
		sec = sec*10 + int64(tok[i]-'0')
	}
	frac := n - i - 1 // digits after the dot
	if i == 0 || frac < 1 || frac > 9 || sec > 1<<33 {
		return 0, false
	}
	for i++; i < n; i++ {
		if !isDigit(tok[i]) {
			return 0, false
		}
		ns = ns*10 + int64(tok[i]-'0')
	}
	for ; frac < 9; frac++ {
		ns *= 10
	}
	return sec*1e9 + ns, true
}

// pidNum parses a pid or tid: a non-negative decimal, or -1, which perf
// prints for a thread it no longer knows (an exiting thread's last
// SWITCH_CPU_WIDE OUT: ":-1  6028/-1    [001] ...", "prev pid/tid:  6028/-1").
func pidNum(b []byte) (int, bool) {
	if string(b) == "-1" {
		return -1, true
	}
	return atoi(b)
}

func isCPUTok(tok []byte) bool {
	return len(tok) >= 3 && tok[0] == '[' && tok[len(tok)-1] == ']' && allDigits(tok[1:len(tok)-1])
}

// token is a space-separated word of a line, as offsets.
type token struct{ start, end int }

// nextToken returns the token starting at or after i, or end<0.
func nextToken(line []byte, i int) token {
	for i < len(line) && isSpace(line[i]) {
		i++
	}
	if i >= len(line) {
		return token{-1, -1}
	}
	j := i
	for j < len(line) && !isSpace(line[j]) {
		j++
	}
	return token{i, j}
}

// parseHeader decodes "COMM [PID/]TID [CPU] TIME: ...". COMM may hold
// spaces and digits, so the time token is found first (the first
// "SEC.FRAC:" word preceded by a pid or cpu word) and the fields left of it
// are read from the right. Failing that, a time token preceded by a word
// that is no pid ("COMM [CPU] TIME: ...", perf script -F without tid) is a
// header without tid (hasTID false, pid and tid -1). Without a time token
// (very old perf, or -F without time), the first pid-like word after the
// first word is taken as the tid. What follows is a side-band record's
// "PERF_RECORD_..." or a sample's "[PERIOD] EVENT: [REST]".
func parseHeader(line []byte) (h header, ok bool) {
	after, ok := h.prefix(line)
	return h, ok && h.tail(line[after:])
}

// prefix reads a line's "COMM [PID/]TID [CPU] TIME:" (or a rarer form,
// see parseHeader) into h; after is the offset after it.
func (h *header) prefix(line []byte) (after int, found bool) {
	h.pid, h.tid, h.cpu = -1, -1, -1
	after, found = h.commonPrefix(line)
	if !found {
		after, found = h.timedPrefix(line)
	}
	if !found {
		after, found = h.untimedPrefix(line)
	}
	return after, found
}

// tail reads what follows the prefix into h: a side-band record's
// "PERF_RECORD_..." or a sample's "[PERIOD] EVENT: [REST]".
func (h *header) tail(rest []byte) bool {
	for len(rest) > 0 && isSpace(rest[0]) {
		rest = rest[1:]
	}
	if bytes.HasPrefix(rest, []byte("PERF_RECORD_")) {
		h.sideband = rest[len("PERF_RECORD_"):]
		return true
	}
	return h.sampleTail(rest)
}

// commonPrefix reads the prefix of nearly every line into h: "COMM
// [PID/]TID [CPU] TIME:" with no ':' before the time's, found from that
// ':' back. It is what timedPrefix finds there (its first candidate
// time token, and the words before it as timedPrefix reads them), and
// found is false for any other line, which timedPrefix then reads.
func (h *header) commonPrefix(line []byte) (after int, found bool) {
	c := bytes.IndexByte(line, ':')
	if c < 0 || c+1 < len(line) && !isSpace(line[c+1]) {
		return 0, false // none, or not the end of a word
	}
	s, ns, ok := timeBefore(line, c)
	// At most 60 words before the time: timedPrefix reads 64.
	if !ok || s == 0 || s > 120 {
		return 0, false
	}
	pe := spaceStart(line, s)
	ps := wordStart(line, pe)
	if ps == pe || ps == 0 {
		return 0, false // no word before the time, or no comm
	}
	pw := line[ps:pe]
	if isCPUTok(pw) {
		qe := spaceStart(line, ps)
		qs := wordStart(line, qe)
		if qs == qe || qs == 0 || !h.takePid(line[qs:qe]) {
			return 0, false
		}
		h.cpu, _ = atoi(pw[1 : len(pw)-1])
		ps = qs
	} else if !h.takePid(pw) {
		return 0, false
	}
	h.comm = trimComm(line, ps)
	h.time, h.hasTime = ns, true
	return c + 1, true
}

// timeBefore reads the word that ends at line[c], a ':', as parseTime
// does, from its end: s is where the word starts; ok is false when it
// is no time (or is glued to what precedes it). Each part's digits are
// added up as they are found (one pass, no second over them).
func timeBefore(line []byte, c int) (s int, ns int64, ok bool) {
	dot, ns := digitsBefore(line, c, 9)
	frac := c - dot
	if dot--; dot < 1 || line[dot] != '.' || frac < 1 {
		return 0, 0, false
	}
	s, sec := digitsBefore(line, dot, maxPidDigits)
	if s == dot || s > 0 && !isSpace(line[s-1]) {
		return 0, 0, false
	}
	return s, sec*1e9 + ns*pow10[9-frac], sec <= 1<<33
}

// digitsBefore reads the decimal digits that end at line[end-1], at most
// most of them, back to where they start (start), and their value. A
// longer run leaves a digit at line[start-1], which the caller refuses
// as it refuses any byte but its separator.
func digitsBefore(line []byte, end, most int) (start int, v int64) {
	start, mul := end, int64(1)
	for start > 0 && end-start < most {
		d := line[start-1] - '0'
		if d > 9 {
			break
		}
		v += int64(d) * mul
		mul *= 10
		start--
	}
	return start, v
}

// pow10[k] is 10^k.
var pow10 = [...]int64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9}

// trimComm is bytes.TrimSpace(line[:ps]), where ps > 0 starts a word
// after blanks: without its Unicode decoding when the comm starts and
// ends with an ASCII byte that is no space.
func trimComm(line []byte, ps int) []byte {
	e := spaceStart(line, ps)
	if e > 0 && line[0] > ' ' && line[0] < 0x80 && line[e-1] > ' ' && line[e-1] < 0x80 {
		return line[:e]
	}
	return bytes.TrimSpace(line[:ps])
}

// wordStart is where the word that ends at end (exclusive) starts.
func wordStart(line []byte, end int) int {
	for end > 0 && !isSpace(line[end-1]) {
		end--
	}
	return end
}

// spaceStart is where the blanks that end at end (exclusive) start.
func spaceStart(line []byte, end int) int {
	for end > 0 && isSpace(line[end-1]) {
		end--
	}
	return end
}

// timedPrefix reads a prefix with a time token into h: "COMM [PID/]TID
// [CPU] TIME:", else "COMM [CPU] TIME:" (no tid). after is the offset
// after the time token; found is false when the line has neither.
func (h *header) timedPrefix(line []byte) (after int, found bool) {
	var toks [4]token // the last few tokens before the current one
	n := 0
	// The first time token with no pid before it: COMM ends at
	// noTIDComm, the CPU (if any) is noTIDCPU.
	noTIDAt, noTIDComm, noTIDCPU := -1, 0, token{-1, -1}
	var noTIDTime int64
	for t := nextToken(line, 0); t.end >= 0; t = nextToken(line, t.end) {
		w := line[t.start:t.end]
		if n >= 1 && w[len(w)-1] == ':' && isDigit(w[0]) {
			if ns, ok := parseTime(w); ok {
				prev := toks[(n-1)%4]
				pw := line[prev.start:prev.end]
				if h.miscPrefix(line, &toks, n) {
					h.time, h.hasTime = ns, true
					return t.end, true
				}
				if isCPUTok(pw) && n >= 2 {
					pp := toks[(n-2)%4]
					if (n >= 3 || pp.start > 0) && h.takePid(line[pp.start:pp.end]) {
						h.cpu, _ = atoi(pw[1 : len(pw)-1])
						h.comm = bytes.TrimSpace(line[:pp.start])
						h.time, h.hasTime = ns, true
						return t.end, true
					}
					if noTIDAt < 0 && !isPidTok(line[pp.start:pp.end]) {
						noTIDAt, noTIDComm, noTIDCPU, noTIDTime = t.end, prev.start, prev, ns
					}
				} else if (n >= 2 || prev.start > 0) && h.takePid(pw) {
					h.comm = bytes.TrimSpace(line[:prev.start])
					h.time, h.hasTime = ns, true
					return t.end, true
				} else if noTIDAt < 0 && !isPidTok(pw) && !isCPUTok(pw) {
					noTIDAt, noTIDComm, noTIDTime = t.end, t.start, ns
				}
			}
		}
		toks[n%4] = t
		n++
		if n > 64 {
			break // not a header; no comm has that many words
		}
	}
	if noTIDAt < 0 {
		return 0, false
	}
	h.comm = bytes.TrimSpace(line[:noTIDComm])
	if noTIDCPU.end >= 0 {
		h.cpu, _ = atoi(line[noTIDCPU.start+1 : noTIDCPU.end-1])
	}
	h.time, h.hasTime = noTIDTime, true
	return noTIDAt, true
}

// isMiscTok reports the word perf script -F +misc prints between the
// tid (or cpu) and the time: the record's misc flags as letters (seen
// from perf 7.2: K kernel, U user, S switch out, Sp preempted, E exec),
// blank when it has none. Up to 6 letters are taken for one.
func isMiscTok(tok []byte) bool {
	if len(tok) == 0 || len(tok) > 6 {
		return false
	}
	for _, c := range tok {
		if (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') {
			return false
		}
	}
	return true
}

// miscPrefix reads "COMM [PID/]TID [CPU] MISC" into h, the tokens left
// of a time token that is the n-th: a -F +misc column that is not blank.
// It is false when they are not that.
func (h *header) miscPrefix(line []byte, toks *[4]token, n int) bool {
	if n < 2 || !isMiscTok(line[toks[(n-1)%4].start:toks[(n-1)%4].end]) {
		return false
	}
	cpu, at := token{-1, -1}, n-2 // at: the index of the pid token
	if c := toks[at%4]; isCPUTok(line[c.start:c.end]) {
		cpu, at = c, at-1
	}
	if at < 0 {
		return false
	}
	pid := toks[at%4]
	// A comm is left of the pid, or the pid is right-aligned after spaces.
	if (at == 0 && pid.start == 0) || !h.takePid(line[pid.start:pid.end]) {
		return false
	}
	h.comm = bytes.TrimSpace(line[:pid.start])
	if cpu.end >= 0 {
		h.cpu, _ = atoi(line[cpu.start+1 : cpu.end-1])
	}
	return true
}

// untimedPrefix reads a prefix without a time into h: "COMM TID [CPU]".
// after is the offset after it; found is false when no word after the
// first is a pid.
func (h *header) untimedPrefix(line []byte) (after int, found bool) {
	n := 0
	for t := nextToken(line, 0); t.end >= 0; t = nextToken(line, t.end) {
		w := line[t.start:t.end]
		if n >= 1 && h.takePid(w) {
			h.comm = bytes.TrimSpace(line[:t.start])
			after = t.end
			if c := nextToken(line, after); c.end >= 0 && isCPUTok(line[c.start:c.end]) {
				h.cpu, _ = atoi(line[c.start+1 : c.end-1])
				after = c.end
			}
			return after, true
		}
		n++
		if n > 64 {
			break
		}
	}
	return 0, false
}

// sampleTail reads what follows a sample's prefix (leading spaces
// trimmed) into h: "[PERIOD] EVENT: [REST]". It is false when there is no
// event.
func (h *header) sampleTail(rest []byte) bool {
	// Optional period: a number (at most 19 digits) followed by a space.
	j := 0
	for j < len(rest) && isSpace(rest[j]) {
		j++
	}
	i := j
	var p uint64
	for i < len(rest) && isDigit(rest[i]) {
		p = p*10 + uint64(rest[i]-'0')
		i++
	}
	if i > j && i-j <= 19 && i < len(rest) && isSpace(rest[i]) {
		h.period, h.hasPeriod = p, true
		rest = rest[i:]
		for len(rest) > 0 && isSpace(rest[0]) {
			rest = rest[1:]
		}
	}
	// The event ends at the first ':' followed by a space or the end.
	end := -1
	for from := 0; from < len(rest); {
		c := bytes.IndexByte(rest[from:], ':')
		if c < 0 {
			break
		}
		c += from
		if c+1 == len(rest) || isSpace(rest[c+1]) {
			end = c
			break
		}
		from = c + 1
	}
	if end <= 0 {
		return false
	}
	h.event = rest[:end]
	if bytes.IndexByte(h.event, ' ') >= 0 {
		return false
	}
	h.rest = bytes.TrimSpace(rest[end+1:])
	return true
}

// looksLikeHeader tells a right-aligned header ("    comm  123 1.5: ...")
// from a stack line that starts with spaces.
func looksLikeHeader(line []byte) bool {
	// Without a time token a line like "  1234 5678 foo:" could be either;
	// only a timed header wins over the stack-line reading.
	h, ok := parseHeader(line)
	return ok && (h.hasTime || h.sideband != nil)
}

// parseSideband decodes the text after "PERF_RECORD_".
func parseSideband(rec *Record, s []byte) bool {
	s = trimBlanksRight(s)
	switch {
	case bytes.HasPrefix(s, []byte("SWITCH_CPU_WIDE ")):
		rec.Kind = KindSwitchCPUWide
		s = s[len("SWITCH_CPU_WIDE "):]
		rec.Out = bytes.HasPrefix(s, []byte("OUT"))
		if !rec.Out && !bytes.HasPrefix(s, []byte("IN")) {
			return false
		}
		rec.Preempt = bytes.Contains(s, []byte("preempt"))
		i := bytes.Index(s, []byte("pid/tid:"))
		if i < 0 {
			return false
		}
		w := bytes.TrimSpace(s[i+len("pid/tid:"):])
		j := bytes.IndexByte(w, '/')
		if j < 0 {
			return false
		}
		var ok1, ok2 bool
		rec.PeerPID, ok1 = pidNum(w[:j])
		rec.PeerTID, ok2 = pidNum(bytes.TrimSpace(w[j+1:]))
		return ok1 && ok2
	case bytes.HasPrefix(s, []byte("SWITCH")):
		rec.Kind = KindSwitch
		// Only its start matters: no word looked for ends in a space.
		s = trimSpaceLeft(s[len("SWITCH"):])
		switch {
		case bytes.HasPrefix(s, []byte("OUT")):
			rec.Out = true
			rec.Preempt = bytes.Contains(s, []byte("preempt"))
		case bytes.HasPrefix(s, []byte("IN")):
		default:
			return false
		}
		return true
	case bytes.HasPrefix(s, []byte("FORK(")), bytes.HasPrefix(s, []byte("EXIT(")):
		rec.Kind = KindFork
		if s[0] == 'E' {
			rec.Kind = KindExit
		}
		var ok bool
		rec.SubjectPID, rec.SubjectTID, s, ok = pair(s[len("FORK"):])
		if !ok {
			return false
		}
		s = bytes.TrimPrefix(s, []byte(":"))
		rec.ParentPID, rec.ParentTID, _, ok = pair(s)
		return ok
	case bytes.HasPrefix(s, []byte("COMM")):
		rec.Kind = KindComm
		i := bytes.IndexByte(s, ':')
		if i < 0 {
			return false
		}
		s = bytes.TrimSpace(s[i+1:])
		j := bytes.LastIndexByte(s, ':')
		if j < 0 {
			return false
		}
		rec.NewComm = s[:j]
		w := s[j+1:]
		k := bytes.IndexByte(w, '/')
		if k < 0 {
			return false
		}
		var ok1, ok2 bool
		rec.SubjectPID, ok1 = atoi(w[:k])
		rec.SubjectTID, ok2 = atoi(w[k+1:])
		return ok1 && ok2
	case bytes.HasPrefix(s, []byte("LOST ")) || bytes.Equal(s, []byte("LOST")):
		rec.Kind = KindLost
		// "LOST lost 12" (older: "LOST 12"); take the last number.
		f := bytes.Fields(s)
		for i := len(f) - 1; i >= 1; i-- {
			if n, ok := atou(f[i]); ok {
				rec.Lost = n
				break
			}
		}
		return true
	}
	rec.Kind = KindOther
	return true
}

// pair parses "(A:B)" at the start of s and returns what follows.
func pair(s []byte) (a, b int, rest []byte, ok bool) {
	if len(s) == 0 || s[0] != '(' {
		return 0, 0, nil, false
	}
	end := bytes.IndexByte(s, ')')
	if end < 0 {
		return 0, 0, nil, false
	}
	in := s[1:end]
	c := bytes.IndexByte(in, ':')
	if c < 0 {
		return 0, 0, nil, false
	}
	var ok1, ok2 bool
	a, ok1 = atoi(in[:c])
	b, ok2 = atoi(in[c+1:])
	return a, b, s[end+1:], ok1 && ok2
}

// isRoundLine reports a bare "PERF_RECORD_FINISHED_ROUND" line (perf
// script --show-round-events prints it without the usual prefix).
func isRoundLine(line []byte) bool {
	return string(bytes.TrimSpace(line)) == "PERF_RECORD_FINISHED_ROUND"
}
