package parse

import "bytes"

// stackRun takes the stack lines that follow in the read window, the
// most of a trace's lines, without the general path's checks: a line
// that starts with a tab and does not end blank, whole in the window,
// and in the stretch known to hold no CR is a stack line, as scan and
// nextLine would read it. It stops at any other line, which the general
// path then reads; it returns true when a stack line was bad (the
// current record is then the error).
func (p *lineParser) stackRun() bool {
	if p.src.hasHeld || len(p.src.split) > 0 {
		return false
	}
	for {
		win := p.src.win[p.src.off:]
		i := bytes.IndexByte(win, '\n')
		if i <= 0 || i >= p.src.crFree || win[0] != '\t' || isBlankByte(win[i-1]) {
			return false
		}
		p.src.off += i + 1
		p.src.crFree -= i + 1
		p.lineNo++
		p.long.over = 0
		if p.stackLine(win[:i]) {
			return true
		}
	}
}
