package emit

import (
	"io"
	"reflect"
	"slices"
	"unsafe"

	"github.com/google/pprof/profile"
)

// encodeProfile writes pr (a profile made with the library's types:
// wallfold diff's) as protobuf to w, the bytes that profile's
// WriteUncompressed writes: the same fields in the same order, strings
// numbered in the order it meets them, lists of more than two numbers
// packed. It exists for speed and memory: the library sorts and looks up
// every sample's labels anew, where samples that share a label map share
// its encoding here; and it makes the whole message before writing, where
// encodeProfile writes as it goes (in pbChunk pieces). Tests compare the
// two byte for byte. Its error is w's first.
func encodeProfile(w io.Writer, pr *profile.Profile) error {
	e := profileEncoder{pbEncoder: pbEncoder{strs: map[string]int64{}, w: w}, labels: map[unsafe.Pointer][]byte{}}
	e.str("")
	b := make([]byte, 0, 2*pbChunk)
	for _, st := range pr.SampleType {
		b = e.valueType(b, 1, st.Type, st.Unit)
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
	t := profileTail{time: pr.TimeNanos, duration: pr.DurationNanos, period: pr.Period, comments: pr.Comments,
		defaultType: pr.DefaultSampleType, drop: pr.DropFrames, keep: pr.KeepFrames, doc: pr.DocURL}
	if pt := pr.PeriodType; pt != nil {
		t.periodType = &[2]string{pt.Type, pt.Unit}
	}
	return e.finish(b, t)
}

// profileEncoder is a pbEncoder that keeps each label map's encoding.
type profileEncoder struct {
	pbEncoder
	labels map[unsafe.Pointer][]byte
	nums   []uint64 // a packed list's numbers
	keys   []string
}

func (e *profileEncoder) sample(b []byte, s *profile.Sample) []byte {
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
func (e *profileEncoder) sampleLabels(s *profile.Sample) []byte {
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

func (e *profileEncoder) encodeLabels(b []byte, s *profile.Sample) []byte {
	keys := e.keys[:0]
	for k := range s.Label {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, v := range s.Label[k] {
			b = e.label(b, k, v)
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
			b = pbLabel(b, kx, 0, v, unit)
		}
	}
	e.keys = keys
	return b
}

func (e *profileEncoder) mapping(b []byte, mp *profile.Mapping) []byte {
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

func (e *profileEncoder) location(b []byte, l *profile.Location) []byte {
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

func (e *profileEncoder) function(b []byte, f *profile.Function) []byte {
	m := pbOpt(e.scr[:0], 1, f.ID)
	m = pbOpt(m, 2, uint64(e.str(f.Name)))
	m = pbOpt(m, 3, uint64(e.str(f.SystemName)))
	m = pbOpt(m, 4, uint64(e.str(f.Filename)))
	m = pbOpt(m, 5, uint64(f.StartLine))
	e.scr = m
	return pbBytes(b, 5, m)
}
