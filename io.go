package main

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/wallfold/wallfold/parse"
)

// input is the text to read: a file or stdin, un-gzipped.
type input struct {
	r     io.Reader
	name  string
	stdin bool
	file  *os.File // the plain (seekable) file; nil for stdin and gzip
	close func()
}

// openInput opens path ("" or "-": stdin), transparently un-gzipping.
func openInput(path string, stdin io.Reader) (*input, error) {
	in := &input{r: stdin, name: "<stdin>", stdin: true, close: func() {}}
	if path != "" && path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		in = &input{r: f, name: path, file: f, close: func() { f.Close() }}
	}
	// Small: the parser reads through it in larger pieces (which then
	// go straight to the parser's buffer, uncopied).
	br := bufio.NewReaderSize(in.r, 64<<10)
	in.r = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			in.close()
			return nil, fmt.Errorf("%s: %v", in.name, err)
		}
		in.r, in.file = zr, nil
	}
	return in, nil
}

// lastTime returns the trace's last timestamp from a plain file's tail
// (for a time window in percent), 0 when it cannot be known beforehand.
func (in *input) lastTime() int64 {
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

// writeOutput writes to stdout, or to a temporary file beside path that is
// renamed when complete, so an interrupted run leaves no half profile.
func writeOutput(path string, stdout io.Writer, write func(io.Writer) error) error {
	if path == "" || path == "-" {
		if err := write(stdout); err != nil && !errors.Is(err, syscall.EPIPE) {
			return &exitError{2, fmt.Sprintf("<stdout>: %v", err)}
		} else if err != nil {
			return err
		}
		return nil
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return &exitError{2, err.Error()}
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return &exitError{2, fmt.Sprintf("%s: %v", path, err)}
	}
	if err := tmp.Close(); err != nil {
		return &exitError{2, fmt.Sprintf("%s: %v", path, err)}
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return &exitError{2, err.Error()}
	}
	return nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
