package parse

import (
	"bytes"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/wallfold/wallfold/internal/testtrace"
)

// fillTable makes t, a new table, one that has room for only room more
// lines, as if it had already numbered maxTableLines-room: the IDs it
// gives from then on are maxTableLines-room+1 to maxTableLines.
func fillTable(t *frameTable, room int) {
	t.n = maxTableLines - room
	// add makes a block when it starts one; this one it starts halfway.
	t.blocks[t.n/tableBlock] = new([tableBlock]tabEntry)
}

// scanTrace is transcriptWith, and every frame's ID with its fields
// ("addr|sym|off|dso|i").
func scanTrace(data []byte, concurrent bool, room int) (string, []uint32, []string) {
	var ids []uint32
	var texts []string
	tr := transcriptWith(data, concurrent, room, func(f Frame) {
		ids = append(ids, f.ID)
		texts = append(texts, string(f.Addr)+"|"+string(f.Sym)+"|"+string(f.Off)+"|"+string(f.DSO)+"|"+map[bool]string{true: "i"}[f.Inlined])
	})
	return tr, ids, texts
}

// TestFrameIDs: frames with the same parsed fields have the same ID and
// different ones different IDs; a full table numbers no new frames (ID 0)
// and changes no record; the concurrent reader gives the same IDs.
func TestFrameIDs(t *testing.T) {
	for _, name := range []string{"traces/build.txt.gz", "traces/syswide.txt", "corpus/inferno/java-inline.txt", "corpus/inferno/cpp-stacks-std-function.txt"} {
		data := testtrace.Read(t, filepath.Join("..", "testdata", name))
		tr, ids, texts := scanTrace(data, false, maxTableLines)
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

		// A table with room for small more lines numbers the first small
		// frames as an empty one does, after the lines it holds.
		const small = 7
		trSmall, idsSmall, _ := scanTrace(data, false, small)
		if tr != trSmall {
			t.Fatalf("%s: transcripts differ with a full table", name)
		}
		held := uint32(maxTableLines - small)
		for i, id := range idsSmall {
			if id != 0 && (id <= held || id > maxTableLines || id-held != ids[i]) {
				t.Fatalf("%s: frame %d: ID %d with room for %d lines, %d in an empty table", name, i, id, small, ids[i])
			}
		}

		trConc, idsConc, _ := scanTrace(data, true, maxTableLines)
		if tr != trConc || !reflect.DeepEqual(ids, idsConc) {
			t.Fatalf("%s: the concurrent reader differs", name)
		}
		trConc, idsConc, _ = scanTrace(data, true, small)
		if tr != trConc || !reflect.DeepEqual(idsSmall, idsConc) {
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
		b := testtrace.Read(f, filepath.Join("..", "testdata", name))
		f.Add(b[:min(len(b), 4000)])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, ids, texts := scanTrace(data, false, maxTableLines)
		byID := map[uint32]string{}
		for i, id := range ids {
			if prev, ok := byID[id]; ok && id != 0 && prev != texts[i] {
				t.Fatalf("ID %d names %q and %q", id, prev, texts[i])
			}
			byID[id] = texts[i]
		}
		tr2, _, _ := scanTrace(data, false, 2)
		if tr != tr2 {
			t.Fatal("transcripts differ with a full table")
		}
		tr3, ids3, _ := scanTrace(data, true, maxTableLines)
		if tr != tr3 || !reflect.DeepEqual(ids, ids3) {
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
	r.p.tab.bytes = maxTableBytes - 20000 // room for 20000 bytes of text
	var ids []uint32
	samples := 0
	for r.Scan() {
		if r.Record().Kind == KindError {
			continue
		}
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
