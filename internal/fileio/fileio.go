// Package fileio owns wallfold's files: it opens the input (a file or
// stdin, un-gzipped; a pipe read in large pieces) and writes an output
// where the shell's redirection would be allowed to, atomically for a
// regular file, whose temporary file a signal removes. It knows
// nothing of the trace's contents but its last timestamp and its tasks,
// which it asks parse for.
package fileio

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/wallfold/wallfold/parse"
)

// Input is the text to read: a file or stdin, un-gzipped.
type Input struct {
	R     io.Reader
	Name  string // for messages: the path, or <stdin>
	Stdin bool
	path  string
	file  *os.File    // the plain (seekable) file; nil for stdin and gzip
	info  fs.FileInfo // the file or stdin read, which no output may replace; nil: unknown
	close func()
}

// Open opens path ("" or "-": stdin), transparently un-gzipping.
func Open(path string, stdin io.Reader) (*Input, error) {
	in := &Input{R: stdin, Name: "<stdin>", Stdin: true, close: func() {}}
	if path != "" && path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		in = &Input{R: f, Name: path, path: path, file: f, close: func() { f.Close() }}
	}
	if f, ok := in.R.(interface{ Stat() (fs.FileInfo, error) }); ok {
		in.info, _ = f.Stat() // of the open file: also through a link or another name
	}
	// Small: the parser reads through it in larger pieces (which then
	// go straight to the parser's buffer, uncopied).
	br := bufio.NewReaderSize(in.R, 64<<10)
	in.R = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			in.close()
			return nil, fmt.Errorf("%s: %v", in.Name, err)
		}
		in.R, in.file = zr, nil
	}
	return in, nil
}

// Close closes the file.
func (in *Input) Close() { in.close() }

// Regular reports a regular file, which can be read again.
func (in *Input) Regular() bool {
	if in.Stdin {
		return false
	}
	st, err := os.Stat(in.path)
	return err == nil && st.Mode().IsRegular()
}

// Plain returns the input's file and its size when it is a regular file
// read as it is (not stdin, not gzip): one that can be read at any offset,
// in parallel.
func (in *Input) Plain() (io.ReaderAt, int64, bool) {
	if in.file == nil {
		return nil, 0, false
	}
	st, err := in.file.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return nil, 0, false
	}
	return in.file, st.Size(), true
}

// Tasks reads the file once more for its threads' processes and parents
// (parse.ScanTaskIDs; a plain file in chunks on several CPUs).
func (in *Input) Tasks(fn func(parse.TaskID)) error {
	if f, size, ok := in.Plain(); ok {
		return parse.ScanFileTaskIDs(f, size, fn)
	}
	again, err := Open(in.path, nil)
	if err != nil {
		return err
	}
	defer again.Close()
	return parse.ScanTaskIDs(again.R, fn)
}

// LastTime returns the trace's last timestamp from a plain file's tail
// (for a time window in percent), 0 when it cannot be known beforehand.
func (in *Input) LastTime() int64 {
	if in.file == nil {
		return 0
	}
	st, err := in.file.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return 0
	}
	last, _ := parse.LastTime(in.file, st.Size())
	return last
}

// Error is an output that could not be written, or a path that cannot
// be one (the caller's exit status 2).
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// ExitCode is 2, as for any file wallfold cannot use.
func (e *Error) ExitCode() int { return 2 }

// Write writes to stdout or to path as the shell's > would be allowed
// to: what it could not write is refused (resolve, mayWrite), and so is
// the input itself (in; nil: none), which a profile must not replace. A
// regular file, or a new one, is written to a temporary file beside it
// that is renamed over it when complete, so an interrupted run leaves no
// half profile; a symlink is followed, and the rename is beside its final
// target, so the link stays. A regular file with other hard links, and
// anything else (a device, a FIFO, /dev/stdout on a pipe), is written in
// place, never removed or replaced.
// Errors are *Error but those writeTo passes on.
func Write(path string, stdout io.Writer, in *Input, write func(io.Writer) error) error {
	if path == "" || path == "-" {
		return writeTo(stdout, "<stdout>", write)
	}
	t, err := resolve(path)
	if err != nil {
		var fe *Error
		if errors.As(err, &fe) {
			return err
		}
		return &Error{err.Error()}
	}
	regular := t.st != nil && t.st.Mode().IsRegular()
	if regular && in != nil && in.info != nil && os.SameFile(in.info, t.st) {
		return &Error{fmt.Sprintf("%s: is the input %s (the same file): wallfold does not write over the trace it reads; choose another -o", path, in.Name)}
	}
	if regular && !t.inProc { // an open file behind /proc: the open below checks
		if err := mayWrite(path, t.name, t.st); err != nil {
			return err
		}
	}
	if t.inProc && regular {
		// An open file behind /proc (wallfold -o /dev/stdout >> log):
		// appended to, as the shell's redirection left it.
		return writeInPlace(path, os.O_WRONLY|os.O_APPEND, write)
	}
	if t.inProc || t.st != nil && !regular {
		return writeInPlace(path, os.O_WRONLY, write)
	}
	if regular && otherLinks(t.st) {
		// A file of several names: written in place, as > writes it, so
		// that every name has the profile (not atomic then, as > is not).
		return writeInPlace(t.name, os.O_WRONLY|os.O_TRUNC, write)
	}
	return writeReplacing(t.name, t.st, write)
}

// Check tells, before anything is written, what Write would refuse of
// path for what it is now (a symlink another user planted, a file the
// user may not write): `wallfold record` asks before its command runs.
// Other errors (a missing directory) are left to the caller and Write.
func Check(path string) error {
	if path == "" || path == "-" {
		return nil
	}
	t, err := resolve(path)
	var fe *Error
	if errors.As(err, &fe) {
		return err
	}
	if err != nil || t.inProc || t.st == nil || !t.st.Mode().IsRegular() {
		return nil
	}
	return mayWrite(path, t.name, t.st)
}

// writeTo writes to w. An error of write that carries its own exit
// status (the run's verdict: -f trace reads while it writes) or says
// that the reader stopped early (EPIPE) is returned as it is; any other
// is the output's.
func writeTo(w io.Writer, name string, write func(io.Writer) error) error {
	var ec interface{ ExitCode() int }
	if err := write(w); errors.Is(err, syscall.EPIPE) || errors.As(err, &ec) {
		return err
	} else if err != nil {
		return &Error{fmt.Sprintf("%s: %v", name, err)}
	}
	return nil
}

// writeInPlace opens path as it is with flag (O_WRONLY and more),
// creating nothing.
func writeInPlace(path string, flag int, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return &Error{err.Error()}
	}
	err = writeTo(f, path, write)
	if cerr := f.Close(); err == nil && cerr != nil {
		return &Error{fmt.Sprintf("%s: %v", path, cerr)}
	}
	return err
}

// writeReplacing writes a temporary file beside target and renames it over
// target; st is target's, nil for a new file. The mode is the existing
// file's permissions, else 0666 less the umask: the kernel applies the
// umask when it creates the file, race-free, where reading it with
// syscall.Umask(0) would change it for the whole process for a while.
// The owner and group are the existing file's too; where the rename
// cannot keep them (another's file we may write, but not give away) or
// cannot be done (the directory is closed to us, the file open), the
// file is truncated and written in place, as the shell's > does.
func writeReplacing(target string, st fs.FileInfo, write func(io.Writer) error) error {
	perm := fs.FileMode(0o666)
	if st != nil {
		perm = st.Mode().Perm() // never more open than the file, even for a moment
	}
	tmp, err := createTemp(target, perm)
	if err != nil && st != nil && errors.Is(err, fs.ErrPermission) {
		return writeInPlace(target, os.O_WRONLY|os.O_TRUNC, write)
	} else if err != nil {
		return &Error{err.Error()}
	}
	defer removeTemp(tmp.Name())
	if st != nil {
		if keepOwner(tmp, st) != nil {
			tmp.Close()
			removeTemp(tmp.Name())
			return writeInPlace(target, os.O_WRONLY|os.O_TRUNC, write)
		}
		if err := tmp.Chmod(perm); err != nil { // the bits the umask took
			tmp.Close()
			return &Error{err.Error()}
		}
	}
	if err := writeTo(tmp, target, write); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return &Error{fmt.Sprintf("%s: %v", target, err)}
	}
	if err := renameTemp(tmp.Name(), target); err != nil {
		return &Error{err.Error()}
	}
	return nil
}

// createTemp creates a new file ".NAME.tmpN" beside path, with perm less
// the umask, and registers it in temps (a signal removes it).
func createTemp(path string, perm fs.FileMode) (*os.File, error) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	temps.Lock()
	defer temps.Unlock()
	for try := 0; ; try++ {
		name := filepath.Join(dir, "."+base+".tmp"+strconv.FormatUint(uint64(rand.Uint32()), 10))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) && try < 100 {
			continue
		}
		if err == nil {
			temps.names[name] = struct{}{}
		}
		return f, err
	}
}

// IsTerminal reports a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
