package emit

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"io"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/wallfold/wallfold/internal/testtrace"
	"github.com/wallfold/wallfold/parse"
)

// ourBytes is pr as encodeProfile writes it.
func ourBytes(t testing.TB, pr *profile.Profile) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := encodeProfile(&b, pr); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// libraryBytes is pr as the pprof library encodes it, uncompressed.
func libraryBytes(t testing.TB, pr *profile.Profile) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := pr.WriteUncompressed(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// gunzipped is what enc writes, un-gzipped.
func gunzipped(t testing.TB, enc func(io.Writer) error) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := enc(&b); err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(&b)
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// tracedProfile is a profile of every sample of data with every label,
// and off-CPU time with states and wakers at every seventh stack.
func tracedProfile(data []byte, windows int32) *Profile {
	p := NewProfile(NameOptions{}, Labels{Comm: true, Parallelism: true, State: true, PID: true, TID: true, Waker: true})
	r := parse.NewReader(bytes.NewReader(data), "f")
	for r.Scan() {
		x := r.Record()
		if x.Kind != parse.KindSample {
			continue
		}
		st := p.Stack(x.Stack, string(x.Comm) == "java")
		par, win := 1+x.Line%3, int32(x.Line)%windows
		p.Add(win, st, p.Comm(x.Comm), x.PID, x.TID, par, x.Period, float64(x.Period)/float64(par))
		if x.Line%7 == 0 {
			state := []string{"blocked", "runnable"}[x.Line%2]
			waker := []string{"", "make", "interrupt"}[x.Line%3]
			p.AddOffWoken(win, p.WithLeaf(st, "["+state+"]"), p.Comm(x.Comm), x.PID, x.TID, state, waker, 1234.5)
		}
	}
	return p
}

// TestPprofWriteAsLibrary: WriteEach writes byte for byte what the
// pprof library writes of the profiles the reference builder makes with
// its types, for the profiles of every shipped trace and corpus file
// (merged and in windows; written whole and in pieces), and for no
// sample at all.
func TestPprofWriteAsLibrary(t *testing.T) {
	meta := func(int32) Meta {
		return Meta{Event: "cpu-clock", TimeBased: true, Period: 1001, TimeNanos: 17e17, DurationNanos: 5e9,
			Comments: []string{"a", "b", "a"}}
	}
	defer func(chunk int) { pbChunk = chunk }(pbChunk)
	compare := func(name string, fill func() *Profile, merged bool) {
		var want [][]byte
		err := fill().refBuildEach(meta, merged, func(_ int32, pr *profile.Profile) error {
			want = append(want, libraryBytes(t, pr))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		err = fill().WriteEach(meta, merged, func(win int32, enc func(io.Writer) error) error {
			if got := gunzipped(t, enc); n >= len(want) || !bytes.Equal(got, want[n]) {
				t.Errorf("%s (merged %v, window %d, profile %d of %d): %d bytes differ from the library's", name, merged, win, n, len(want), len(got))
			}
			n++
			return nil
		})
		if err != nil || n != len(want) {
			t.Errorf("%s (merged %v): %d profiles, the reference's %d; error %v", name, merged, n, len(want), err)
		}
	}
	for i, path := range testtrace.Shipped(t, "../testdata") {
		data := testtrace.Read(t, path)
		pbChunk = []int{256 << 10, 100, 1}[i%3] // written whole, and in pieces
		for _, merged := range []bool{true, false} {
			compare(path, func() *Profile { return tracedProfile(data, 3) }, merged)
		}
	}
	compare("no sample", func() *Profile { return NewProfile(NameOptions{}, DefaultLabels) }, true)
}

// TestPprofEncodeAsLibrary: encodeProfile (wallfold diff's profiles)
// writes byte for byte what the pprof library writes, for the profiles
// of every shipped trace and corpus file (merged and in windows; written
// whole and in pieces), and for a profile with every field the library
// encodes set.
func TestPprofEncodeAsLibrary(t *testing.T) {
	meta := func(int32) Meta {
		return Meta{Event: "cpu-clock", TimeBased: true, Period: 1001, TimeNanos: 17e17, DurationNanos: 5e9,
			Comments: []string{"a", "b", "a"}}
	}
	defer func(chunk int) { pbChunk = chunk }(pbChunk)
	for i, path := range testtrace.Shipped(t, "../testdata") {
		data := testtrace.Read(t, path)
		pbChunk = []int{256 << 10, 100, 1}[i%3] // written whole, and in pieces
		for _, merged := range []bool{true, false} {
			p := tracedProfile(data, 3)
			err := p.refBuildEach(meta, merged, func(win int32, pr *profile.Profile) error {
				if got, want := ourBytes(t, pr), libraryBytes(t, pr); !bytes.Equal(got, want) {
					t.Errorf("%s (merged %v, window %d): %d bytes, the library's %d", path, merged, win, len(got), len(want))
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	full := everyField()
	if got, want := ourBytes(t, full), libraryBytes(t, full); !bytes.Equal(got, want) {
		t.Errorf("every field: %x\nthe library's   %x", got, want)
	}
	empty := &profile.Profile{}
	if got, want := ourBytes(t, empty), libraryBytes(t, empty); !bytes.Equal(got, want) {
		t.Errorf("empty profile: %x, the library's %x", got, want)
	}
}

// everyField is a profile with each field the pprof library encodes set,
// numeric labels with and without units, one or two numbers where lists
// are packed from three, and a period type without type or unit.
func everyField() *profile.Profile {
	m := &profile.Mapping{ID: 1, Start: 0x400000, Limit: 0x500000, Offset: 0x1000, File: "/bin/app", BuildID: "abc",
		HasFunctions: true, HasFilenames: true, HasLineNumbers: true, HasInlineFrames: true}
	fs := []*profile.Function{{ID: 1, Name: "main", SystemName: "main.main", Filename: "main.go", StartLine: 10},
		{ID: 2, Name: "f<T>", SystemName: "f", Filename: "f.go"}}
	ls := []*profile.Location{
		{ID: 1, Mapping: m, Address: 0x401000, Line: []profile.Line{{Function: fs[1], Line: 3, Column: 7}, {Function: fs[0], Line: 12}}, IsFolded: true},
		{ID: 2, Address: 0x10, Line: []profile.Line{{Line: 5}}},
	}
	shared := map[string][]string{"comm": {"app"}, "z": {"1", "2"}}
	return &profile.Profile{
		SampleType:        []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		DefaultSampleType: "cpu",
		Sample: []*profile.Sample{
			{Location: ls, Value: []int64{1, 2}, Label: shared},
			{Location: ls[:1], Value: []int64{3, -4}, Label: shared,
				NumLabel: map[string][]int64{"bytes": {512, 0}, "n": {-1}}, NumUnit: map[string][]string{"bytes": {"bytes", "kb"}}},
			{Location: []*profile.Location{ls[1], ls[0], ls[1]}, Value: []int64{0, 1 << 40}, Label: map[string][]string{"b": {""}}},
		},
		Mapping:       []*profile.Mapping{m},
		Location:      ls,
		Function:      fs,
		Comments:      []string{"x", "y", "z", "x"},
		DocURL:        "https://example.com/doc",
		DropFrames:    "drop.*",
		KeepFrames:    "keep",
		TimeNanos:     1,
		DurationNanos: 2,
		PeriodType:    &profile.ValueType{},
		Period:        -3,
	}
}

// BenchmarkPprofWrite: writing the profile of the shipped build trace
// (sorting, encoding, gzip), WriteEach against the reference builder and
// the library's encoder; MB/s of gzipped profile.
func BenchmarkPprofWrite(b *testing.B) {
	data := testtrace.Read(b, "../testdata/traces/build.txt.gz")
	meta := func(int32) Meta { return Meta{Event: "cpu-clock", TimeBased: true, Period: 1} }
	b.Run("wallfold", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			p := tracedProfile(data, 1)
			b.StartTimer()
			p.WriteEach(meta, true, func(_ int32, enc func(io.Writer) error) error {
				var n countWriter
				err := enc(&n)
				b.SetBytes(int64(n))
				return err
			})
		}
	})
	b.Run("library", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			p := tracedProfile(data, 1)
			b.StartTimer()
			p.refBuildEach(meta, true, func(_ int32, pr *profile.Profile) error {
				var n countWriter
				err := WritePprof(&n, pr)
				b.SetBytes(int64(n))
				return err
			})
		}
	})
}

// countWriter counts the bytes written to it.
type countWriter int

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}

// TestPprofWritesInLargePieces: a profile reaches its writer in a few
// large writes (each a system call to a file), not in the compressor's
// pieces of a few hundred bytes; both writers, the shipped build trace.
func TestPprofWritesInLargePieces(t *testing.T) {
	data := testtrace.Read(t, "../testdata/traces/build.txt.gz")
	meta := func(int32) Meta { return Meta{Event: "cpu-clock", TimeBased: true, Period: 1} }
	check := func(name string, enc func(io.Writer) error) {
		var w callWriter
		if err := enc(&w); err != nil {
			t.Fatal(err)
		}
		if min := 16 << 10; w.calls > w.bytes/min+1 {
			t.Errorf("%s: %d bytes in %d writes, want at most %d (%d bytes each)", name, w.bytes, w.calls, w.bytes/min+1, min)
		}
	}
	tracedProfile(data, 1).WriteEach(meta, true, func(_ int32, enc func(io.Writer) error) error {
		check("WriteEach", enc)
		return nil
	})
	var pr *profile.Profile
	tracedProfile(data, 1).refBuildEach(meta, true, func(_ int32, p *profile.Profile) error { pr = p; return nil })
	check("WritePprof", func(w io.Writer) error { return WritePprof(w, pr) })
}

// callWriter counts the calls to Write and the bytes written.
type callWriter struct{ calls, bytes int }

func (c *callWriter) Write(p []byte) (int, error) {
	c.calls++
	c.bytes += len(p)
	return len(p), nil
}

// TestPbVarintShort: pbVarintShort writes what encoding/binary's
// AppendUvarint writes, at each length's bounds.
func TestPbVarintShort(t *testing.T) {
	for _, x := range []uint32{0, 1, 127, 128, 300, 16383, 16384, 29116, 1<<21 - 1, 1 << 21, 1<<28 - 1, 1 << 28, 1<<32 - 1} {
		if got, want := pbVarintShort([]byte{9}, x), binary.AppendUvarint([]byte{9}, uint64(x)); !bytes.Equal(got, want) {
			t.Errorf("%d: % x, want % x", x, got, want)
		}
	}
}
