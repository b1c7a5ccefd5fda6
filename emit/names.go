package emit

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/wallfold/wallfold/parse"
)

// NameOptions are the frame-naming flags of stackcollapse-perf.pl and
// inferno-collapse-perf.
type NameOptions struct {
	Addrs  bool // "[unknown]" frames get their address: "[dso <addr>]"
	Kernel bool // kernel frames get "_[k]"
	JIT    bool // /tmp/perf-PID.map frames get "_[j]"
}

// FrameNames appends to dst the folded-stack names for one perf frame,
// following inferno-collapse-perf's defaults: offsets are already
// stripped; "[unknown]" with a known DSO becomes "[dso basename]"; ';'
// becomes ':'; argument lists are cut (but not Go's "pkg.(*T).M" nor
// "(anonymous namespace)"); Java's "A->B" inline chains become several
// frames, the inner ones marked "_[i]"; for comm "java", the leading "L" of
// class names goes. Names are appended root first. It returns dst
// unchanged for frames that stackcollapse-perf.pl skips (symbols starting
// with '(').
func FrameNames(dst []string, f *parse.Frame, java bool, o NameOptions) []string {
	sym := f.Sym
	if len(sym) == 0 {
		if len(f.DSO) == 0 {
			sym = []byte("[unknown]")
		} else {
			// inferno (after the perl script) names a frame with a DSO
			// but no symbol " ".
			sym = []byte(" ")
		}
	}
	if sym[0] == '(' {
		return dst
	}
	dso := f.DSO
	n := 0
	for len(sym) > 0 || n == 0 {
		part := sym
		if i := bytes.Index(sym, []byte("->")); i >= 0 {
			part, sym = sym[:i], sym[i+2:]
		} else {
			sym = nil
		}
		name := tidy(part, dso, f.Addr, java, o)
		switch {
		case n > 0:
			if !strings.HasSuffix(name, "_[i]") {
				name += "_[i]"
			}
		case o.Kernel && IsKernelDSO(dso):
			name += "_[k]"
		case o.JIT && isJITDSO(dso):
			if !strings.HasSuffix(name, "_[j]") {
				name += "_[j]"
			}
		}
		dst = append(dst, name)
		n++
	}
	return dst
}

func tidy(fn, dso, addr []byte, java bool, o NameOptions) string {
	if string(fn) == "[unknown]" {
		var base []byte
		if len(dso) > 0 && string(dso) != "[unknown]" {
			base = dso
			if i := bytes.LastIndexByte(base, '/'); i >= 0 {
				base = base[i+1:]
			}
		} else {
			base = []byte("unknown")
		}
		if o.Addrs {
			return "[" + string(base) + " <" + string(addr) + ">]"
		}
		return "[" + string(base) + "]"
	}
	s := string(fn)
	s = fixRustSymbol(s)
	s = strings.ReplaceAll(s, ";", ":")
	s = cutArgs(s)
	if java && len(s) > 0 && s[0] == 'L' && strings.IndexByte(s, '/') >= 0 {
		s = s[1:]
	}
	return s
}

// cutArgs removes a C++ argument list: everything from the first '(' that
// is outside template brackets, unless it is Go's "pkg.(*T).M" or
// "(anonymous namespace)".
func cutArgs(s string) string {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<':
			depth++
		case '>':
			if depth > 0 {
				depth--
			}
		case '(':
			if depth > 0 {
				continue
			}
			if strings.HasPrefix(s[i:], "(anonymous namespace)") {
				i += len("(anonymous namespace)") - 1
				continue
			}
			if i > 0 && s[i-1] == '.' {
				return s // Go method: keep the receiver
			}
			if i == 0 {
				return s
			}
			return s[:i]
		}
	}
	return s
}

// IsKernelDSO reports a kernel frame's DSO as --kernel annotates it:
// [kernel.kallsyms] or any other in brackets but [unknown], a module's
// .ko, vmlinux.
func IsKernelDSO(dso []byte) bool {
	// Byte tests in the order of the cases' frequency: this runs for
	// every frame of every new stack (the short-stack and spin checks).
	n := len(dso)
	switch {
	case n == 0:
		return false
	case dso[0] == '[':
		return string(dso) != "[unknown]"
	case n >= 3 && dso[n-1] == 'o' && dso[n-2] == 'k' && dso[n-3] == '.':
		return true
	}
	i := n - 1
	for i >= 0 && dso[i] != '/' {
		i--
	}
	base := dso[i+1:]
	return len(base) >= 7 && string(base[:7]) == "vmlinux"
}

// isJITDSO matches perf map files (/tmp/perf-PID.map) and jitdump
// objects (/tmp/jitted-PID-N.so), as inferno does.
func isJITDSO(dso []byte) bool {
	if bytes.Contains(dso, []byte("/jitted-")) && bytes.HasSuffix(dso, []byte(".so")) {
		return true
	}
	if !bytes.HasPrefix(dso, []byte("/tmp/perf-")) || !bytes.HasSuffix(dso, []byte(".map")) {
		return false
	}
	mid := dso[len("/tmp/perf-") : len(dso)-len(".map")]
	for _, c := range mid {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(mid) > 0
}

// fixRustSymbol finishes what perf leaves of legacy Rust mangling, as
// inferno does: "foo..bar$LT$T$GT$::h0123456789abcdef" becomes
// "foo::bar<T>". Only symbols ending in the 17-character hash are touched,
// so Java's "Outer$Inner" and C's "f.isra.0" stay as they are.
func fixRustSymbol(s string) string {
	const hashLen = 3 + 16 // "::h" + 16 hex digits
	if len(s) <= hashLen || !strings.HasPrefix(s[len(s)-hashLen:], "::h") {
		return s
	}
	for _, c := range []byte(s[len(s)-16:]) {
		if !isHexLower(c) {
			return s
		}
	}
	rest := s[:len(s)-hashLen]
	var b strings.Builder
	b.Grow(len(rest))
	for len(rest) > 0 {
		switch {
		case strings.HasPrefix(rest, ".."):
			b.WriteString("::")
			rest = rest[2:]
		case rest[0] == '$':
			end := strings.IndexByte(rest[1:], '$')
			if end < 0 {
				b.WriteString(rest)
				rest = ""
				continue
			}
			esc := rest[1 : end+1]
			un, ok := rustEscapes[esc]
			if !ok && len(esc) > 1 && esc[0] == 'u' {
				if r, err := strconv.ParseUint(esc[1:], 16, 32); err == nil {
					un, ok = string(rune(r)), true
				}
			}
			if !ok {
				return s // not Rust after all
			}
			b.WriteString(un)
			rest = rest[end+2:]
		default:
			b.WriteByte(rest[0])
			rest = rest[1:]
		}
	}
	out := b.String()
	if strings.HasPrefix(out, "_<") {
		out = out[1:]
	}
	return out
}

var rustEscapes = map[string]string{
	"SP": "@", "BP": "*", "RF": "&", "LT": "<", "GT": ">", "LP": "(", "RP": ")", "C": ",",
}

func isHexLower(c byte) bool { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') }
