package emit

import (
	"bufio"
	"bytes"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/wallfold/wallfold/internal/testtrace"
	"github.com/wallfold/wallfold/parse"
)

// writeFoldedRef is WriteFolded the straightforward way: build every line
// as a string, sort the strings.
func writeFoldedRef(w io.Writer, s *Stacks, t *Totals, weight Weight) error {
	type line struct {
		stack string
		n     uint64
	}
	var lines []line
	var b []byte
	for id := range t.CPU {
		var n uint64
		if weight == CPU {
			n = t.CPU[id]
			if t.N[id] == 0 {
				continue
			}
		} else {
			n = uint64(math.Round(t.Wall[id]))
			if n == 0 {
				continue
			}
		}
		b = b[:0]
		for i, nid := range s.Frames(uint32(id)) {
			if i > 0 {
				b = append(b, ';')
			}
			b = append(b, s.Name(nid)...)
		}
		lines = append(lines, line{string(b), n})
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i].stack < lines[j].stack })
	bw := bufio.NewWriter(w)
	for _, l := range lines {
		bw.WriteString(l.stack + " " + strconv.FormatUint(l.n, 10) + "\n")
	}
	return bw.Flush()
}

// unnumbered copies frames with their IDs cleared: the interners then
// take the straightforward path (no cache by ID).
func unnumbered(buf, frames []parse.Frame) ([]parse.Frame, []parse.Frame) {
	buf = append(buf[:0], frames...)
	for i := range buf {
		buf[i].ID = 0
	}
	return buf, buf
}

// fold interns every sample of data (root: its comm) and writes folded
// CPU weights, with the fast paths or the straightforward ones.
func fold(t *testing.T, data []byte, opts NameOptions, fast bool) string {
	t.Helper()
	s := NewStacks(opts)
	var tot Totals
	var buf []parse.Frame
	r := parse.NewReader(bytes.NewReader(data), "f")
	for r.Scan() {
		x := r.Record()
		if x.Kind != parse.KindSample {
			continue
		}
		root := s.InternName(bytes.ReplaceAll(x.Comm, []byte(" "), []byte("_")))
		st := x.Stack
		if !fast {
			var frames []parse.Frame
			buf, frames = unnumbered(buf, st.Frames())
			st = parse.NewStack(frames)
		}
		id := s.Intern(root, st, string(x.Comm) == "java")
		tot.Add(id, x.Period, float64(x.Period)/3)
	}
	var out bytes.Buffer
	write := WriteFolded
	if !fast {
		write = writeFoldedRef
	}
	if err := write(&out, s, &tot, CPU); err != nil {
		t.Fatal(err)
	}
	if err := write(&out, s, &tot, Wall); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestFastPathsMatchStraightforward: stack interning by frame ID and the
// folded writer that sorts by name ranks without building lines give
// byte for byte the output of the straightforward code on every shipped
// trace and corpus file, with each naming option.
func TestFastPathsMatchStraightforward(t *testing.T) {
	var all []byte
	for _, path := range testtrace.Shipped(t, "../testdata") {
		data := testtrace.Read(t, path)
		all = append(all, data...)
		for _, o := range []NameOptions{{}, {Addrs: true, Kernel: true, JIT: true}} {
			fast, ref := fold(t, data, o, true), fold(t, data, o, false)
			if fast != ref {
				t.Errorf("%s %+v: fast output differs from the straightforward one", path, o)
			}
		}
	}
	if fast, ref := fold(t, all, NameOptions{}, true), fold(t, all, NameOptions{}, false); fast != ref {
		t.Errorf("all files: fast output differs from the straightforward one")
	}
}

// TestCmpJoined: names that are prefixes of each other and bytes below
// and above ';' sort as the joined strings do.
func TestCmpJoined(t *testing.T) {
	s := NewStacks(NameOptions{})
	names := []string{"a", "a.b", "a;b", "ab", "a:", "", "b", "a b", "a<"}
	var stacks [][]uint32
	for _, x := range names {
		for _, y := range names {
			stacks = append(stacks, []uint32{s.intern(x), s.intern(y)})
			stacks = append(stacks, []uint32{s.intern(x)}, []uint32{s.intern(x), s.intern(y), s.intern("a")})
		}
	}
	join := func(ids []uint32) string {
		var p []string
		for _, id := range ids {
			p = append(p, s.Name(id))
		}
		return strings.Join(p, ";")
	}
	for _, a := range stacks {
		for _, b := range stacks {
			want := strings.Compare(join(a), join(b))
			if got := cmpJoined(s, a, b); got != want {
				t.Fatalf("cmpJoined(%q, %q) = %d, want %d", join(a), join(b), got, want)
			}
		}
	}
}

// TestRanks: ordering stacks by name ranks is ordering their joined
// strings, with names that are prefixes of others followed by bytes below
// and above ';', and the empty name; a name holding ';' turns ranks off.
func TestRanks(t *testing.T) {
	s := NewStacks(NameOptions{})
	names := []string{"a", "a.b", "ab", "a:", "", "b", "a b", "a<", "a<b", "a~", "aa", "a\x01"}
	var stacks [][]uint32
	for _, x := range names {
		stacks = append(stacks, []uint32{s.intern(x)})
		for _, y := range names {
			stacks = append(stacks, []uint32{s.intern(x), s.intern(y)})
			stacks = append(stacks, []uint32{s.intern(x), s.intern(y), s.intern("a")})
		}
	}
	rk, ok := nameRanks(s)
	if !ok {
		t.Fatal("nameRanks refused names without ';'")
	}
	join := func(ids []uint32) string {
		var p []string
		for _, id := range ids {
			p = append(p, s.Name(id))
		}
		return strings.Join(p, ";")
	}
	sign := func(c int) int { return min(max(c, -1), 1) }
	for _, a := range stacks {
		for _, b := range stacks {
			if got, want := sign(rk.cmp(a, b)), strings.Compare(join(a), join(b)); got != want {
				t.Fatalf("ranks: %q vs %q = %d, want %d", join(a), join(b), got, want)
			}
		}
	}
	s.intern("x;y")
	if _, ok := nameRanks(s); ok {
		t.Error("nameRanks took a name with ';'")
	}
}

// profileBytes gathers every sample of data into a Profile (labels: its
// comm, pid, tid, and a parallelism made up from the line number) with
// the fast paths or the straightforward ones, and returns the encoded
// profile, uncompressed.
func profileBytes(t *testing.T, data []byte, opts NameOptions, fast bool) []byte {
	t.Helper()
	p := NewProfile(opts, Labels{Comm: true, Parallelism: true, PID: true, TID: true})
	var buf []parse.Frame
	r := parse.NewReader(bytes.NewReader(data), "f")
	for r.Scan() {
		x := r.Record()
		if x.Kind != parse.KindSample {
			continue
		}
		stack := x.Stack
		if !fast {
			var frames []parse.Frame
			buf, frames = unnumbered(buf, stack.Frames())
			stack = parse.NewStack(frames)
		}
		st := p.Stack(stack, string(x.Comm) == "java")
		par := 1 + x.Line%3
		p.Add(0, st, p.Comm(x.Comm), x.PID, x.TID, par, x.Period, float64(x.Period)/float64(par))
	}
	pr := p.Build(Meta{Event: "cpu-clock", TimeBased: true, Period: 1, Comments: []string{"test"}})
	var out bytes.Buffer
	if err := pr.WriteUncompressed(&out); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// plainBuild is Build the straightforward way: every sample its own
// label maps and location list, as the first version did.
func plainBuild(t *testing.T, data []byte, opts NameOptions) []byte {
	t.Helper()
	p := NewProfile(opts, Labels{Comm: true, Parallelism: true, PID: true, TID: true})
	var buf []parse.Frame
	r := parse.NewReader(bytes.NewReader(data), "f")
	for r.Scan() {
		x := r.Record()
		if x.Kind != parse.KindSample {
			continue
		}
		var frames []parse.Frame
		buf, frames = unnumbered(buf, x.Stack.Frames())
		st := p.Stack(parse.NewStack(frames), string(x.Comm) == "java")
		par := 1 + x.Line%3
		p.Add(0, st, p.Comm(x.Comm), x.PID, x.TID, par, x.Period, float64(x.Period)/float64(par))
	}
	pr := p.Build(Meta{Event: "cpu-clock", TimeBased: true, Period: 1, Comments: []string{"test"}})
	for _, s := range pr.Sample {
		s.Location = append([]*profile.Location(nil), s.Location...)
		l := map[string][]string{}
		for k, v := range s.Label {
			l[k] = []string{v[0]}
		}
		s.Label = l
	}
	var out bytes.Buffer
	if err := pr.WriteUncompressed(&out); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestProfileFastPathsMatchStraightforward: Profile.Stack with the
// previous-stack cache gives byte for byte the profile of a lookup per
// frame run (same Location ids, made in the same order), and Build's
// shared label maps and location lists encode as per-sample ones do, on
// every shipped trace and corpus file.
func TestProfileFastPathsMatchStraightforward(t *testing.T) {
	var all []byte
	for _, path := range testtrace.Shipped(t, "../testdata") {
		data := testtrace.Read(t, path)
		all = append(all, data...)
		for _, o := range []NameOptions{{}, {Addrs: true, Kernel: true, JIT: true}} {
			fast, ref := profileBytes(t, data, o, true), profileBytes(t, data, o, false)
			if !bytes.Equal(fast, ref) {
				t.Errorf("%s %+v: fast profile differs from the straightforward one", path, o)
			}
			if pb := plainBuild(t, data, o); !bytes.Equal(ref, pb) {
				t.Errorf("%s %+v: Build's shared structures encode differently", path, o)
			}
		}
	}
	if fast, ref := profileBytes(t, all, NameOptions{}, true), profileBytes(t, all, NameOptions{}, false); !bytes.Equal(fast, ref) {
		t.Errorf("all files: fast profile differs from the straightforward one")
	}
}

// TestWriteFoldedLarge: with many lines (partitions of every size, down
// to the insertion sort's), WriteFolded still writes what the
// straightforward writer does; names that are prefixes of each other and
// bytes around ';' included (no ';' inside a name: FrameNames makes it
// ':', and without it no two stacks join to the same line).
func TestWriteFoldedLarge(t *testing.T) {
	const manyLines = 4096
	s := NewStacks(NameOptions{})
	names := []string{"a", "a.b", "a:b", "ab", "a:", "", "b", "a b", "a<", "z", "a="}
	var tot Totals
	seed := uint32(1)
	for i := 0; i < 3*manyLines; i++ {
		ids := []uint32{s.intern("root")}
		for d := 0; d < 1+i%7; d++ {
			seed = seed*1664525 + 1013904223
			ids = append(ids, s.intern(names[seed>>16%uint32(len(names))]))
		}
		id := s.stackOf(ids)
		tot.Add(id, uint64(1+i%5), float64(i%3))
	}
	for _, w := range []Weight{CPU, Wall} {
		var fast, ref bytes.Buffer
		if err := WriteFolded(&fast, s, &tot, w); err != nil {
			t.Fatal(err)
		}
		if err := writeFoldedRef(&ref, s, &tot, w); err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(ref.Bytes(), []byte("\n")); n < manyLines {
			t.Fatalf("only %d lines", n)
		}
		if !bytes.Equal(fast.Bytes(), ref.Bytes()) {
			t.Errorf("weight %d: WriteFolded differs from the straightforward writer", w)
		}
	}
}
