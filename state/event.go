package state

// EventKind says what an Event is.
type EventKind uint8

const (
	// KindTick only moves the clock (a record that says nothing of threads).
	KindTick EventKind = iota
	// KindSample is a sample: a sign of life of its thread.
	KindSample
	// KindSwitch is a per-task switch of the event's own thread.
	KindSwitch
	// KindSwitchCPUWide is a CPU-wide switch: the event's thread goes in or
	// out on CPU; PeerPID/PeerTID name the task on the other side.
	KindSwitchCPUWide
	// KindFork is a new thread (PID:TID).
	KindFork
	// KindExit is a thread's end: no SWITCH OUT follows it.
	KindExit
	// KindComm is a thread renamed (it tells that task events are recorded).
	KindComm
	// KindLost says Lost records were dropped.
	KindLost
)

// Ref values of samples that are signs of life only, never released.
const (
	// OtherEvent marks a sample of another event than the one profiled.
	OtherEvent = -1
	// Unwanted marks a sample of the profiled event that no output keeps
	// (the caller filtered it before it waits): it still counts as a
	// profiled sample in the warnings.
	Unwanted = -2
)

// Event is a record as the model needs it.
type Event struct {
	Kind EventKind
	Out  bool // switches: OUT (else IN)
	// Samples: Clock says the period is CPU time in ns (cpu-clock,
	// task-clock); HasPeriod and HasTime that the line printed them.
	Clock, HasPeriod, HasTime bool

	Time int64 // ns; 0 when unknown
	// The thread the event is about (FORK, EXIT, COMM: the subject). PID
	// is -1 when not printed.
	PID, TID int
	CPU      int // -1 when not printed
	// CPU-wide switches: the next (OUT) or previous (IN) task on the CPU.
	PeerPID, PeerTID int

	Period uint64 // samples
	Lost   uint64 // KindLost: records lost
	// Ref is the caller's handle for a sample, given back in Weighted; see
	// OtherEvent and Unwanted.
	Ref int
	// Name is the sample's event as printed, read only during Add (for a
	// warning about the first sample).
	Name []byte
}

// Weighted is a sample released with its parallelism.
type Weighted struct {
	Time   int64
	PID    int // the sample's process, or the one learnt by its release; -1 if unknown
	TID    int
	CPU    int
	Period uint64
	Ref    int
	// Parallelism is the number of threads of the sample's group running
	// at its moment, its own included; 0 for the idle task (tid 0).
	Parallelism int
	// Group is the key of the sample's group: 0 in workload scope, else
	// its process (its tid when the process is unknown).
	Group int
}
