package fileio

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteHardLinked: -o onto a file with another hard link writes the
// file both names name, as the shell's > does (a rename over one name
// left the other with the old content); a file of one name is still
// replaced by a new one (atomically).
func TestWriteHardLinked(t *testing.T) {
	dir := t.TempDir()
	out, other := filepath.Join(dir, "out.txt"), filepath.Join(dir, "other.txt")
	if err := os.WriteFile(out, []byte("the old profile, longer than the new\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(out, other); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	write := func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err }
	if err := Write(out, nil, nil, write); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{out, other} {
		if b, err := os.ReadFile(name); err != nil || string(b) != "new\n" {
			t.Errorf("%s: %q, %v; want the new profile", filepath.Base(name), b, err)
		}
	}
	after, err := os.Stat(out)
	if err != nil || !os.SameFile(before, after) || after.Mode().Perm() != 0o640 {
		t.Errorf("out.txt: the same file with mode 0640 wanted, got %v, same %v (%v)", after.Mode(), os.SameFile(before, after), err)
	}

	// One name: replaced by a new file, as before.
	if err := os.Remove(other); err != nil {
		t.Fatal(err)
	}
	if err := Write(out, nil, nil, write); err != nil {
		t.Fatal(err)
	}
	if again, err := os.Stat(out); err != nil || os.SameFile(after, again) {
		t.Errorf("a file of one name: written in place (%v), want a new file renamed over it", err)
	}
}
