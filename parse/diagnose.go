package parse

import (
	"bytes"
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
	if e.OverLimit {
		return fmt.Errorf("%s: no perf records in %d line(s); line %d: %s (binary data, a file without line ends, or a corrupt trace?); %s", e.FileName, r.Lines(), e.Line, e.Msg, howToConvert)
	}
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

// FieldCheck tells, at the end of the input, which of the fields that
// perf script -F can leave out the samples of the profiled event lack:
// the period (the weight: for cpu-clock and task-clock, CPU time), the
// time (parallelism and spans) and the tid (whose threads run). perf
// prints the same fields on every sample of an event, so a field is
// missing when no sample of the event prints it; one odd sample without
// it (a line cut short) does not reject a trace. Feed it every sample of
// the profiled event (Add), then ask Err and Warnings.
type FieldCheck struct {
	fileName string
	samples  int
	line     int    // the first sample's line
	event    []byte // the first sample's event
	clock    bool   // ... is a clock: its period is CPU time

	period, time, tid bool // some sample printed it

	// A word between what looks like the tid (or cpu) and the time in
	// the first sample without a tid: a column the header reader does not
	// know, named in the error.
	strayCol  []byte
	strayLine int
}

// NewFieldCheck returns a FieldCheck; fileName is used in errors.
func NewFieldCheck(fileName string) *FieldCheck { return &FieldCheck{fileName: fileName} }

// Add notes a sample of the profiled event.
func (f *FieldCheck) Add(rec *Record) {
	if f.samples == 0 {
		f.line = rec.Line
		f.event = append([]byte(nil), rec.Event...)
		f.clock = IsClockEvent(rec.Event)
	}
	f.samples++
	f.period = f.period || rec.HasPeriod
	f.time = f.time || rec.HasTime
	f.tid = f.tid || rec.HasTID
	if !rec.HasTID && f.strayLine == 0 {
		f.strayLine = rec.Line
		f.strayCol = append([]byte(nil), strayColumn(rec.Comm)...)
	}
}

// strayColumn returns the last word of a comm that ends in "PID WORD" or
// "PID [CPU] WORD": the header reader took them for the comm because it
// does not know WORD's column (nil when the comm does not end so).
func strayColumn(comm []byte) []byte {
	w := bytes.Fields(comm)
	if len(w) < 3 {
		return nil
	}
	at := len(w) - 2
	if isCPUTok(w[at]) {
		at--
	}
	if at < 1 || !isPidTok(w[at]) {
		return nil
	}
	return w[len(w)-1]
}

// FieldError says which fields the samples of the profiled event lack,
// at the line of its first sample.
type FieldError struct {
	FileName string
	Line     int
	Event    string
	Fields   []string // "period", "time", "tid": perf script's names
	why      []string // what each one's absence does
}

func (e *FieldError) Error() string {
	var what, add strings.Builder
	for i, f := range e.Fields {
		if i > 0 {
			what.WriteString(" and ")
			add.WriteString(",")
		}
		fmt.Fprintf(&what, "no %s (%s)", f, e.why[i])
		add.WriteString("+" + f)
	}
	them := "it"
	if len(e.Fields) > 1 {
		them = "them"
	}
	return fmt.Sprintf("%s:%d: the samples of %s print %s; add -F %s to perf script (or leave out -F: perf's default fields have %s)",
		e.FileName, e.Line, e.Event, what.String(), add.String(), them)
}

// Err returns a *FieldError when the samples lack a field that the
// profile cannot be made without: the time or the tid, or the period of
// a clock event (the sample counts would pass for CPU time). With strict,
// any event's missing period is one too. Nil when nothing is missing or
// no sample was noted.
func (f *FieldCheck) Err(strict bool) error {
	if f.samples == 0 {
		return nil
	}
	e := &FieldError{FileName: f.fileName, Line: f.line, Event: string(f.event)}
	if !f.period && (f.clock || strict) {
		why := "each sample would weigh 1, not its CPU time"
		if !f.clock {
			why = "each sample would weigh 1, not its count of " + string(EventBase(f.event))
		}
		e.Fields, e.why = append(e.Fields, "period"), append(e.why, why)
	}
	if !f.time {
		e.Fields, e.why = append(e.Fields, "time"), append(e.why, "without timestamps there is no parallelism or span")
	}
	if !f.tid {
		why := "without it the threads cannot be told apart"
		if f.strayCol != nil {
			why += fmt.Sprintf("; or line %d has a column wallfold does not read: %q before the time, after what looks like the tid; leave that field out of -F", f.strayLine, f.strayCol)
		}
		e.Fields, e.why = append(e.Fields, "tid"), append(e.why, why)
	}
	if len(e.Fields) == 0 {
		return nil
	}
	return e
}

// Warnings says what a profile made anyway lacks: the period of an event
// that is no clock (each sample then weighs 1, as stack collapsers have
// it for old perf's output).
func (f *FieldCheck) Warnings() []string {
	if f.samples == 0 || f.period || f.clock {
		return nil
	}
	return []string{fmt.Sprintf("%s:%d: the samples of %s print no period: each weighs 1 (sample counts, not counts of %s); add -F +period to perf script", f.fileName, f.line, f.event, EventBase(f.event))}
}
