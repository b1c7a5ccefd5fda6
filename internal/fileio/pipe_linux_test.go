package fileio

import (
	"bytes"
	"io"
	"os"
	"testing"
	"time"
)

// TestPipeReaderWholeStream: the waiting pipe reader passes every byte in
// order and ends at EOF, whatever the writer's pace.
func TestPipeReaderWholeStream(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	in := StdinPipe(r)
	if _, ok := in.(*pipeReader); !ok {
		t.Fatalf("StdinPipe(pipe) = %T, want *pipeReader", in)
	}
	var want bytes.Buffer
	for i := 0; want.Len() < 3<<20; i++ {
		want.WriteString("line ")
		want.WriteString(time.Duration(i).String())
		want.WriteByte('\n')
	}
	go func() {
		data := want.Bytes()
		for i := 0; len(data) > 0; i++ {
			n := min(4096, len(data))
			w.Write(data[:n])
			data = data[n:]
			if i%200 == 0 {
				time.Sleep(3 * time.Millisecond) // a writer that pauses
			}
		}
		w.Close()
	}()
	got, err := io.ReadAll(in)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("read %d bytes, want %d (or they differ)", len(got), want.Len())
	}
}

// TestPipeReaderNoLongWait: a little data followed by a long pause is
// returned before the pause ends (the reader waits only while the pipe
// fills, and at most pipeNaps naps).
func TestPipeReaderNoLongWait(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	in := StdinPipe(r)
	w.Write([]byte("hello\n"))
	start := time.Now()
	buf := make([]byte, 1<<20)
	n, err := in.Read(buf)
	if err != nil || string(buf[:n]) != "hello\n" {
		t.Fatalf("Read = %q, %v", buf[:n], err)
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("Read took %v with data waiting", d)
	}
}

// TestStdinPipeNotAPipe: files are read as they are.
func TestStdinPipeNotAPipe(t *testing.T) {
	f, err := os.Open("../../testdata/traces/phases.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if in := StdinPipe(f); in != io.Reader(f) {
		t.Errorf("StdinPipe(file) = %T, want the file", in)
	}
}
