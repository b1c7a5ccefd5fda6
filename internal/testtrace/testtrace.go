// Package testtrace reads the perf script traces the tests run on, as
// the repository ships them under testdata: plain text or gzipped. Only
// tests import it.
package testtrace

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// Read returns the text of the file at path: un-gzipped when it starts
// with gzip's magic bytes (1f 8b), whatever its name, else as it is.
func Read(tb testing.TB, path string) []byte {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		return data
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	text, err := io.ReadAll(zr)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return text
}

// Shipped returns the paths of the text files under the testdata
// directory dir that tests read as perf script input: the recorded
// traces (traces/*.txt and traces/*.txt.gz) and the corpus files
// (corpus/*/*.txt and corpus/*/*.txt.gz). The corpus has one file that
// is not perf script, inferno's MANIFEST.txt: text a reader must get
// through all the same. It fails tb when there are none.
func Shipped(tb testing.TB, dir string) []string {
	tb.Helper()
	var paths []string
	for _, g := range []string{"traces/*.txt", "traces/*.txt.gz", "corpus/*/*.txt", "corpus/*/*.txt.gz"} {
		m, err := filepath.Glob(filepath.Join(dir, g))
		if err != nil {
			tb.Fatal(err)
		}
		paths = append(paths, m...)
	}
	if len(paths) == 0 {
		tb.Fatalf("no traces under %s", dir)
	}
	return paths
}
