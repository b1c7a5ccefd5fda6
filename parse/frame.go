package parse

import "bytes"

// parseFrame decodes "ADDR [SYM[+0xOFF]] [(DSO)]" (leading whitespace
// allowed). SYM may contain spaces and parentheses; the DSO is the
// parenthesised group that ends the line, matched from the right so that
// "(/tmp/x (deleted))" and "([JIT app cache])" stay whole.
func parseFrame(line []byte) (f Frame, ok bool) {
	// Byte loops only: this runs for every stack line (generic trims with
	// a cutset and substring searches cost more than the rest of it).
	i := 0
	for i < len(line) && isSpace(line[i]) {
		i++
	}
	j := i
	for j < len(line) && !isSpace(line[j]) {
		if !isHex(line[j]) {
			return f, false
		}
		j++
	}
	if j == i {
		return f, false
	}
	f.Addr = line[i:j]
	rest := line[j:]
	n := len(rest)
	for n > 0 && isSpace(rest[n-1]) {
		n--
	}
	rest = rest[:n]
	// Keep one leading space: the DSO group must be preceded by one.
	if n > 0 && rest[n-1] == ')' {
		depth := 0
		k := n - 1
		for ; k >= 0; k-- {
			c := rest[k]
			if c == ')' {
				depth++
			} else if c == '(' {
				depth--
				if depth == 0 {
					break
				}
			}
		}
		if k > 0 && isSpace(rest[k-1]) {
			f.DSO = rest[k+1 : n-1]
			rest = rest[:k]
			if len(f.DSO) == 7 && string(f.DSO) == "inlined" {
				f.Inlined = true
			}
		}
	}
	a, b := 0, len(rest)
	for a < b && isSpace(rest[a]) {
		a++
	}
	for b > a && isSpace(rest[b-1]) {
		b--
	}
	sym := rest[a:b]
	// Strip a "+0x1f" offset: the last "+0x" when only hex digits (at
	// least one) follow it.
	for end := len(sym); ; {
		p := bytes.LastIndexByte(sym[:end], '+')
		if p < 0 {
			break
		}
		if p+3 > len(sym) || sym[p+1] != '0' || sym[p+2] != 'x' {
			end = p
			continue
		}
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
		break
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
