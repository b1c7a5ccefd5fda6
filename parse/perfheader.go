package parse

import (
	"bytes"
	"strconv"
	"strings"
	"time"
)

// PerfHeader is what the header of `perf script --header` says of when
// the trace was recorded. perf's timestamps count from boot; these lines
// tie them to the calendar.
type PerfHeader struct {
	// CapturedOn is "# captured on": the perf.data file's modification
	// time (when the recording ended), in whole seconds, printed in the
	// local time zone of perf script. Zero when absent.
	CapturedOn time.Time
	// FirstSample and LastSample are "# time of first/last sample" in
	// nanoseconds of perf's clock; 0 when absent.
	FirstSample, LastSample int64
}

var timeHeaders = [...]string{"# captured on", "# time of first sample", "# time of last sample"}

// isTimeHeader reports a header line PerfHeader uses.
func isTimeHeader(line []byte) bool {
	for _, h := range timeHeaders {
		if bytes.HasPrefix(line, []byte(h)) {
			return true
		}
	}
	return false
}

// Add takes a KindHeader record into h; it reports whether the line said
// something h could use.
func (h *PerfHeader) Add(rec *Record) bool {
	line := bytes.TrimRight(rec.Payload, "\r\n")
	colon := bytes.IndexByte(line, ':')
	if rec.Kind != KindHeader || colon < 0 {
		return false
	}
	key := string(bytes.TrimSpace(line[1:colon]))
	val := string(bytes.TrimSpace(line[colon+1:]))
	switch key {
	case "captured on":
		// ctime(3): "Thu Dec  3 06:24:41 2026"
		t, err := time.ParseInLocation(time.ANSIC, val, time.Local)
		if err != nil {
			return false
		}
		h.CapturedOn = t
	case "time of first sample", "time of last sample":
		ns, ok := parseSeconds(val)
		if !ok {
			return false
		}
		if key == "time of first sample" {
			h.FirstSample = ns
		} else {
			h.LastSample = ns
		}
	default:
		return false
	}
	return true
}

// parseSeconds reads "897.161359" as nanoseconds.
func parseSeconds(s string) (int64, bool) {
	sec, frac, _ := strings.Cut(s, ".")
	n, err := strconv.ParseInt(sec, 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	ns := int64(0)
	for i := 0; i < 9; i++ {
		ns *= 10
		if i < len(frac) {
			c := frac[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			ns += int64(c - '0')
		}
	}
	return n*1e9 + ns, true
}
