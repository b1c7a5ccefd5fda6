package fileio

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResolveWalk: -o's path is walked as the kernel walks it: a
// symlinked directory on the way is followed (.. after it is its
// target's parent), a relative path starts at the working directory,
// and a link in a directory component is held to the sticky rule as a
// final one is.
func TestResolveWalk(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(dir, "a", "real")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a/real", filepath.Join(dir, "l")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for path, want := range map[string]string{
		filepath.Join(dir, "l", "new"): filepath.Join(real, "new"),
		dir + "/l/../x":                filepath.Join(dir, "a", "x"), // not Join, which would clean it
		"l/new":                        filepath.Join(real, "new"),
		"./l/../../y":                  filepath.Join(dir, "y"),
	} {
		got, err := resolve(path)
		if err != nil || got.name != want || got.st != nil {
			t.Errorf("resolve(%q) = %q, %v, %v; want %q, a new file", path, got.name, got.st, err, want)
		}
	}
}

// TestResolvePlantedDirLink: in a sticky world-writable directory, a
// directory symlink of another user is not followed on the way to -o's
// file either (protected_symlinks holds for every link of a walk).
func TestResolvePlantedDirLink(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (to plant a link of nobody's)")
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "d")
	if err := os.Symlink(t.TempDir(), link); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(link, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	_, err := resolve(filepath.Join(link, "out"))
	if err == nil || !strings.Contains(err.Error(), "protected_symlinks") {
		t.Errorf("resolve through %s: %v, want a refusal", link, err)
	}
}
