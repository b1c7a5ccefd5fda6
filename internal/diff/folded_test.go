package diff

import (
	"bytes"
	"strings"
	"testing"
)

// Each column is that side's stacks rounded once each, in bytewise order;
// a stack rounding to 0 on both sides is left out.
func TestWriteFoldedThreeColumns(t *testing.T) {
	before := side("b", map[string]Weights{"p;f": {2.4, 9}, "p;g": {0.4, 1}, "p;a": {1.5, 1}})
	after := side("a", map[string]Weights{"p;f": {0.6, 1}, "p;h": {7, 7}, "p;g": {0.2, 0}})
	d, err := Compare(before, after, false)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteFolded(&out, d, false); err != nil {
		t.Fatal(err)
	}
	want := "p;a 2 0\np;f 2 1\np;h 0 7\n"
	if out.String() != want {
		t.Errorf("wall:\n%s\nwant:\n%s", out.String(), want)
	}
	out.Reset()
	if err := WriteFolded(&out, d, true); err != nil {
		t.Fatal(err)
	}
	if want := "p;a 1 0\np;f 9 1\np;g 1 0\np;h 0 7\n"; out.String() != want {
		t.Errorf("cpu:\n%s\nwant:\n%s", out.String(), want)
	}
	if strings.Contains(out.String(), ".") {
		t.Error("not integers")
	}
}
