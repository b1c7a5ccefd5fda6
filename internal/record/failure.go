package record

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
)

// tailLines is how many of perf's last stderr lines a failure quotes.
const tailLines = 8

// tail keeps the first and the last lines written to it and passes
// everything on to out (nil: nowhere). The first tell a usage error (perf
// prints its option list after it), the last a crash.
type tail struct {
	mu    sync.Mutex
	out   io.Writer
	first []byte // at most tailKeep bytes
	last  []byte // at most tailKeep bytes
	all   int    // bytes written
}

// tailKeep bounds what tail keeps: perf's messages are short, a flood of
// them is not kept whole.
const tailKeep = 16 << 10

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.out != nil {
		t.out.Write(b)
	}
	if n := min(len(b), tailKeep-len(t.first)); n > 0 {
		t.first = append(t.first, b[:n]...)
	}
	t.all += len(b)
	t.last = append(t.last, b...)
	if len(t.last) > tailKeep {
		t.last = append(t.last[:0], t.last[len(t.last)-tailKeep:]...)
	}
	return len(b), nil
}

// headLines is how many of perf's first stderr lines a failure quotes
// when there were more than it quotes of the last.
const headLines = 3

// lines is the first headLines and the last n lines written, each
// indented (all of them when they are few).
func (t *tail) lines(n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	split := func(b []byte) []string {
		return strings.Split(strings.TrimRight(string(bytes.ToValidUTF8(b, nil)), "\n"), "\n")
	}
	ls := split(t.last)
	if len(ls) == 1 && ls[0] == "" {
		return "  (nothing on its stderr)"
	}
	if t.all <= tailKeep && len(ls) <= n+headLines {
		return "  | " + strings.Join(ls, "\n  | ")
	}
	head := split(t.first)
	head = head[:min(headLines, len(head))]
	ls = ls[max(0, len(ls)-n):]
	return "  | " + strings.Join(head, "\n  | ") + "\n  | ...\n  | " + strings.Join(ls, "\n  | ")
}

// perfHeaderDataSize is the offset of the data section's size in a
// perf.data header (magic, header size, attr size, attrs {offset, size},
// data {offset, size}): perf writes it when it finishes a recording, and a
// perf that died before leaves 0 ("data size field is 0", perf script says).
const perfHeaderDataSize = 48

// finished tells whether the perf.data in f was closed by perf.
func finished(f *os.File) bool {
	var h [perfHeaderDataSize + 8]byte
	if _, err := f.ReadAt(h[:], 0); err != nil {
		return false
	}
	return string(h[:8]) == "PERFILE2" && binary.LittleEndian.Uint64(h[perfHeaderDataSize:]) != 0
}

// howEnded says how a process ended: "exit status N" or "signal N (NAME)".
func howEnded(ws syscall.WaitStatus) string {
	if ws.Signaled() {
		return fmt.Sprintf("signal %d (%s)", int(ws.Signal()), signalName(ws.Signal()))
	}
	return fmt.Sprintf("exit status %d", ws.ExitStatus())
}

// crashSignal tells a signal a program gets for its own fault.
func crashSignal(s syscall.Signal) bool {
	switch s {
	case syscall.SIGSEGV, syscall.SIGABRT, syscall.SIGBUS, syscall.SIGILL, syscall.SIGFPE:
		return true
	}
	return false
}

// signalName is the signal's SIGNAME.
func signalName(s syscall.Signal) string {
	names := map[syscall.Signal]string{syscall.SIGSEGV: "SIGSEGV", syscall.SIGABRT: "SIGABRT", syscall.SIGBUS: "SIGBUS",
		syscall.SIGKILL: "SIGKILL", syscall.SIGTERM: "SIGTERM", syscall.SIGINT: "SIGINT", syscall.SIGILL: "SIGILL",
		syscall.SIGFPE: "SIGFPE", syscall.SIGHUP: "SIGHUP", syscall.SIGQUIT: "SIGQUIT", syscall.SIGPIPE: "SIGPIPE"}
	if n, ok := names[s]; ok {
		return n
	}
	return s.String()
}

// perfFailed is the error of a perf that did not finish: how it ended,
// its last lines, and what to try. Its exit status is wallfold's own (2),
// not the command's.
func perfFailed(what string, ws syscall.WaitStatus, stderr *tail, recipe string, withBuildIDs bool) *Error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s failed (%s) before finishing its recording: no profile written. Its last lines on stderr:\n%s\n",
		what, howEnded(ws), stderr.lines(tailLines))
	b.WriteString("What to try: ")
	last := stderr.lines(tailLines)
	buildIDs := strings.Contains(last, "build-id") || strings.Contains(last, "build_id") || strings.Contains(last, "buildid")
	switch {
	case withBuildIDs && (buildIDs || ws.Signaled() && crashSignal(ws.Signal())):
		b.WriteString("without --buildid (perf 6.1 crashes at its end on build ids, util/build-id.c); ")
	case ws.Signaled() && crashSignal(ws.Signal()):
		b.WriteString("perf crashed: another perf version, or a smaller recording (lower -F, --call-graph fp); ")
	}
	fmt.Fprintf(&b, "the recording by hand, to see perf fail alone:\n  %s", recipe)
	return &Error{Code: 2, Msg: b.String()}
}
