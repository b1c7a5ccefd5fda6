package parse

import (
	"bufio"
	"bytes"
	"testing"

	"github.com/wallfold/wallfold/internal/testtrace"
)

// parseFrameRef is the straightforward parseFrame (generic trims and
// searches) that the byte-loop one must agree with.
func parseFrameRef(line []byte) (f Frame, ok bool) {
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

func sameFrame(a, b Frame) bool {
	return bytes.Equal(a.Addr, b.Addr) && bytes.Equal(a.Sym, b.Sym) && bytes.Equal(a.Off, b.Off) &&
		bytes.Equal(a.DSO, b.DSO) && a.Inlined == b.Inlined
}

func checkFrameLine(t *testing.T, line []byte) {
	t.Helper()
	f, ok := parseFrame(line)
	g, gok := parseFrameRef(line)
	if ok != gok || (ok && !sameFrame(f, g)) {
		t.Fatalf("parseFrame(%q) = %+v, %v; reference %+v, %v", line, f, ok, g, gok)
	}
}

// TestParseFrameMatchesReference compares the fast frame parser with the
// straightforward one on every line of the shipped traces and corpus (and
// on every suffix of a few tricky lines).
func TestParseFrameMatchesReference(t *testing.T) {
	for _, path := range testtrace.Shipped(t, "../testdata") {
		sc := bufio.NewScanner(bytes.NewReader(testtrace.Read(t, path)))
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			checkFrameLine(t, sc.Bytes())
		}
	}
	tricky := []string{
		"\t    561aa58dc06e std::function<int (int, int)>::operator()+0x1f+0x2 (/a (b) (c))  ",
		"\t  7f  x+0x+0x12 (inlined)",
		"\t  7f  x+0x12g (inlined) \t",
		"7fz foo",
		"\t  ab ((x)",
		"\t  ab (x))",
		"\t  ab +0x",
		"\t  ab a+0x1+ (d)",
		"\t  ab ) (",
		"ab(x)",
		" \t ",
	}
	for _, l := range tricky {
		for i := range l {
			checkFrameLine(t, []byte(l[i:]))
			checkFrameLine(t, []byte(l[:i]))
		}
	}
}

func FuzzParseFrame(f *testing.F) {
	f.Add("\t    7f443cc6f090 _start+0x1 (/lib/x86_64-linux-gnu/ld-2.27.so)")
	f.Fuzz(func(t *testing.T, s string) { checkFrameLine(t, []byte(s)) })
}
