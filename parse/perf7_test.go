package parse

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// perf 7.x text against perf 6.1's text of the same perf.data
// (../testdata/perf7/README.md): what perf 6.1 prints is the truth for
// what perf 7 means.

// perf7Text returns the unzipped text of ../testdata/perf7/name.
func perf7Text(t *testing.T, name string) []byte {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "perf7", name))
	if err != nil {
		t.Fatalf("test input missing: %v", err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readStacks reads text with the Reader and returns its samples' frames
// written as perf prints them after the address, and all its records.
func readStacks(t *testing.T, text []byte, concurrent bool) (stacks [][]string, recs []rec) {
	t.Helper()
	r := newReader(bytes.NewReader(text), "perf7.txt", concurrent)
	for r.Scan() {
		rc := r.Record()
		if rc.Kind == KindError {
			t.Fatalf("%v: %q", rc.Err, rc.Err.Text)
		}
		recs = append(recs, toRec(rc))
		if rc.Kind != KindSample {
			continue
		}
		s := []string{}
		for _, f := range rc.Frames {
			w := string(f.Sym)
			if len(f.Off) > 0 {
				w += "+" + string(f.Off)
			}
			s = append(s, w+" ("+string(f.DSO)+")")
		}
		stacks = append(stacks, s)
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	return stacks, recs
}

// TestPerf7MiscColumn: perf script -F +misc,+flags prints a column
// between the tid (or cpu) and the time; the records read from it are
// those of the same perf.data without it, per-task and system-wide.
func TestPerf7MiscColumn(t *testing.T) {
	for _, name := range []string{"writers", "build"} {
		misc := perf7Text(t, name+".perf7.misc.txt.gz")
		_, plain := readStacks(t, perf7Text(t, name+".perf7.txt.gz"), false)
		_, got := readStacks(t, misc, false)
		headers := bytes.Count(misc, []byte(" cpu-clock: "))
		samples := 0
		for _, r := range got {
			if r.Kind == KindSample {
				samples++
			}
		}
		if samples != headers || headers == 0 {
			t.Errorf("%s: %d samples read, the text has %d sample headers", name, samples, headers)
		}
		if len(got) != len(plain) {
			t.Fatalf("%s: %d records with +misc, %d without", name, len(got), len(plain))
		}
		bad := 0
		for i := range plain {
			g, p := got[i], plain[i]
			g.Line, p.Line = 0, 0
			if !reflect.DeepEqual(g, p) {
				if bad++; bad <= 3 {
					t.Errorf("%s: record %d:\n +misc %+v\n plain %+v", name, i, g, p)
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d of %d records differ", name, bad, len(plain))
		}
	}
}

// TestReaderMiscHeaders: the misc column's forms, from real perf 7.2
// lines (per-task, -F +pid, system-wide right-aligned, a frame on the
// sample line without -g, blank misc).
func TestReaderMiscHeaders(t *testing.T) {
	runReadCases(t, []readCase{
		{
			name: "per-task, exec",
			in:   "writers   31923 E      8521.008289: PERF_RECORD_COMM exec: writers:31923/31923\n",
			want: []rec{func() rec {
				r := subject(side(KindComm, 1, "writers", -1, 31923, -1, 8521008289000), 31923, 31923)
				r.NewComm = "writers"
				return r
			}()},
		},
		{
			name: "per-task, switch out preempt, then blank misc",
			in: "writer-0   31925 Sp     8521.011223: PERF_RECORD_SWITCH OUT preempt\n" +
				"writer-0   31925        8521.011249: PERF_RECORD_SWITCH IN         \n",
			want: []rec{sw(side(KindSwitch, 1, "writer-0", -1, 31925, -1, 8521011223000), true, true),
				sw(side(KindSwitch, 2, "writer-0", -1, 31925, -1, 8521011249000), false, false)},
		},
		{
			name: "system-wide, right-aligned comm, cpu, switch out",
			in:   "          :32006   32006 [001] S      8522.124250: PERF_RECORD_SWITCH_CPU_WIDE OUT          next pid/tid:     0/0    \n",
			want: []rec{peer(sw(side(KindSwitchCPUWide, 1, ":32006", -1, 32006, 1, 8522124250000), true, false), 0, 0)},
		},
		{
			name: "pid/tid, no -g: the frame on the sample line",
			in:   "        writer-1     676/682     U      8791.454710:    1001001 cpu-clock:                              55765ac8623a spin_for+0x39 (/tmp/p7w/writers)\n",
			want: []rec{sample(1, "writer-1", 676, 682, -1, 8791454710000, 1001001, "cpu-clock",
				fr{"55765ac8623a", "spin_for", "0x39", "/tmp/p7w/writers", false})},
		},
		{
			name: "kernel sample with its stack",
			in:   "bash   30935 [000] K      8522.122035:    1001001 cpu-clock:                         \n\tffffffff82252cd7 exc_page_fault+0xd7 ([kernel.kallsyms])\n\n",
			want: []rec{sample(1, "bash", -1, 30935, 0, 8522122035000, 1001001, "cpu-clock",
				fr{"ffffffff82252cd7", "exc_page_fault", "0xd7", "[kernel.kallsyms]", false})},
		},
	})
}
