// Package parse owns the text that `perf script` prints: it turns it into
// a stream of records, one at a time, reusing its buffers, with syntax
// errors in their place in the stream. It also knows perf's event names
// and modifiers, which events are clocks, which periods are absurd, and
// whether an input is perf script text at all (or folded stacks, or a
// perf.data file).
//
// It must not know threads, parallelism or output formats: it imports
// nothing of the module.
package parse

// Kind says what a Record is.
type Kind uint8

const (
	// KindOther is a side-band record the parser recognises but does not
	// decode (MMAP, THROTTLE, LOST_SAMPLES, ...). Its prefix fields are set.
	KindOther Kind = iota
	// KindSample is a sample: header line and its stack.
	KindSample
	// KindSwitch is PERF_RECORD_SWITCH (per-task): the line's own thread
	// goes in or out.
	KindSwitch
	// KindSwitchCPUWide is PERF_RECORD_SWITCH_CPU_WIDE: the line's thread
	// goes in or out on its CPU; PeerPID/PeerTID name the previous (IN) or
	// next (OUT) task on that CPU.
	KindSwitchCPUWide
	// KindFork is PERF_RECORD_FORK(pid:tid):(ppid:ptid).
	KindFork
	// KindExit is PERF_RECORD_EXIT(pid:tid):(ppid:ptid).
	KindExit
	// KindComm is PERF_RECORD_COMM[ exec]: comm:pid/tid.
	KindComm
	// KindLost is PERF_RECORD_LOST: records were dropped by the kernel.
	KindLost
	// KindError is a line the Reader could not understand (Record.Err),
	// in its place in the stream; the line is skipped, and with it the
	// sample it belonged to.
	KindError
	// KindHeader is a line of perf's header (perf script --header) that
	// says when the trace was recorded: Payload is the line (see
	// PerfHeader). Other comment lines are skipped.
	KindHeader
	// KindRound is a bare PERF_RECORD_FINISHED_ROUND line (perf script
	// --show-round-events): perf record ended a pass over its buffers.
	// It has no prefix fields (no time).
	KindRound
)

var kindNames = [...]string{"other", "sample", "switch", "switch-cpu-wide", "fork", "exit", "comm", "lost", "error", "header", "round"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Frame is one line of a call chain. The byte slices point into the
// Reader's memory and are valid until the next call to Scan (frames with
// an ID: for the Reader's life). Nobody may write to them.
type Frame struct {
	Addr []byte // hex address as printed, without leading spaces
	Sym  []byte // symbol without the +0x offset; "[unknown]" as perf prints it; may be empty
	Off  []byte // offset as printed after '+', e.g. "0x1f"; empty if none
	DSO  []byte // text inside the last (...) group; empty if none printed
	// Inlined is set when perf printed "(inlined)" in place of the DSO.
	Inlined bool
	// ID is the same for frames printed with the same text (and for no
	// others), numbered from 1, so that callers can cache what they make
	// of a frame by ID. It is 0 when the Reader has stopped numbering new
	// frames (see frameTable) and for frames on a sample's header line.
	ID uint32
}

// Record is one decoded record. All byte slices point into the Reader's
// memory and are valid until the next call to Scan.
//
// The fields of each kind of record are grouped in an embedded struct
// (SampleFields, SwitchFields, TaskFields) and read as the Record's own:
// rec.Period, rec.PeerPID.
type Record struct {
	Kind Kind
	Line int // line number of the record's first line (1-based)

	// Prefix fields, common to samples and side-band records.
	Comm []byte
	PID  int // -1 when not printed (only tid shown)
	TID  int // the one number printed when pid/tid is not shown; -1 when none is
	// HasTID is false for a header with a time but no pid/tid word
	// (perf script -F without tid).
	HasTID bool
	CPU    int   // -1 when not printed
	Time   int64 // nanoseconds; valid when HasTime
	// HasTime is false for very old perf output without timestamps.
	HasTime bool

	SampleFields
	// Payload is a sample's tracepoint payload or other text after the
	// event, if not a frame; a KindHeader record's line.
	Payload []byte
	SwitchFields
	TaskFields

	Lost uint64 // Lost record: number of records lost

	Err *SyntaxError // KindError
}

// plain says that r holds no field of the rare records (a payload, a
// task's fields, a lost count, an error): a record used again then needs
// only its common fields set, not a clear of all 256 bytes.
func (r *Record) plain() bool {
	return r.Payload == nil && r.Lost == 0 && r.Err == nil && r.NewComm == nil &&
		r.SubjectPID == 0 && r.SubjectTID == 0 && r.ParentPID == 0 && r.ParentTID == 0
}

// SampleFields are a sample's own fields.
type SampleFields struct {
	Period    uint64 // 1 when HasPeriod is false
	HasPeriod bool
	Event     []byte // full event name: "cpu-clock:uhH", "cpu/event=0x3c/u"
	// Stack is the sample's frames (the Reader's, as the record is);
	// nil for other records.
	Stack *Stack
}

// SwitchFields are a switch record's fields.
type SwitchFields struct {
	Out     bool // SWITCH OUT (else IN)
	Preempt bool // OUT preempt: the task is still runnable
	// Switch CPU-wide: the next (OUT) or previous (IN) task on the CPU.
	PeerPID, PeerTID int
}

// TaskFields are the fields of the records that tell of a task: FORK,
// EXIT and COMM.
type TaskFields struct {
	// Fork, Exit: the new or exiting thread; Comm: the renamed thread.
	SubjectPID, SubjectTID int
	// Fork, Exit: the subject's parent.
	ParentPID, ParentTID int
	NewComm              []byte // Comm record: the new name
}
