package parse

import (
	"bytes"
	"unicode"
)

// What most header lines take: their pid word read in one pass (pidTok,
// the one reader of pid words), the end of a sample header read by
// comparing it with the last one's, a switch record's blanks trimmed in
// byte loops.

// takePid sets h's pid and tid from w, a "TID" or "PID/TID" word (see
// pidTok); false, h unchanged, when w is no such word.
func (h *header) takePid(w []byte) bool {
	pid, tid, ok, fits := pidTok(w)
	if !ok {
		return false
	}
	h.hasTID = true
	h.pid, h.tid = pid, tid
	if !fits {
		h.pid, h.tid, h.pidRange = -1, -1, true
	}
	return true
}

// isPidTok reports whether tok is "TID" or "PID/TID".
func isPidTok(tok []byte) bool {
	_, _, ok, _ := pidTok(tok)
	return ok
}

// pidTok reads a "TID" or "PID/TID" word (each a pidNum) in one pass:
// ok is false when w is no such word, fits false when a number has more
// digits than atoi takes (the word is then a pid token of no known
// value); pid is -1 for a "TID".
func pidTok(w []byte) (pid, tid int, ok, fits bool) {
	a, i, okA := pidPart(w, 0)
	if i == 0 {
		return 0, 0, false, false
	}
	b, okB := a, okA
	if i < len(w) {
		if w[i] != '/' {
			return 0, 0, false, false
		}
		var j int
		if b, j, okB = pidPart(w, i+1); j == i+1 || j < len(w) {
			return 0, 0, false, false
		}
	} else {
		a = -1 // no pid: the number is the tid
	}
	return a, b, true, okA && okB
}

// pidPart reads a pid or tid (see pidNum) at w[i:], up to a '/' or the
// end: its value, the offset after it (i: none) and false when it has
// too many digits for atoi.
func pidPart(w []byte, i int) (n, end int, ok bool) {
	if i+1 < len(w) && w[i] == '-' && w[i+1] == '1' && (i+2 == len(w) || w[i+2] == '/') {
		return -1, i + 2, true
	}
	j := i
	for j < len(w) && isDigit(w[j]) {
		n = n*10 + int(w[j]-'0')
		j++
	}
	if j < len(w) && w[j] != '/' {
		return 0, i, true // not a number
	}
	return n, j, j-i <= maxPidDigits
}

// sampleEnd is the end of a sample header (after its time) and what tail
// read in it; a trace's sample headers mostly end alike (one event, one
// period: "    1001001 cpu-clock: " in all 48 k of a go build's), so
// that the next one is read by a comparison.
type sampleEnd struct {
	text        []byte
	period      uint64
	hasPeriod   bool
	event, rest [2]int // where they are in text
	ok          bool
}

// read sets h's period, event and rest from end, a header's text after
// its prefix, when it is the text remembered; false when it is not.
func (e *sampleEnd) read(h *header, end []byte) bool {
	if !e.ok || string(end) != string(e.text) {
		return false
	}
	h.period, h.hasPeriod = e.period, e.hasPeriod
	h.event = end[e.event[0]:e.event[1]]
	if e.rest[1] > e.rest[0] {
		h.rest = end[e.rest[0]:e.rest[1]]
	}
	return true
}

// remember keeps end, a sample header's text after its prefix, and what
// tail read in it into h.
func (e *sampleEnd) remember(h *header, end []byte) {
	e.text = append(e.text[:0], end...)
	e.period, e.hasPeriod = h.period, h.hasPeriod
	e.event, e.rest = span32(end, h.event), span32(end, h.rest)
	e.ok = true
}

// span32 returns where sub, a slice of b (or empty), is in it.
func span32(b, sub []byte) [2]int {
	if len(sub) == 0 {
		return [2]int{}
	}
	start := cap(b) - cap(sub) // sub shares b's end of capacity
	return [2]int{start, start + len(sub)}
}

// trimBlanksRight is bytes.TrimRight(s, " \t") in a byte loop: that one
// builds its set of bytes each time, for every switch record (whose line
// perf ends with blanks) the costliest part of reading it.
func trimBlanksRight(s []byte) []byte {
	n := len(s)
	for n > 0 && isSpace(s[n-1]) {
		n--
	}
	return s[:n]
}

// trimSpaceLeft is bytes.TrimLeftFunc(s, unicode.IsSpace), the leading
// half of bytes.TrimSpace: ASCII in a byte loop, from the first byte
// past ASCII on as bytes.TrimSpace does it.
func trimSpaceLeft(s []byte) []byte {
	for i, c := range s {
		switch {
		case c >= 0x80:
			return bytes.TrimLeftFunc(s[i:], unicode.IsSpace)
		case c != ' ' && (c < '\t' || c > '\r'):
			return s[i:]
		}
	}
	return s[len(s):]
}
