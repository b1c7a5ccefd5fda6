package parse

import (
	"bytes"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/wallfold/wallfold/internal/testtrace"
)

// TestStackIDsAreFramesIDs: in every reader (sequential, concurrent,
// parallel; a table with room and a nearly full one) a sample's Stack
// gives, before any Frame is made, the IDs its Frames then carry, as
// many, each ID of one frame only; a Frame made alone is the one Frames
// then makes; Frames asked again are the same.
func TestStackIDsAreFramesIDs(t *testing.T) {
	for _, name := range []string{"traces/build.txt.gz", "traces/syswide.txt", "traces/nocallchain.txt",
		"corpus/inferno/java-inline.txt", "corpus/inferno/cpp-stacks-std-function.txt"} {
		data := testtrace.Read(t, filepath.Join("..", "testdata", name))
		type reader struct {
			what string
			new  func() *Reader
		}
		readers := []reader{{"parallel", func() *Reader {
			return newFileReader(bytes.NewReader(data), int64(len(data)), "f", 3, 4<<10)
		}}}
		for _, room := range []int{maxTableLines, 5} {
			for _, concurrent := range []bool{false, true} {
				readers = append(readers, reader{fmt.Sprintf("concurrent %v, room %d", concurrent, room), func() *Reader {
					r := newReader(bytes.NewReader(data), "f", concurrent)
					fillTable(r.p.tab, room)
					return r
				}})
			}
		}
		for _, rd := range readers {
			what := rd.what
			r := rd.new()
			samples, numbered := 0, 0
			var ids []uint32
			var one []Frame
			byID := map[uint32]string{}
			for r.Scan() {
				rec := r.Record()
				if rec.Kind != KindSample {
					if rec.Stack != nil {
						t.Fatalf("%s, %s: a %v record with a stack", name, what, rec.Kind)
					}
					continue
				}
				samples++
				st := rec.Stack
				ids, one = ids[:0], one[:0]
				for i := range st.Len() {
					ids = append(ids, st.ID(i))
					var f Frame
					st.Frame(i, &f)
					one = append(one, f)
				}
				fs := st.Frames()
				if !reflect.DeepEqual(fs, one) && len(fs) > 0 {
					t.Fatalf("%s, %s: line %d: Frame gives %v, Frames %v", name, what, rec.Line, one, fs)
				}
				if len(fs) != len(ids) {
					t.Fatalf("%s, %s: line %d: %d IDs, %d frames", name, what, rec.Line, len(ids), len(fs))
				}
				for i := range fs {
					if fs[i].ID != ids[i] {
						t.Fatalf("%s, %s: line %d: frame %d: ID %d, its Frame's %d", name, what, rec.Line, i, ids[i], fs[i].ID)
					}
					if ids[i] == 0 {
						continue
					}
					numbered++
					f := &fs[i]
					text := fmt.Sprintf("%s|%s|%s|%s|%v", f.Addr, f.Sym, f.Off, f.DSO, f.Inlined)
					if old, ok := byID[ids[i]]; ok && old != text {
						t.Fatalf("%s, %s: ID %d names %s and %s", name, what, ids[i], old, text)
					}
					byID[ids[i]] = text
				}
				if again := st.Frames(); len(again) != len(fs) || len(fs) > 0 && &again[0] != &fs[0] {
					t.Fatalf("%s, %s: line %d: Frames made twice", name, what, rec.Line)
				}
			}
			if samples == 0 || numbered == 0 && name != "traces/nocallchain.txt" {
				t.Fatalf("%s, %s: %d samples, %d numbered frames", name, what, samples, numbered)
			}
		}
	}
}
