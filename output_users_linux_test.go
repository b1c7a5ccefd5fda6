//go:build linux

package main

// How the refusal tests run wallfold as a user: the built binary, as
// the test's own user (root on the CI machine) or, dropped with setpriv,
// as nobody.

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// nobody is the unprivileged user the tests become (Debian's nobody).
const nobody = 65534

// user runs the built wallfold as one user.
type user struct {
	bin  string
	uid  int      // the uid it runs as
	wrap []string // the command that drops privileges, if any
}

// builtBinary builds wallfold into a directory anyone may read, for the
// test (a few seconds with a warm build cache).
func builtBinary(t *testing.T) string {
	t.Helper()
	dir := openTempDir(t)
	bin := filepath.Join(dir, "wallfold")
	if b, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, b)
	}
	return bin
}

// openTempDir is t.TempDir, open to every user (the binary, inputs and
// outputs of a run as nobody live there).
func openTempDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// asSelf is the binary run by the test's own user, whoever it is.
func asSelf(t *testing.T, bin string) user { return user{bin: bin, uid: os.Geteuid()} }

// asRoot is the binary run by the test's user, which must be root (the
// test is skipped, saying why, otherwise).
func asRoot(t *testing.T, bin string) user {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root (to plant files of other users): run the tests as root")
	}
	return user{bin: bin, uid: 0}
}

// asNobody is the binary run as nobody through setpriv; skipped, saying
// why, where privileges cannot be dropped.
func asNobody(t *testing.T, bin string) user {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to become nobody with setpriv: run the tests as root")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("setpriv not found (util-linux): cannot run as nobody")
	}
	u := user{bin: bin, uid: nobody, wrap: []string{setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"}}
	if out, err := exec.Command(setpriv, append(u.wrap[1:], "true")...).CombinedOutput(); err != nil {
		t.Skipf("setpriv cannot drop privileges here: %v %s", err, out)
	}
	return u
}

// command is `wallfold args...` as u.
func (u user) command(args ...string) *exec.Cmd {
	argv := append(append(append([]string(nil), u.wrap...), u.bin), args...)
	return exec.Command(argv[0], argv[1:]...)
}

// run runs wallfold as u in dir and returns its stderr and exit status.
func (u user) run(t *testing.T, dir string, args ...string) (stderr string, code int) {
	t.Helper()
	cmd := u.command(args...)
	cmd.Dir = dir
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return errb.String(), ee.ExitCode()
	case err != nil:
		t.Fatalf("%v: %v", cmd.Args, err)
	}
	return errb.String(), 0
}

// plant writes a file of content and mode for uid, or a symlink to
// target (content "") owned by uid.
func plant(t *testing.T, path, content string, mode os.FileMode, uid int) string {
	t.Helper()
	if mode&os.ModeSymlink != 0 {
		symlink(t, content, path)
		if err := os.Lchown(path, uid, uid); err != nil {
			t.Fatal(err)
		}
		return path
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, uid, uid); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	return path
}

// untouched checks that path has content and owner uid (still, or as written).
func untouched(t *testing.T, path, content string, uid int) {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != content || int(st.Uid) != uid {
		t.Errorf("%s: %d bytes, owner %d; want %d bytes, owner %d", path, len(b), st.Uid, len(content), uid)
	}
}
