package fold

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/wallfold/wallfold/emit"
)

// A gzip cut short is named as such, with how much text it gave; what
// was read is still written (a profile of its own), then the run fails
// with exit status 2. It was "unexpected EOF", with nothing written.
func TestRunTruncatedGzip(t *testing.T) {
	var text strings.Builder
	for i := 0; i < 200; i++ {
		text.WriteString(strings.ReplaceAll(twoThreads, "     1.00", fmt.Sprintf("%6d.00", i+1))) // one each second
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte(text.String()))
	zw.Close()
	cut := z.Bytes()[:z.Len()/2]
	for _, format := range []emit.Format{emit.Folded, emit.ChromeTrace} {
		zr, err := gzip.NewReader(bytes.NewReader(cut))
		if err != nil {
			t.Fatal(err)
		}
		var out, stderr bytes.Buffer
		r, err := New(Config{Output: emit.Options{Format: format}, Stderr: &stderr}, Input{R: zr, Name: "t.gz", Stdin: true})
		if err != nil {
			t.Fatal(err)
		}
		err = r.Stream(&out)
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != 2 || !strings.Contains(ee.Msg, "t.gz: gzip: unexpected end of file after ") ||
			!strings.Contains(ee.Msg, "bytes of text: the file is truncated") {
			t.Errorf("%v: error %v, want exit 2 naming the truncated gzip", format, err)
		}
		if !strings.Contains(out.String(), "together") {
			t.Errorf("%v: nothing of what was read written: %q", format, out.String())
		}
	}
}
