package parse

import "bytes"

// stackRun takes the stack lines that follow in the read window, the
// most of a trace's lines, without the general path's checks: a line
// that starts with a tab and does not end blank, whole in the window,
// and holds no CR is a stack line, as scan and nextLine would read it.
// It stops at any other line, which the general path then reads; it
// returns true when a stack line was bad (the current record is then
// the error).
func (p *lineParser) stackRun() bool {
	if p.src.hasHeld || len(p.src.split) > 0 {
		return false
	}
	for {
		win := p.src.win[p.src.off:]
		if id, n := p.guessAhead(win); id != 0 {
			// The guessed line, whole: its end found without a search.
			p.took(n)
			if p.tooDeep() {
				return p.stackLine(win[:n], true) // the error
			}
			p.guessed(id)
			continue
		}
		i := bytes.IndexByte(win, '\n')
		if i <= 0 || win[0] != '\t' || isBlankByte(win[i-1]) || bytes.IndexByte(win[:i], '\r') >= 0 {
			return false
		}
		p.took(i)
		// Not the guess: guessAhead takes every line that is, here.
		if p.stackLine(win[:i], false) {
			return true
		}
	}
}

// took moves past a line of n bytes without CR and its '\n' in the
// window, as nextLine would.
func (p *lineParser) took(n int) {
	p.src.off += n + 1
	p.lineNo++
	p.long.over = 0
}

// guessAhead returns the guessed frame's ID (lineParser.guess) and its
// line's length n when win starts with that line and its '\n', and the
// line is one stackRun takes (a tab first, no blank last): what stackRun
// would then find and stackLine guess. The table's lines hold no CR
// (nextLine splits lines at every one), so neither does a line equal to
// one of them.
// Else id is 0. Three in four stack lines of a go build trace
// are guessed right: each costs a comparison and no search for its end.
func (p *lineParser) guessAhead(win []byte) (id uint32, n int) {
	if int(p.last) >= len(p.next) {
		return 0, 0
	}
	if id = p.next[p.last]; id == 0 {
		return 0, 0
	}
	text := p.tab.entry(id).line()
	n = len(text)
	if n == 0 || n >= len(win) || win[n] != '\n' ||
		text[0] != '\t' || isBlankByte(text[n-1]) || string(win[:n]) != string(text) {
		return 0, 0
	}
	return id, n
}
