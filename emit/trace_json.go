package emit

import (
	"encoding/json"
	"strconv"
)

// The trace's events as JSON, appended with strconv into the output's
// buffer: one event per state change makes a map handed to encoding/json
// the dearest part of a run. The bytes are those encoding/json writes for
// the same map (keys sorted, its float and string forms); the rare values
// whose form is not the plain one go to encoding/json itself.

// appendMicros appends ns/1e3 as encoding/json writes
// float64(ns)/1e3: the decimal ns/1e3 itself, trailing zeros cut. A
// decimal of at most 15 significant digits is the only one that short
// within its double's rounding interval (doubles carry 15.9 digits), so
// the shortest form strconv finds is that decimal; larger values
// (1e15 ns, 11.6 days) take strconv's way.
func appendMicros(b []byte, ns int64) []byte {
	const limit = 1e15
	if ns <= -limit || ns >= limit {
		m, _ := json.Marshal(float64(ns) / 1e3) // finite: no error
		return append(b, m...)
	}
	if ns < 0 {
		b = append(b, '-')
		ns = -ns
	}
	b = strconv.AppendInt(b, ns/1000, 10)
	frac := ns % 1000
	if frac == 0 {
		return b
	}
	digits := [3]byte{byte('0' + frac/100), byte('0' + frac/10%10), byte('0' + frac%10)}
	n := 3
	for digits[n-1] == '0' {
		n--
	}
	b = append(b, '.')
	return append(b, digits[:n]...)
}

// jsonPlain: the bytes encoding/json writes as they are (printable
// ASCII but for the quote, the backslash and its HTML escapes).
var jsonPlain = func() (plain [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		plain[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return plain
}()

// appendJSONString appends s quoted as encoding/json writes it.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	b = appendJSONChars(b, s)
	return append(b, '"')
}

// appendJSONChars appends s as encoding/json writes it between the
// quotes (with its HTML escapes); a string with anything but plain
// printable ASCII goes to encoding/json. Its escapes go rune by rune, so
// the parts of a string split at ASCII characters make the whole's form.
func appendJSONChars(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if !jsonPlain[s[i]] {
			m, _ := json.Marshal(s) // a string: no error
			return append(b, m[1:len(m)-1]...)
		}
	}
	return append(b, s...)
}

// A complete event ("X") is appendSliceHead, its name, the keys of its
// track (appendTrackKeys: pid and tid, kept per track), its start, '}'.
// ts and dur are in ns from the trace's first record.
func appendSliceHead(b []byte, cat string, dur int64) []byte {
	b = append(b, `{"cat":`...)
	b = appendJSONString(b, cat)
	b = append(b, `,"dur":`...)
	b = appendMicros(b, dur)
	return append(b, `,"name":`...)
}

// appendTrackKeys appends what follows a slice's name up to its ts.
func appendTrackKeys(b []byte, pid, tid int) []byte {
	b = append(b, `,"ph":"X","pid":`...)
	b = strconv.AppendInt(b, int64(pid), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(tid), 10)
	return append(b, `,"ts":`...)
}

// appendSliceTail appends what follows a slice's name.
func appendSliceTail(b []byte, pid, tid int, ts int64) []byte {
	return append(appendMicros(appendTrackKeys(b, pid, tid), ts), '}')
}

// A counter event ("C") of process pid's parallelism is
// appendCounterHead, appendCounterKeys (kept per process), its ts, '}'.
func appendCounterHead(b []byte, running int) []byte {
	return strconv.AppendInt(append(b, `{"args":{"running":`...), int64(running), 10)
}

func appendCounterKeys(b []byte, pid int) []byte {
	b = append(b, `},"name":"parallelism","ph":"C","pid":`...)
	b = strconv.AppendInt(b, int64(pid), 10)
	return append(b, `,"ts":`...)
}

// appendCounterEvent appends a whole counter event.
func appendCounterEvent(b []byte, pid int, ts int64, running int) []byte {
	b = appendCounterKeys(appendCounterHead(b, running), pid)
	return append(appendMicros(b, ts), '}')
}

// appendNameEvent appends a metadata event ("M", process_name or
// thread_name) naming track tid of process pid.
func appendNameEvent(b []byte, kind string, pid, tid int, name string) []byte {
	b = append(b, `{"args":{"name":`...)
	b = appendJSONString(b, name)
	b = append(b, `},"name":`...)
	b = appendJSONString(b, kind)
	b = append(b, `,"ph":"M","pid":`...)
	b = strconv.AppendInt(b, int64(pid), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(tid), 10)
	return append(b, '}')
}
