package emit

import (
	"io"
	"math/bits"
	"reflect"
	"slices"
	"unsafe"

	"github.com/google/pprof/profile"
)

// encodeProfile writes pr as protobuf (profile.proto) to w, the bytes
// that profile's WriteUncompressed writes: the same fields in the same
// order, strings numbered in the order it meets them, lists of more than
// two numbers packed. It exists for speed: the library sorts and looks up
// every sample's labels anew, where our samples share a few label maps,
// whose encoding encodeProfile keeps; and it writes as it goes (in
// pbChunk pieces) where the library makes the whole message first. Tests
// compare the two byte for byte. Its error is w's first.
func encodeProfile(w io.Writer, pr *profile.Profile) error {
	e := pbEncoder{strs: map[string]int64{}, labels: map[unsafe.Pointer][]byte{}, w: w}
	e.str("")
	b := make([]byte, 0, 2*pbChunk)
	for _, st := range pr.SampleType {
		b = e.valueType(b, 1, st)
	}
	for _, s := range pr.Sample {
		b = e.flush(e.sample(b, s))
	}
	for _, m := range pr.Mapping {
		b = e.flush(e.mapping(b, m))
	}
	for _, l := range pr.Location {
		b = e.flush(e.location(b, l))
	}
	for _, f := range pr.Function {
		b = e.flush(e.function(b, f))
	}
	drop, keep := e.str(pr.DropFrames), e.str(pr.KeepFrames)
	var periodType []byte
	if pt := pr.PeriodType; pt != nil {
		periodType = e.valueType(nil, 11, pt)
	}
	comments := make([]uint64, len(pr.Comments))
	for i, c := range pr.Comments {
		comments[i] = uint64(e.str(c))
	}
	def, doc := e.str(pr.DefaultSampleType), e.str(pr.DocURL)
	for _, s := range e.list {
		b = e.flush(pbBytes(b, 6, s))
	}
	b = pbOpt(b, 7, uint64(drop))
	b = pbOpt(b, 8, uint64(keep))
	b = pbOpt(b, 9, uint64(pr.TimeNanos))
	b = pbOpt(b, 10, uint64(pr.DurationNanos))
	if len(periodType) > 2 { // a type or a unit: more than its tag and length
		b = append(b, periodType...)
	}
	b = pbOpt(b, 12, uint64(pr.Period))
	b = pbNumbers(b, 13, comments)
	b = pbVarintField(b, 14, uint64(def))
	b = pbOpt(b, 15, uint64(doc))
	if e.err == nil {
		_, e.err = w.Write(b)
	}
	return e.err
}

// pbChunk is how much encoded profile is kept before it is written (a
// variable: tests write in small pieces).
var pbChunk = 256 << 10

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

// pbEncoder numbers strings, and keeps each label map's encoding.
type pbEncoder struct {
	strs   map[string]int64
	list   []string
	labels map[unsafe.Pointer][]byte
	w      io.Writer
	err    error
	scr    []byte   // a message's fields, before its tag and length
	nums   []uint64 // a packed list's numbers
	keys   []string
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

func (e *pbEncoder) valueType(b []byte, tag int, vt *profile.ValueType) []byte {
	m := pbOpt(nil, 1, uint64(e.str(vt.Type)))
	m = pbOpt(m, 2, uint64(e.str(vt.Unit)))
	return pbBytes(b, tag, m)
}

func (e *pbEncoder) sample(b []byte, s *profile.Sample) []byte {
	nums := e.nums[:0]
	for _, loc := range s.Location {
		nums = append(nums, loc.ID)
	}
	m := pbNumbers(e.scr[:0], 1, nums)
	nums = nums[:0]
	for _, v := range s.Value {
		nums = append(nums, uint64(v))
	}
	m = pbNumbers(m, 2, nums)
	e.nums = nums
	m = append(m, e.sampleLabels(s)...)
	e.scr = m
	return pbBytes(b, 2, m)
}

// sampleLabels is the encoding of a sample's labels, string ones by key
// then numeric ones by key; kept per label map when the sample has only
// string labels.
func (e *pbEncoder) sampleLabels(s *profile.Sample) []byte {
	if len(s.NumLabel) > 0 || len(s.NumUnit) > 0 {
		return e.encodeLabels(nil, s)
	}
	if len(s.Label) == 0 {
		return nil
	}
	id := reflect.ValueOf(s.Label).UnsafePointer()
	enc, ok := e.labels[id]
	if !ok {
		enc = e.encodeLabels(nil, s)
		e.labels[id] = enc
	}
	return enc
}

func (e *pbEncoder) encodeLabels(b []byte, s *profile.Sample) []byte {
	keys := e.keys[:0]
	for k := range s.Label {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, v := range s.Label[k] {
			b = e.label(b, e.str(k), e.str(v), 0, 0)
		}
	}
	keys = keys[:0]
	for k := range s.NumLabel {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		kx, units := e.str(k), s.NumUnit[k]
		for i, v := range s.NumLabel[k] {
			var unit int64
			if len(units) != 0 {
				unit = e.str(units[i])
			}
			b = e.label(b, kx, 0, v, unit)
		}
	}
	e.keys = keys
	return b
}

func (e *pbEncoder) label(b []byte, key, str, num, unit int64) []byte {
	var m [4 * 11]byte
	l := pbOpt(m[:0], 1, uint64(key))
	l = pbOpt(l, 2, uint64(str))
	l = pbOpt(l, 3, uint64(num))
	l = pbOpt(l, 4, uint64(unit))
	return pbBytes(b, 3, l)
}

func (e *pbEncoder) mapping(b []byte, mp *profile.Mapping) []byte {
	m := pbOpt(e.scr[:0], 1, mp.ID)
	m = pbOpt(m, 2, mp.Start)
	m = pbOpt(m, 3, mp.Limit)
	m = pbOpt(m, 4, mp.Offset)
	m = pbOpt(m, 5, uint64(e.str(mp.File)))
	m = pbOpt(m, 6, uint64(e.str(mp.BuildID)))
	m = pbBool(m, 7, mp.HasFunctions)
	m = pbBool(m, 8, mp.HasFilenames)
	m = pbBool(m, 9, mp.HasLineNumbers)
	m = pbBool(m, 10, mp.HasInlineFrames)
	e.scr = m
	return pbBytes(b, 3, m)
}

func (e *pbEncoder) location(b []byte, l *profile.Location) []byte {
	m := pbOpt(e.scr[:0], 1, l.ID)
	if l.Mapping != nil {
		m = pbOpt(m, 2, l.Mapping.ID)
	}
	m = pbOpt(m, 3, l.Address)
	for i := range l.Line {
		ln := &l.Line[i]
		var lb [3 * 11]byte
		x := lb[:0]
		if ln.Function != nil {
			x = pbOpt(x, 1, ln.Function.ID)
		}
		x = pbOpt(x, 2, uint64(ln.Line))
		x = pbOpt(x, 3, uint64(ln.Column))
		m = pbBytes(m, 4, x)
	}
	m = pbBool(m, 5, l.IsFolded)
	e.scr = m
	return pbBytes(b, 4, m)
}

func (e *pbEncoder) function(b []byte, f *profile.Function) []byte {
	m := pbOpt(e.scr[:0], 1, f.ID)
	m = pbOpt(m, 2, uint64(e.str(f.Name)))
	m = pbOpt(m, 3, uint64(e.str(f.SystemName)))
	m = pbOpt(m, 4, uint64(e.str(f.Filename)))
	m = pbOpt(m, 5, uint64(f.StartLine))
	e.scr = m
	return pbBytes(b, 5, m)
}

// The protobuf wire format: varints, and length-delimited fields.

func pbVarint(b []byte, x uint64) []byte {
	for x >= 0x80 {
		b = append(b, byte(x)|0x80)
		x >>= 7
	}
	return append(b, byte(x))
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
