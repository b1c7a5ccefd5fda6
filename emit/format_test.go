package emit

import "testing"

// Each format's extensions pick it, and its first is the one it gives a
// new file; a name no format claims is folded.
func TestFormatOf(t *testing.T) {
	for path, want := range map[string]Format{"a.svg": SVG, "a.json": ChromeTrace, "a.pb.gz": Pprof, "a.pprof": Pprof,
		"a.pb": Pprof, "a.folded": Folded, "a.txt": Summary, "a.top": Top, "a.out": Folded} {
		if got := FormatOf(path); got != want {
			t.Errorf("FormatOf(%q) = %v, want %v", path, got, want)
		}
	}
	for f := Folded; f <= ChromeTrace; f++ {
		if got := FormatOf("wall" + f.Ext()); got != f {
			t.Errorf("%v: a new file wall%s reads as %v", f, f.Ext(), got)
		}
		var back Format
		if err := back.UnmarshalText([]byte(f.String())); err != nil || back != f {
			t.Errorf("%v: its name decodes to %v, %v", f, back, err)
		}
	}
	var f Format
	if err := f.UnmarshalText([]byte("png")); err == nil {
		t.Error("png decoded as a format")
	}
}
