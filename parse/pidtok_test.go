package parse

import (
	"regexp"
	"strconv"
	"testing"
)

// TestPidTokAgainstSpec: every header reader takes pid words through
// pidTok; it must say what the grammar written here independently says
// ("-1" or digits, alone or two joined by '/'; a number of more than 18
// digits is a pid word of no known value), on words built from the
// pieces a header can hold.
func TestPidTokAgainstSpec(t *testing.T) {
	spec := regexp.MustCompile(`^(-1|[0-9]+)(?:/(-1|[0-9]+))?$`)
	parts := []string{"", "0", "7", "-1", "-", "-12", "1-", "12345", "x", "[001]",
		"123456789012345678", "1234567890123456789", "/", "//", " "}
	var words []string
	for _, a := range parts {
		for _, b := range parts {
			words = append(words, a+b, a+"/"+b)
			for _, c := range parts {
				words = append(words, a+"/"+b+"/"+c)
			}
		}
	}
	num := func(s string) (int, bool) {
		if s == "-1" {
			return -1, true
		}
		if len(s) > 18 {
			return 0, false
		}
		n, err := strconv.Atoi(s)
		return n, err == nil
	}
	for _, w := range words {
		pid, tid, ok, fits := pidTok([]byte(w))
		m := spec.FindStringSubmatch(w)
		if ok != (m != nil) || isPidTok([]byte(w)) != ok {
			t.Fatalf("%q: pidTok ok %v, isPidTok %v; the grammar says %v", w, ok, isPidTok([]byte(w)), m != nil)
		}
		if !ok {
			continue
		}
		wantPid, wantTid := -1, 0
		okP, okT := true, true
		if m[2] == "" {
			wantTid, okT = num(m[1])
		} else {
			wantPid, okP = num(m[1])
			wantTid, okT = num(m[2])
		}
		if fits != (okP && okT) {
			t.Fatalf("%q: fits %v, want %v", w, fits, okP && okT)
		}
		if fits && (pid != wantPid || tid != wantTid) {
			t.Fatalf("%q: pid %d tid %d, want %d %d", w, pid, tid, wantPid, wantTid)
		}
		var h header
		if !h.takePid([]byte(w)) || !h.hasTID || h.pidRange == fits || fits && (h.pid != wantPid || h.tid != wantTid) ||
			!fits && (h.pid != -1 || h.tid != -1) {
			t.Fatalf("%q: takePid set %+v", w, h)
		}
	}
}
