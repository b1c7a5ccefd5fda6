package parse

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// scanTrace reads data with a reader whose frame table takes at most
// maxLines lines, and returns the records (as rec) and every frame's ID
// with its text ("addr sym+off (dso)" as parsed).
func scanTrace(t testing.TB, data []byte, concurrent bool, maxLines int) ([]rec, []uint32, []string) {
	t.Helper()
	r := newReader(bytes.NewReader(data), "x", concurrent)
	r.tab.maxLines = maxLines // a concurrent reader's producer takes this table
	var recs []rec
	var ids []uint32
	var texts []string
	for r.Scan() {
		recs = append(recs, toRec(r.Record()))
		for _, f := range r.Record().Frames {
			ids = append(ids, f.ID)
			texts = append(texts, string(f.Addr)+"|"+string(f.Sym)+"|"+string(f.Off)+"|"+string(f.DSO)+"|"+map[bool]string{true: "i"}[f.Inlined])
		}
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	return recs, ids, texts
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	return data
}

// TestFrameIDs: frames with the same parsed fields have the same ID and
// different ones different IDs; a full table numbers no new frames (ID 0)
// and changes no record; the concurrent reader gives the same IDs.
func TestFrameIDs(t *testing.T) {
	for _, name := range []string{"traces/build.txt.gz", "traces/syswide.txt", "corpus/inferno/java-inline.txt", "corpus/inferno/cpp-stacks-std-function.txt"} {
		data := readTestdata(t, name)
		recs, ids, texts := scanTrace(t, data, false, maxTableLines)
		if len(ids) == 0 {
			t.Fatalf("%s: no frames", name)
		}
		byID := map[uint32]string{}
		idOf := map[string]uint32{}
		for i, id := range ids {
			if id == 0 {
				t.Fatalf("%s: frame %d has no ID with room in the table", name, i)
			}
			if prev, ok := byID[id]; ok && prev != texts[i] {
				t.Fatalf("%s: ID %d names %q and %q", name, id, prev, texts[i])
			}
			byID[id] = texts[i]
			idOf[texts[i]] = id
		}
		// Different IDs for the same fields happen only when the lines
		// differ in their spacing; count them to make sure they are rare.
		if extra := len(byID) - len(idOf); extra*10 > len(byID) {
			t.Errorf("%s: %d IDs for %d distinct frames", name, len(byID), len(idOf))
		}

		const small = 7
		recsSmall, idsSmall, _ := scanTrace(t, data, false, small)
		if !reflect.DeepEqual(recs, recsSmall) {
			t.Fatalf("%s: records differ with a full table", name)
		}
		for i, id := range idsSmall {
			if id > small || (id != 0 && id != ids[i]) {
				t.Fatalf("%s: frame %d: ID %d with a table of %d, %d without limit", name, i, id, small, ids[i])
			}
		}

		recsConc, idsConc, _ := scanTrace(t, data, true, maxTableLines)
		if !reflect.DeepEqual(recs, recsConc) || !reflect.DeepEqual(ids, idsConc) {
			t.Fatalf("%s: the concurrent reader differs", name)
		}
		recsConc, idsConc, _ = scanTrace(t, data, true, small)
		if !reflect.DeepEqual(recs, recsConc) || !reflect.DeepEqual(idsSmall, idsConc) {
			t.Fatalf("%s: the concurrent reader differs with a full table", name)
		}
	}
}

// FuzzReaderPaths: on any input the sequential reader, the concurrent one
// and a reader whose frame table is nearly full at once give the same
// records, and one ID never names two different frames.
func FuzzReaderPaths(f *testing.F) {
	for _, name := range []string{"traces/phases.txt", "traces/syswide.txt", "traces/nocallchain.txt",
		"corpus/inferno/java-inline.txt", "corpus/inferno/weird-stack-line.txt"} {
		b := readTestdata(f, name)
		f.Add(b[:min(len(b), 4000)])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, ids, texts := scanTrace(t, data, false, maxTableLines)
		byID := map[uint32]string{}
		for i, id := range ids {
			if prev, ok := byID[id]; ok && id != 0 && prev != texts[i] {
				t.Fatalf("ID %d names %q and %q", id, prev, texts[i])
			}
			byID[id] = texts[i]
		}
		recs2, _, _ := scanTrace(t, data, false, 2)
		if !reflect.DeepEqual(recs, recs2) {
			t.Fatal("records differ with a full table")
		}
		recs3, ids3, _ := scanTrace(t, data, true, maxTableLines)
		if !reflect.DeepEqual(recs, recs3) || !reflect.DeepEqual(ids, ids3) {
			t.Fatal("the concurrent reader differs")
		}
	})
}

// TestBadLinesDoNotFillTable: a bad stack line repeated in every sample
// is kept once, so later distinct frames still get IDs (and each of its
// samples is still dropped with an error).
func TestBadLinesDoNotFillTable(t *testing.T) {
	var b bytes.Buffer
	const n = 2000
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "c 1 [0] 1.%d: 1 cpu-clock:\n\tzz this line is bad\n\n", i)
	}
	b.WriteString("c 1 [0] 2.0: 1 cpu-clock:\n\t1234 main (/bin/a)\n\n")
	r := newReader(&b, "x", false)
	r.tab.maxBytes = 20000 // 32 MiB in production
	var ids []uint32
	samples := 0
	for r.Scan() {
		samples++
		for _, f := range r.Record().Frames {
			ids = append(ids, f.ID)
		}
	}
	if samples != 1 || r.Skipped() != n {
		t.Errorf("%d samples, %d skipped; want 1 and %d", samples, r.Skipped(), n)
	}
	if len(ids) != 1 || ids[0] == 0 {
		t.Errorf("the good frame's IDs: %v, want one non-zero", ids)
	}
}
