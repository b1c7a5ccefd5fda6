package parse

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestGuessedLineMustEndThere: a line guessed (the line that followed
// the same frame last time) is taken only when the input's line is that
// line whole; a longer line that starts like it, one that ends in CR, a
// blank-ended one and the input's last line without '\n' are each read
// for what they are. Known answers: the frames' symbols and DSOs as
// written below, counted per sample.
func TestGuessedLineMustEndThere(t *testing.T) {
	const head = "a 1 1.000000: 1 cpu-clock:\n"
	leaf := "\t1 leaf+0x1 (/x)\n"
	for _, tc := range []struct {
		name, second string // the second sample's line after leaf
		want         string
		crlf         bool
	}{
		{"same", "\t2 mid+0x2 (/x)\n", "mid /x", false},
		{"longer", "\t2 mid+0x2 (/x)(y)\n", "mid+0x2 (/x)(y) ", false}, // no DSO: no space before its group
		{"longer symbol", "\t2 mid+0x2 (/x) (/z)\n", "mid+0x2 (/x) /z", false},
		{"crlf", "\t2 mid+0x2 (/x)\r\n", "mid /x", true},
		{"last line, no end", "\t2 mid+0x2 (/x)", "mid /x", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := head + leaf + "\t2 mid+0x2 (/x)\n\n" + head + leaf + tc.second
			if tc.crlf {
				in = strings.ReplaceAll(in, "\n", "\r\n")
				in = strings.ReplaceAll(in, "\r\r\n", "\r\n")
			}
			for _, conc := range []bool{false, true} {
				r := newReader(bytes.NewReader([]byte(in)), "f", conc)
				var got []string
				for r.Scan() {
					x := r.Record()
					if x.Kind != KindSample {
						t.Fatalf("record %v (%v)", x.Kind, x.Err)
					}
					var fs []string
					for _, f := range x.Stack.Frames() {
						fs = append(fs, string(f.Sym)+" "+string(f.DSO))
					}
					got = append(got, strings.Join(fs, ","))
				}
				want := []string{"leaf /x,mid /x", "leaf /x," + tc.want}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("concurrent %v: frames %q, want %q", conc, got, want)
				}
			}
		})
	}
}
