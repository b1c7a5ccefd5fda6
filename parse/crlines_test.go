package parse

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/wallfold/wallfold/internal/testtrace"
)

// TestBareCRsAnywhere: a bare CR ends a line as a LF does, wherever it
// falls in a long input: a trace (several read buffers long) with every
// 997th LF made a CR (but those before a LF), and with its first CRs after hundreds of KB of
// plain lines, reads as the trace itself, line numbers and all.
func TestBareCRsAnywhere(t *testing.T) {
	data := testtrace.Read(t, filepath.Join("..", "testdata", "traces", "phases.txt"))
	if len(data) < 600<<10 {
		t.Fatalf("phases.txt is %d bytes: too short to span read buffers", len(data))
	}
	want := transcriptWith(data, false, maxTableLines, nil)
	for _, from := range []int{0, 300 << 10, len(data) - 5000} {
		cr := bytes.Clone(data)
		n := 0
		for i := from; i < len(cr); i++ {
			if cr[i] == '\n' {
				// Not before another LF: CR LF is one line end.
				if n%997 == 0 && i+1 < len(cr) && cr[i+1] != '\n' {
					cr[i] = '\r'
				}
				n++
			}
		}
		if got := transcriptWith(cr, false, maxTableLines, nil); got != want {
			t.Errorf("CRs from byte %d: the records differ from those of the LF trace", from)
		}
	}
}
