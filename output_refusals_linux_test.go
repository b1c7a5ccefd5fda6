//go:build linux

package main

// -o refuses what the shell's > would not be allowed to write: a symlink
// another user planted in a sticky world-writable directory, a file the
// user may not write, and the input itself; each left as it was.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// stranger is a uid that is neither the test's user, nobody, nor root.
const stranger = 4321

// refusalCase is one -o: who runs it, what is planted, and whether the
// shell's > would write it.
type refusalCase struct {
	name    string
	as      func(*testing.T, string) user
	dirMode os.FileMode // the output's directory
	dirUID  int
	link    int // uid of a symlink out -> target; -1: out is the target
	target  os.FileMode
	tUID    int // the target's owner
	written bool
	why     string // in the refusal's message
}

// TestOutputRefusals: a symlink planted in a sticky world-writable
// directory by neither the user nor the directory's owner is not
// followed (as the kernel's protected_symlinks), whoever runs it, nor is
// such a file written (as protected_regular); a file
// the user may not write is refused (root may, as its > may). What is
// refused is left with its contents and owner; what is allowed is
// written, in the file's mode and owner (in place where the rename could
// not keep the owner or cannot be done, as the shell's > writes it).
func TestOutputRefusals(t *testing.T) {
	bin := builtBinary(t)
	want := mustRun(t, "-q", trace("phases.txt"))
	for _, c := range []refusalCase{
		{"root, link planted in /tmp-like dir", asRoot, 0o1777, 0, nobody, 0o644, 0, false, "protected_symlinks"},
		{"nobody, link planted by another user", asNobody, 0o1777, 0, stranger, 0o644, nobody, false, "protected_symlinks"},
		{"nobody, link of the directory's owner", asNobody, 0o1777, 0, 0, 0o644, nobody, true, ""},
		{"nobody, own link", asNobody, 0o1777, 0, nobody, 0o644, nobody, true, ""},
		{"root, link of its own", asRoot, 0o1777, 0, 0, 0o644, 0, true, ""},
		{"nobody, own 0444 file", asNobody, 0o755, nobody, -1, 0o444, nobody, false, "permission denied"},
		{"nobody, root's 0644 file in own dir", asNobody, 0o755, nobody, -1, 0o644, 0, false, "permission denied"},
		{"nobody, 0444 file through own link", asNobody, 0o755, nobody, nobody, 0o444, nobody, false, "permission denied"},
		{"root, 0444 file", asRoot, 0o755, 0, -1, 0o444, nobody, true, ""},
		{"nobody, root's 0666 file in own dir", asNobody, 0o755, nobody, -1, 0o666, 0, true, ""},
		{"nobody, own file in root's dir", asNobody, 0o755, 0, -1, 0o644, nobody, true, ""},
		{"root, nobody's file in /tmp-like dir", asRoot, 0o1777, 0, -1, 0o666, nobody, false, "protected_regular"},
		{"nobody, another's 0666 file in /tmp-like dir", asNobody, 0o1777, 0, -1, 0o666, stranger, false, "protected_regular"},
		{"nobody, own file in /tmp-like dir", asNobody, 0o1777, 0, -1, 0o644, nobody, true, ""},
		{"nobody, the dir owner's 0666 file in /tmp-like dir", asNobody, 0o1777, 0, -1, 0o666, 0, true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			u := c.as(t, bin)
			dir := openTempDir(t)
			in := plant(t, filepath.Join(dir, "trace.txt"), readString(t, trace("phases.txt")), 0o644, u.uid)
			out := filepath.Join(dir, "out", "wall.folded")
			if err := os.Mkdir(filepath.Dir(out), 0o700); err != nil {
				t.Fatal(err)
			}
			target := plant(t, out, "root:x:0:0:root:/root:/bin/sh\n", c.target, c.tUID)
			if c.link >= 0 {
				target = plant(t, filepath.Join(dir, "out", "passwd"), "root:x:0:0:root:/root:/bin/sh\n", c.target, c.tUID)
				os.Remove(out)
				plant(t, out, target, os.ModeSymlink, c.link)
			}
			chownMode(t, filepath.Dir(out), c.dirUID, c.dirMode)
			stderr, code := u.run(t, dir, "-q", "-o", out, in)
			if c.written {
				if code != 0 {
					t.Fatalf("exit %d, want 0: %s", code, stderr)
				}
				hasContent(t, target, want)
				isMode(t, target, c.target)
				untouched(t, target, want, c.tUID) // its owner
			} else {
				if code != 2 || !strings.Contains(stderr, out) || !strings.Contains(stderr, c.why) {
					t.Errorf("exit %d, stderr %q; want 2 naming %s and %q", code, stderr, out, c.why)
				}
				untouched(t, target, "root:x:0:0:root:/root:/bin/sh\n", c.tUID)
			}
			noTemps(t, filepath.Dir(out))
		})
	}
}

// TestOutputIsInput: -o naming the input, by its name, a hard link, a
// symlink, or as the file on stdin, is refused (exit 2), for the test's
// user (root, or not) as for nobody, and the input is left as it was.
func TestOutputIsInput(t *testing.T) {
	bin := builtBinary(t)
	text := readString(t, trace("phases.txt"))
	for _, as := range []struct {
		name string
		f    func(*testing.T, string) user
	}{{"self", asSelf}, {"nobody", asNobody}} {
		for _, c := range []struct {
			name, out string
			args      []string
		}{
			{"same name", "trace.txt", []string{"trace.txt"}},
			{"hard link", "hard.txt", []string{"trace.txt"}},
			{"symlink", "link.txt", []string{"trace.txt"}},
			{"stdin", "trace.txt", nil},
		} {
			t.Run(as.name+", "+c.name, func(t *testing.T) {
				u := as.f(t, bin)
				dir := openTempDir(t)
				chownMode(t, dir, u.uid, 0o755)
				in := plant(t, filepath.Join(dir, "trace.txt"), text, 0o644, u.uid)
				os.Link(in, filepath.Join(dir, "hard.txt"))
				plant(t, filepath.Join(dir, "link.txt"), "trace.txt", os.ModeSymlink, u.uid)
				cmd := u.command(append([]string{"-q", "-o", c.out}, c.args...)...)
				cmd.Dir = dir
				if c.args == nil {
					cmd.Stdin = pipedFrom(t, in).(*os.File)
				}
				msg, err := cmd.CombinedOutput()
				if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(string(msg), c.out+": is the input") {
					t.Errorf("exit %d (%v), stderr %q; want 2 naming %s as the input", code, err, msg, c.out)
				}
				untouched(t, in, text, u.uid)
				noTemps(t, dir)
			})
		}
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// chownMode gives dir to uid with mode (sticky bit included).
func chownMode(t *testing.T, dir string, uid int, mode os.FileMode) {
	t.Helper()
	if err := os.Chown(dir, uid, uid); err != nil {
		t.Fatal(err)
	}
	perm := mode.Perm()
	if mode&0o1000 != 0 {
		perm |= os.ModeSticky
	}
	if err := os.Chmod(dir, perm); err != nil {
		t.Fatal(err)
	}
}

// noTemps checks that no temporary file of -o is left in dir.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	if ents, _ := filepath.Glob(filepath.Join(dir, ".*.tmp*")); len(ents) > 0 {
		t.Errorf("temporary files left: %v", ents)
	}
}

// TestOutputStdoutFile: -o /dev/stdout on a file the shell opened
// (wallfold -o /dev/stdout >> log), as the test's user and as nobody,
// appends to it: an open file is no refusal.
func TestOutputStdoutFile(t *testing.T) {
	bin := builtBinary(t)
	want := mustRun(t, "-q", trace("phases.txt"))
	for _, as := range []struct {
		name string
		f    func(*testing.T, string) user
	}{{"self", asSelf}, {"nobody", asNobody}} {
		t.Run(as.name, func(t *testing.T) {
			u := as.f(t, bin)
			dir := openTempDir(t)
			in := plant(t, filepath.Join(dir, "trace.txt"), readString(t, trace("phases.txt")), 0o644, u.uid)
			log := plant(t, filepath.Join(dir, "log"), "old\n", 0o644, u.uid)
			f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			cmd := u.command("-q", "-o", "/dev/stdout", in)
			cmd.Stdout = f
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%v: %s", err, stderr.String())
			}
			untouched(t, log, "old\n"+want, u.uid)
		})
	}
}
