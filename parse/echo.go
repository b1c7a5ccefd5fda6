package parse

import "bytes"

// perf 7's inline expansion (on by default in perf script) looks up the
// inlined functions at each callchain address; where the debug info names
// a function inlined into itself (glibc's syscall wrappers:
// __GI___libc_write, __GI___pthread_disable_asynccancel), perf prints the
// function's own frame again, same address, DSO and all. The same
// perf.data scripted by perf 6.1, or by perf 7 with --no-inline, has the
// frame once. Measured on perf 7.2 text: every such copy was of the
// sample's first user-space frame (the leaf, or the frame after the
// kernel's), and was followed by another function.
//
// Real recursion prints the same address twice in a row too (a function
// that calls itself from one call site: "recurse+0x10" three times), so
// only that first user frame is looked at, and only when the frame after
// the pair is another function: a recursive function caught at the
// return address of its own call has its caller (itself) after the pair.

// dropInlineEcho removes the copy perf 7 prints of a sample's first
// user-space frame (see above) from s.refs, in place; it returns what is
// left. The frames are leaf first; only those up to the copy are read.
func (s *frameRefs) dropInlineEcho() []uint32 {
	refs := s.refs
	u := 0
	for u < len(refs) && s.kernel(u) {
		u++
	}
	// perf prints an address's inlined functions before it: the frame
	// itself is the last of them.
	for u+1 < len(refs) && s.inlined(u) && bytes.Equal(s.addr(u), s.addr(u+1)) {
		u++
	}
	// A copy is printed alike, at the same address: most frames are
	// told from the next by it, without being made.
	if u+1 >= len(refs) || s.inlined(u) || !bytes.Equal(s.addr(u), s.addr(u+1)) {
		return refs
	}
	var f, next Frame
	s.frame(u, &f)
	s.frame(u+1, &next)
	if !printedAlike(&f, &next) {
		return refs
	}
	if len(f.Sym) == 0 || string(f.Sym) == "[unknown]" {
		return refs // no symbol: nothing for inline expansion to find
	}
	if u+2 < len(refs) {
		if s.frame(u+2, &next); bytes.Equal(next.Sym, f.Sym) {
			return refs // recursion
		}
	}
	copy(refs[u+1:], refs[u+2:])
	return refs[:len(refs)-1]
}

// isKernelAddr reports an address in the upper half of a 64-bit space,
// where Linux maps its kernel (x86-64, arm64): perf prints it in full, 16
// hex digits.
func isKernelAddr(addr []byte) bool {
	if len(addr) != 16 {
		return false
	}
	c := addr[0] | 0x20 // lower case
	return (c >= '8' && c <= '9') || (c >= 'a' && c <= 'f')
}

// printedAlike reports two frames printed alike: one table entry, or the
// same fields.
func printedAlike(a, b *Frame) bool {
	if a.ID != 0 && a.ID == b.ID {
		return true
	}
	return a.Inlined == b.Inlined && bytes.Equal(a.Addr, b.Addr) && bytes.Equal(a.Sym, b.Sym) &&
		bytes.Equal(a.Off, b.Off) && bytes.Equal(a.DSO, b.DSO)
}
