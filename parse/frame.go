package parse

import "bytes"

// parseFrame decodes "ADDR [SYM[+0xOFF]] [(DSO)]" (leading whitespace
// allowed). SYM may contain spaces and parentheses; the DSO is the
// parenthesised group that ends the line, matched from the right so that
// "(/tmp/x (deleted))" and "([JIT app cache])" stay whole.
func parseFrame(line []byte) (f Frame, ok bool) {
	i := 0
	for i < len(line) && isSpace(line[i]) {
		i++
	}
	j := i
	for j < len(line) && !isSpace(line[j]) {
		j++
	}
	addr := line[i:j]
	if len(addr) == 0 {
		return f, false
	}
	for _, c := range addr {
		if !isHex(c) {
			return f, false
		}
	}
	f.Addr = addr
	rest := bytes.TrimRight(line[j:], " \t")
	// Keep one leading space: the DSO group must be preceded by one.
	if n := len(rest); n > 0 && rest[n-1] == ')' {
		depth := 0
		k := n - 1
		for ; k >= 0; k-- {
			switch rest[k] {
			case ')':
				depth++
			case '(':
				depth--
			}
			if depth == 0 {
				break
			}
		}
		if k > 0 && isSpace(rest[k-1]) {
			f.DSO = rest[k+1 : n-1]
			rest = rest[:k]
			if string(f.DSO) == "inlined" {
				f.Inlined = true
			}
		}
	}
	sym := bytes.TrimLeft(rest, " \t")
	sym = bytes.TrimRight(sym, " \t")
	// Strip "+0x1f" offsets.
	if p := bytes.LastIndex(sym, []byte("+0x")); p >= 0 {
		off := sym[p+3:]
		hex := len(off) > 0
		for _, c := range off {
			if !isHex(c) {
				hex = false
				break
			}
		}
		if hex {
			f.Off = sym[p+1:]
			sym = sym[:p]
		}
	}
	f.Sym = sym
	return f, true
}

// isContinuation reports lines that perf prints under a frame and that
// carry no frame: srcline ("  file.c:12"), "ABI:" registers, "BPF output:",
// brstack entries ("0x4005d6/0x4005e0/P/-/-/0").
func isContinuation(line []byte) bool {
	t := bytes.TrimSpace(line)
	return bytes.IndexByte(t, ':') >= 0 || bytes.IndexByte(t, '/') >= 0
}
