package main

// Where the output goes: -o FILE written whole or not at all, a closed
// stdout. output_linux_test.go has -o on other targets than a plain file.

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// -o writes a temporary file and renames it: a failed run leaves the old
// file alone and no debris.
func TestOutputFileAtomic(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "wall.folded")
	if err := os.WriteFile(out, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte(goodSample+"garbage\n"), 0o644)
	if _, _, code := wallfold(t, "--strict", "-o", out, bad); code != 1 {
		t.Fatalf("exit %d", code)
	}
	if b, _ := os.ReadFile(out); string(b) != "old\n" {
		t.Errorf("failed run changed the output: %q", b)
	}
	if _, _, code := wallfold(t, "-q", "-o", out, trace("phases.txt")); code != 0 {
		t.Fatalf("exit %d", code)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Errorf("debris in the output directory: %v", ents)
	}
	b, _ := os.ReadFile(out)
	parseFolded(t, string(b))
}

// A closed stdout (wallfold trace | head -1) ends the run quietly.
func TestClosedStdout(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "wallfold")
	if b, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, b)
	}
	// example-perf-stacks gives 600 kB of folded output: more than a pipe holds.
	for _, args := range [][]string{{"-q", "--addrs", "--weight=cpu", "testdata/corpus/flamegraph/example-perf-stacks.txt.gz"}, {"-q", "-f", "summary", trace("syswide.txt")}} {
		cmd := exec.Command(bin, args...)
		stdout, _ := cmd.StdoutPipe()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 10)
		io.ReadFull(stdout, buf)
		stdout.Close()
		err := cmd.Wait()
		if stderr.Len() > 0 {
			t.Errorf("%v: error text on a closed pipe: %q", args, stderr.String())
		}
		if err != nil {
			// The usual SIGPIPE death is fine; any other exit is not.
			if ee, ok := err.(*exec.ExitError); !ok || !strings.Contains(ee.String(), "broken pipe") {
				t.Errorf("%v: %v", args, err)
			}
		}
	}
}
