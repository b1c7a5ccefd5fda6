package emit

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

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

// fold interns every sample of data (root: its comm) and writes folded
// CPU weights, with the fast paths or the straightforward ones.
func fold(t *testing.T, data []byte, opts NameOptions, fast bool) string {
	t.Helper()
	s := NewStacks(opts)
	s.noLast = !fast
	var tot Totals
	r := parse.NewReader(bytes.NewReader(data), "f")
	for r.Scan() {
		x := r.Record()
		if x.Kind != parse.KindSample {
			continue
		}
		root := s.InternName(bytes.ReplaceAll(x.Comm, []byte(" "), []byte("_")))
		id := s.Intern(root, x.Frames, string(x.Comm) == "java")
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

// TestFastPathsMatchStraightforward: stack interning with the per-root
// previous-stack cache and the folded writer that sorts without building
// lines give byte for byte the output of the straightforward code on every
// shipped trace and corpus file, with each naming option.
func TestFastPathsMatchStraightforward(t *testing.T) {
	var paths []string
	for _, g := range []string{"../testdata/traces/*.txt", "../testdata/corpus/*/*.txt", "../testdata/corpus/*/*.gz"} {
		m, _ := filepath.Glob(g)
		paths = append(paths, m...)
	}
	if len(paths) == 0 {
		t.Fatal("no testdata")
	}
	var all []byte
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(path, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if data, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
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
