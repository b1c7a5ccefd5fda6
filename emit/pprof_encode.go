package emit

import (
	"io"
	"math/bits"
)

// pbEncoder writes a profile's protobuf (profile.proto) as it is made,
// in pbChunk pieces, numbering its strings in the order they are met,
// as the pprof library's encoder does. Its error is w's first.
type pbEncoder struct {
	strs map[string]int64
	list []string
	w    io.Writer
	err  error
	scr  []byte // a message's fields, before its tag and length
}

// pbChunk is how much encoded profile is kept before it is written (a
// variable: tests write in small pieces). The compressor takes it in
// pieces of 64 KB whatever the writes: more is memory for nothing.
var pbChunk = 64 << 10

// flush writes b once it holds pbChunk bytes, and returns what is left
// to append to (nothing more is written after an error).
func (e *pbEncoder) flush(b []byte) []byte {
	if len(b) < pbChunk {
		return b
	}
	if e.err == nil {
		_, e.err = e.w.Write(b)
	}
	return b[:0]
}

func (e *pbEncoder) str(s string) int64 {
	if i, ok := e.strs[s]; ok {
		return i
	}
	i := int64(len(e.list))
	e.strs[s] = i
	e.list = append(e.list, s)
	return i
}

func (e *pbEncoder) valueType(b []byte, tag int, typ, unit string) []byte {
	var mb [2 * 11]byte
	m := pbOpt(mb[:0], 1, uint64(e.str(typ)))
	m = pbOpt(m, 2, uint64(e.str(unit)))
	return pbBytes(b, tag, m)
}

// label appends a string label (a sample's field 3).
func (e *pbEncoder) label(b []byte, key, value string) []byte {
	return pbLabel(b, e.str(key), e.str(value), 0, 0)
}

// pbLabel appends a label: a key and a string or a number with a unit
// (string indices).
func pbLabel(b []byte, key, str, num, unit int64) []byte {
	var m [4 * 11]byte
	l := pbOpt(m[:0], 1, uint64(key))
	l = pbOpt(l, 2, uint64(str))
	l = pbOpt(l, 3, uint64(num))
	l = pbOpt(l, 4, uint64(unit))
	return pbBytes(b, 3, l)
}

// profileTail is what a profile's message ends with, after its
// functions.
type profileTail struct {
	time, duration, period int64
	periodType             *[2]string // type and unit; nil: none
	comments               []string
	defaultType            string
	drop, keep, doc        string
}

// finish appends the profile's last fields to b (the string table, the
// times, period and comments) and writes the rest; its error is the
// first there was.
func (e *pbEncoder) finish(b []byte, t profileTail) error {
	drop, keep := e.str(t.drop), e.str(t.keep)
	var periodType []byte
	if pt := t.periodType; pt != nil {
		periodType = e.valueType(nil, 11, pt[0], pt[1])
	}
	comments := make([]uint64, len(t.comments))
	for i, c := range t.comments {
		comments[i] = uint64(e.str(c))
	}
	def, doc := e.str(t.defaultType), e.str(t.doc)
	for _, s := range e.list {
		b = e.flush(pbBytes(b, 6, s))
	}
	b = pbOpt(b, 7, uint64(drop))
	b = pbOpt(b, 8, uint64(keep))
	b = pbOpt(b, 9, uint64(t.time))
	b = pbOpt(b, 10, uint64(t.duration))
	if len(periodType) > 2 { // a type or a unit: more than its tag and length
		b = append(b, periodType...)
	}
	b = pbOpt(b, 12, uint64(t.period))
	b = pbNumbers(b, 13, comments)
	b = pbVarintField(b, 14, uint64(def))
	b = pbOpt(b, 15, uint64(doc))
	if e.err == nil {
		_, e.err = e.w.Write(b)
	}
	return e.err
}

// The protobuf wire format: varints, and length-delimited fields.

func pbVarint(b []byte, x uint64) []byte {
	for x >= 0x80 {
		b = append(b, byte(x)|0x80)
		x >>= 7
	}
	return append(b, byte(x))
}

// pbVarintShort is pbVarint for a number of at most three bytes (a
// location's number), each length appended at once, and the rest.
func pbVarintShort(b []byte, x uint32) []byte {
	switch {
	case x < 1<<7:
		return append(b, byte(x))
	case x < 1<<14:
		return append(b, byte(x)|0x80, byte(x>>7))
	case x < 1<<21:
		return append(b, byte(x)|0x80, byte(x>>7)|0x80, byte(x>>14))
	}
	return pbVarint(b, uint64(x))
}

func pbVarintLen(x uint64) int { return (bits.Len64(x|1) + 6) / 7 }

// pbVarintField is a varint field, written even when 0.
func pbVarintField(b []byte, tag int, x uint64) []byte {
	return pbVarint(pbVarint(b, uint64(tag)<<3), x)
}

// pbOpt is a varint field left out when 0.
func pbOpt(b []byte, tag int, x uint64) []byte {
	if x == 0 {
		return b
	}
	return pbVarintField(b, tag, x)
}

func pbBool(b []byte, tag int, x bool) []byte {
	if !x {
		return b
	}
	return pbVarintField(b, tag, 1)
}

// pbBytes is a length-delimited field: a string or a message.
func pbBytes[T []byte | string](b []byte, tag int, m T) []byte {
	b = pbVarint(pbVarint(b, uint64(tag)<<3|2), uint64(len(m)))
	return append(b, m...)
}

// pbNumbers is a repeated varint field: packed when it has more than two
// numbers, else one field each.
func pbNumbers(b []byte, tag int, xs []uint64) []byte {
	if len(xs) <= 2 {
		for _, x := range xs {
			b = pbVarintField(b, tag, x)
		}
		return b
	}
	n := 0
	for _, x := range xs {
		n += pbVarintLen(x)
	}
	b = pbVarint(pbVarint(b, uint64(tag)<<3|2), uint64(n))
	for _, x := range xs {
		b = pbVarint(b, x)
	}
	return b
}
