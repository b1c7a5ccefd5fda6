package parse

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"github.com/wallfold/wallfold/internal/hugemem"
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

// FuzzReaderPaths: on any input the sequential reader, the concurrent one,
// one that reads ahead and one whose frame table is nearly full at once
// give the same records, and one ID never names two different frames.
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
		// Lines across reads of 8 to 68 bytes, carried whole or in parts.
		if size, carry := 8+len(data)%61, 8+len(data)%17; aheadTranscript(data, size, carry) != tr {
			t.Fatalf("the reader that reads ahead (reads of %d, %d carried) differs", size, carry)
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
		for _, f := range r.Record().Stack.Frames() {
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

// TestFrameTableAgainstMap: the table numbers lines as a Go map does:
// frames from 1 in the order first seen, continuation and bad lines
// their marks, the same line always the same; through the table's
// growth, and when every hash is equal or one of five (a line is then
// told from the others only by its text), or the hash of another line.
func TestFrameTableAgainstMap(t *testing.T) {
	lines := make([][]byte, 0, 3000)
	for i := range cap(lines) {
		switch i % 10 {
		case 0:
			lines = append(lines, fmt.Appendf(nil, "\t  src%d.go:%d", i, i%7))
		case 1:
			lines = append(lines, fmt.Appendf(nil, "\tzz bad %d", i))
		default:
			// Same address and length, other symbol: as in two binaries.
			lines = append(lines, fmt.Appendf(nil, "\t%16x f%04d+0x%x (/bin/b%d)", 0x401000+i%50, i, i%16, i%3))
		}
	}
	for name, hash := range map[string]func(*frameTable, []byte) uint64{
		"its own":   func(t *frameTable, b []byte) uint64 { return t.hash(b) },
		"all equal": func(*frameTable, []byte) uint64 { return 42 << 32 },
		"five":      func(_ *frameTable, b []byte) uint64 { return uint64(len(b)%5) << 32 },
		"another's": func(t *frameTable, b []byte) uint64 { return t.hash(b[:len(b)-1]) },
	} {
		tab := newFrameTable()
		want := map[string]uint32{}
		frames := uint32(0)
		rng := rand.New(rand.NewPCG(3, 4))
		for range 4 * len(lines) {
			line := lines[rng.IntN(len(lines))]
			got := tableLine(tab, line, hash(tab, line))
			w, ok := want[string(line)]
			if !ok {
				switch {
				case bytes.Contains(line, []byte("zz")):
					w = badID
				case bytes.Contains(line, []byte(".go:")):
					w = contID
				default:
					frames++
					w = frames
				}
				want[string(line)] = w
			}
			if got != w {
				t.Fatalf("%s: %q: ID %#x, want %#x", name, line, got, w)
			}
			if w <= frames && string(tab.entry(w).line()) != string(line) {
				t.Fatalf("%s: entry %d is %q, want %q", name, w, tab.entry(w).line(), line)
			}
		}
		if tab.ids.Len() != len(want) {
			t.Fatalf("%s: %d lines indexed, %d distinct", name, tab.ids.Len(), len(want))
		}
	}
}

// tableLine is what stackLine does with the table: line's ID, the line
// added (parsed, or marked) if new.
func tableLine(t *frameTable, line []byte, h uint64) uint32 {
	id, ok, at := t.lookup(line, h)
	if ok {
		return id
	}
	kept := t.keep(line)
	if f, ok := parseFrame(kept); ok {
		return t.add(at, kept, &f)
	}
	id = badID
	if isContinuation(kept) {
		id = contID
	}
	t.mark(at, kept, id)
	return id
}

// TestFrameTableHugeChunks: past its first chunk the table keeps line text
// in 2 MB blocks of huge pages (Linux), past its first blocks of entries
// the entries too, and every entry of 40,000 distinct lines (3.4 MB of
// text: the first chunk and two blocks) reads back its line, after
// collections with garbage made between them (the entries in huge pages
// point into the first chunk, in the heap, where the collector does not
// look).
func TestFrameTableHugeChunks(t *testing.T) {
	tab := newFrameTable()
	var lines [][]byte
	for i := range 40000 {
		line := fmt.Appendf(nil, "\t%16x runtime.function_number_%06d+0x%x (/usr/local/go/bin/go)", 0x401000+i, i, i%4096)
		lines = append(lines, line)
		if id := tableLine(tab, line, tab.hash(line)); id != uint32(i+1) {
			t.Fatalf("line %d: ID %d", i, id)
		}
	}
	for range 2 {
		runtime.GC()
		for range 64 {
			garbage := make([]byte, 64<<10)
			for i := range garbage {
				garbage[i] = 0xff
			}
		}
	}
	for i, line := range lines {
		if got := tab.entry(uint32(i + 1)).line(); string(got) != string(line) {
			t.Fatalf("entry %d: %q, want %q", i+1, got, line)
		}
	}
	if runtime.GOOS == "linux" && cap(tab.chunk) != hugemem.Size {
		t.Errorf("the last chunk holds %d bytes, want a huge block's %d", cap(tab.chunk), hugemem.Size)
	}
}
