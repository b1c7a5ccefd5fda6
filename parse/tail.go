package parse

import (
	"bytes"
	"io"
)

// LastTime returns the latest timestamp among the last lines of a
// seekable input, so that a time window in percent of the trace can be
// applied while streaming. It reads at most the last 4 MiB.
func LastTime(r io.ReaderAt, size int64) (int64, bool) {
	const chunk = 4 << 20
	off := size - chunk
	if off < 0 {
		off = 0
	}
	buf := make([]byte, size-off)
	n, err := r.ReadAt(buf, off)
	if err != nil && err != io.EOF {
		return 0, false
	}
	buf = buf[:n]
	var last int64
	found := false
	for len(buf) > 0 {
		i := bytes.IndexByte(buf, '\n')
		line := buf
		if i >= 0 {
			line, buf = buf[:i], buf[i+1:]
		} else {
			buf = nil
		}
		if len(line) == 0 || line[0] == '\t' || line[0] == '#' {
			continue
		}
		if h, ok := parseHeader(bytes.TrimRight(line, "\r")); ok && h.hasTime && h.time >= last {
			last, found = h.time, true
		}
	}
	return last, found
}
