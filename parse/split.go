package parse

import (
	"bufio"
	"bytes"
	"io"
)

// A file is parsed in chunks (parallel.go), each by a parser that starts
// afresh. A chunk may begin only at a line where the sequential parser
// is in no sample and holds no line, whatever came before: then the
// chunk's parser, starting there, reads what the sequential one reads.
// Two kinds of line start qualify:
//   - after a blank line (a blank line ends any sample);
//   - before a line that would end a sample and be read as a header:
//     not blank, not a comment (which a sample lets through), not a stack
//     line (indented, unless a right-aligned header) and not a perf 3.2
//     stack line printed without its indent.
//
// Lines with a bare CR (old Mac line ends: the parser splits them) and
// lines longer than the finder's buffer never qualify.

// boundaryBuf is the finder's read buffer: a longer line is no boundary.
const boundaryBuf = 4 << 10

// findBoundary returns the first line start q with from < q < to
// (q < size) where a chunk may begin, if any. Only lines that start
// after from count: the line under from is not seen whole. The answer
// depends on from and to alone, so that the parsers of two neighbouring
// chunks agree on where one ends and the next begins.
// With anyLine, every line start counts (for passes that read lines
// one by one, as ScanTaskIDs).
func findBoundary(src io.ReaderAt, br *bufio.Reader, from, to, size int64, anyLine bool) (int64, bool) {
	br.Reset(io.NewSectionReader(src, from, size-from))
	pos := from
	first, prevBlank := true, false
	for pos < to && pos < size {
		line, err := br.ReadSlice('\n')
		start := pos
		pos += int64(len(line))
		if err == bufio.ErrBufferFull {
			// A long line: read to its end, but not past to (a line of
			// GBs would be read again for every stretch in it).
			for err == bufio.ErrBufferFull && pos < to {
				line, err = br.ReadSlice('\n')
				pos += int64(len(line))
			}
			first, prevBlank = false, false
			continue
		}
		if !first && start < to && (anyLine || startsChunk(line, prevBlank)) {
			return start, true
		}
		if err != nil {
			return 0, false
		}
		// The first line is a tail: blank or not, its start is unseen.
		prevBlank = !first && isPlainBlank(line)
		first = false
	}
	return 0, false
}

// trimEnd returns line without its line end ("\n" or "\r\n"), and
// whether it has no other CR.
func trimEnd(line []byte) ([]byte, bool) {
	line = bytes.TrimSuffix(line, []byte{'\n'})
	line = bytes.TrimSuffix(line, []byte{'\r'})
	return line, bytes.IndexByte(line, '\r') < 0
}

// isPlainBlank reports a blank line without a bare CR.
func isPlainBlank(line []byte) bool {
	l, ok := trimEnd(line)
	return ok && isBlank(l)
}

// startsChunk reports whether a chunk may begin with line, which follows
// a blank line when prevBlank.
func startsChunk(line []byte, prevBlank bool) bool {
	l, ok := trimEnd(line)
	switch {
	case !ok:
		return false
	case prevBlank:
		return true
	case len(l) == 0 || isBlank(l) || l[0] == '#' || l[0] == '\t':
		return false
	case l[0] == ' ':
		return looksLikeHeader(l)
	}
	return !isBareFrame(l)
}

// chunkBounds returns where chunk k of a file of size bytes cut into
// chunks of about chunk bytes begins and ends: [start, end), empty when
// no chunk may begin in its stretch (its text then belongs to the chunk
// before).
func chunkBounds(src io.ReaderAt, br *bufio.Reader, size, chunk int64, k int, anyLine bool) (start, end int64) {
	if k > 0 {
		var ok bool
		if start, ok = findBoundary(src, br, int64(k)*chunk, int64(k+1)*chunk, size, anyLine); !ok {
			return 0, 0
		}
	}
	for j := int64(k + 1); j*chunk < size; j++ {
		if end, ok := findBoundary(src, br, j*chunk, (j+1)*chunk, size, anyLine); ok {
			return start, end
		}
	}
	return start, size
}
