//go:build linux

package main

// -o on what a path can name on Linux: a device, a FIFO, a pipe or an
// open file behind /proc/self/fd, symlinks (kept, and their target
// written), files in their mode or under the umask; a dangling symlink.

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOutputTargets: -o writes a regular file by a rename (in the target's
// mode, or 0666 less the umask for a new one), follows symlinks to their
// target and keeps them, and writes anything else (a device, a FIFO, an
// open file behind /proc/self/fd) in place, never replacing it.
func TestOutputTargets(t *testing.T) {
	want, _, code := wallfold(t, "-q", trace("phases.txt"))
	if code != 0 || want == "" {
		t.Fatalf("stdout run: exit %d, %d bytes", code, len(want))
	}
	for _, tt := range []struct {
		name  string
		setup outputTarget
	}{
		{"char device", charDeviceTarget},
		{"fifo", fifoTarget},
		{"pipe behind /proc/self/fd", procPipeTarget},
		{"appended file behind /proc/self/fd", procAppendedTarget},
		{"symlink", symlinkTarget},
		{"symlink chain", symlinkChainTarget},
		{"existing 0640 file", existingFileTarget},
		{"new file, umask 022", newFileTarget(0o022, 0o644)},
		{"new file, umask 077", newFileTarget(0o077, 0o600)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			out, check := tt.setup(t, dir, want)
			stdout, stderr, code := wallfold(t, "-q", "-o", out, trace("phases.txt"))
			if code != 0 || stdout != "" {
				t.Errorf("exit %d, %d bytes on stdout; stderr %q", code, len(stdout), stderr)
			}
			check(t)
			for _, pat := range []string{".*.tmp*", "*/.*.tmp*"} {
				if ents, _ := filepath.Glob(filepath.Join(dir, pat)); len(ents) > 0 {
					t.Errorf("temporary files left: %v", ents)
				}
			}
		})
	}
}

// An outputTarget makes in dir what -o names and returns it, with the
// checks to run after the run; want is what the run writes on stdout.
type outputTarget func(t *testing.T, dir, want string) (out string, check func(t *testing.T))

// Written in place: a device, a FIFO, an open file behind /proc/self/fd.

func charDeviceTarget(t *testing.T, dir, want string) (string, func(*testing.T)) {
	if os.Geteuid() != 0 {
		t.Skip("mknod needs root")
	}
	null := filepath.Join(dir, "null")
	// 1,3 is /dev/null; the old encoding, (major<<8)|minor, holds it.
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Skipf("mknod %s (1,3): %v", null, err)
	}
	return null, func(t *testing.T) {
		isMode(t, null, fs.ModeDevice|fs.ModeCharDevice)
	}
}

func fifoTarget(t *testing.T, dir, want string) (string, func(*testing.T)) {
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := readAsync(t, func() (io.ReadCloser, error) { return os.Open(fifo) })
	return fifo, func(t *testing.T) {
		if s := recv(t, got); s != want {
			t.Errorf("the FIFO's reader got %d bytes, want the %d of stdout", len(s), len(want))
		}
		isMode(t, fifo, fs.ModeNamedPipe)
	}
}

func procPipeTarget(t *testing.T, dir, want string) (string, func(*testing.T)) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	got := readAsync(t, func() (io.ReadCloser, error) { return r, nil })
	return fmt.Sprintf("/proc/self/fd/%d", w.Fd()), func(t *testing.T) {
		w.Close()
		if s := recv(t, got); s != want {
			t.Errorf("the pipe's reader got %d bytes, want the %d of stdout", len(s), len(want))
		}
	}
}

func procAppendedTarget(t *testing.T, dir, want string) (string, func(*testing.T)) {
	// wallfold -o /dev/stdout >> log: the log keeps its lines.
	log := writeFile(t, filepath.Join(dir, "log"), 0o644)
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return fmt.Sprintf("/proc/self/fd/%d", f.Fd()), func(t *testing.T) {
		hasContent(t, log, "old\n"+want)
	}
}

// Replaced by a rename: a regular file, also at the end of symlinks.

func symlinkTarget(t *testing.T, dir, want string) (string, func(*testing.T)) {
	target := writeFile(t, filepath.Join(dir, "target"), 0o644)
	link := symlink(t, target, filepath.Join(dir, "link"))
	return link, func(t *testing.T) {
		isLink(t, link, target)
		hasContent(t, target, want)
		isMode(t, target, 0o644)
	}
}

func symlinkChainTarget(t *testing.T, dir, want string) (string, func(*testing.T)) {
	// link1 -> link2 (relative) -> sub/link3 -> ../target (relative
	// to sub, as the kernel reads it).
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	target := writeFile(t, filepath.Join(dir, "target"), 0o644)
	link3 := symlink(t, "../target", filepath.Join(dir, "sub", "link3"))
	link2 := symlink(t, "sub/link3", filepath.Join(dir, "link2"))
	link1 := symlink(t, "link2", filepath.Join(dir, "link1"))
	return link1, func(t *testing.T) {
		isLink(t, link1, "link2")
		isLink(t, link2, "sub/link3")
		isLink(t, link3, "../target")
		hasContent(t, target, want)
	}
}

func existingFileTarget(t *testing.T, dir, want string) (string, func(*testing.T)) {
	out := writeFile(t, filepath.Join(dir, "out"), 0o640)
	return out, func(t *testing.T) {
		hasContent(t, out, want)
		isMode(t, out, 0o640)
	}
}

// newFileTarget: a file -o creates, under umask mask, gets mode.
func newFileTarget(mask int, mode fs.FileMode) outputTarget {
	return func(t *testing.T, dir, want string) (string, func(*testing.T)) {
		setUmask(t, mask)
		out := filepath.Join(dir, "out")
		return out, func(t *testing.T) {
			hasContent(t, out, want)
			isMode(t, out, mode)
		}
	}
}

// A dangling symlink is an error (exit 2, naming the missing target), and
// nothing is created where it points.
func TestOutputDanglingSymlink(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")
	link := symlink(t, missing, filepath.Join(dir, "link"))
	_, stderr, code := wallfold(t, "-q", "-o", link, trace("phases.txt"))
	if code != 2 || !strings.Contains(stderr, missing) {
		t.Errorf("exit %d, stderr %q; want 2 naming %s", code, stderr, missing)
	}
	isLink(t, link, missing)
	if _, err := os.Lstat(missing); !os.IsNotExist(err) {
		t.Errorf("%s: %v, want it not created", missing, err)
	}
}

// readAsync reads all of what open gives, in a goroutine (opening a FIFO
// waits for its writer).
func readAsync(t *testing.T, open func() (io.ReadCloser, error)) <-chan string {
	got := make(chan string, 1)
	go func() {
		r, err := open()
		if err != nil {
			t.Error(err)
			got <- ""
			return
		}
		defer r.Close()
		b, err := io.ReadAll(r)
		if err != nil {
			t.Error(err)
		}
		got <- string(b)
	}()
	return got
}

// recv waits a while for what readAsync read ("" when it never comes: the
// writer never opened the FIFO).
func recv(t *testing.T, got <-chan string) string {
	t.Helper()
	select {
	case s := <-got:
		return s
	case <-time.After(10 * time.Second):
		t.Error("the reader got nothing in 10 s")
		return ""
	}
}

func writeFile(t *testing.T, path string, perm fs.FileMode) string {
	t.Helper()
	if err := os.WriteFile(path, []byte("old\n"), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil { // past the umask
		t.Fatal(err)
	}
	return path
}

func symlink(t *testing.T, target, link string) string {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	return link
}

func setUmask(t *testing.T, mask int) {
	old := syscall.Umask(mask)
	t.Cleanup(func() { syscall.Umask(old) })
}

// isMode checks path's type bits and, when perm has some, its permissions.
func isMode(t *testing.T, path string, mode fs.FileMode) {
	t.Helper()
	st, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Type() != mode.Type() || mode.Perm() != 0 && st.Mode().Perm() != mode.Perm() {
		t.Errorf("%s: mode %v, want %v", path, st.Mode(), mode)
	}
}

func isLink(t *testing.T, link, target string) {
	t.Helper()
	if got, err := os.Readlink(link); err != nil || got != target {
		t.Errorf("%s: no longer a symlink to %s (%q, %v)", link, target, got, err)
	}
}

func hasContent(t *testing.T, path, want string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != want {
		t.Errorf("%s: %d bytes, want %d (starts %q)", path, len(b), len(want), b[:min(len(b), 40)])
	}
}
