package parse

import (
	"fmt"
	"strings"
)

// howToConvert is what a Reader expects, for messages.
const howToConvert = "expected the text of `perf script` (e.g. perf script --show-switch-events --show-task-events | wallfold)"

// NotPerfScript explains, once the input has ended, why a Reader that
// skipped lines read no record at all: the input is a perf.data file,
// folded stacks, or something else. It is nil when a record was read or
// nothing was skipped (an empty input).
//
// A perf.data file is told by its magic ("PERFILE2" at offset 0) before
// anything of it is read, so that none of its bytes reach a record or a
// message.
func (r *Reader) NotPerfScript() error {
	if r.perfData {
		file := r.fileName
		if strings.HasPrefix(file, "<") {
			file = "FILE" // stdin: perf needs the file's name
		}
		return fmt.Errorf("%s: this is a perf.data file, not perf script text; convert it first: perf script -i %s --show-switch-events --show-task-events | wallfold", r.fileName, file)
	}
	if r.records > 0 || r.skipped == 0 || len(r.errs) == 0 {
		return nil
	}
	e := r.errs[0]
	what := "it is not perf script text"
	if looksFolded(e.Text) {
		what = "it looks like folded stacks already (the output of a stack collapser), not perf script text"
	}
	return fmt.Errorf("%s: no perf records in %d line(s): %s (line %d: %q); %s", e.FileName, r.Lines(), what, e.Line, e.Text, howToConvert)
}

// Warnings reports the skipped lines, the first few of them quoted, as
// one warning (none when nothing was skipped).
func (r *Reader) Warnings() []string {
	if r.skipped == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "skipped %d unparseable line(s) (and the samples they were part of):", r.skipped)
	for _, e := range r.errs {
		fmt.Fprintf(&b, "\n  %s: %q", e.Error(), e.Text)
	}
	return []string{b.String()}
}

// Empty reports an input with no record and nothing skipped (and no
// perf.data file).
func (r *Reader) Empty() bool { return r.records == 0 && r.skipped == 0 && !r.perfData }

// HowToConvert says what a Reader expects, for a message about an input.
func HowToConvert() string { return howToConvert }

// looksFolded reports "a;b;c 12" lines.
func looksFolded(line string) bool {
	i := strings.LastIndexByte(line, ' ')
	if i <= 0 || !strings.Contains(line[:i], ";") {
		return false
	}
	for _, c := range line[i+1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return i+1 < len(line)
}
