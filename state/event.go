package state

import "fmt"

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
	// KindBlockStack is a sample taken where the event's thread left its
	// CPU (sched:sched_switch): Ref is the stack its off-CPU time is
	// charged to. It is not a CPU sample.
	KindBlockStack
	// KindRound is perf record's PERF_RECORD_FINISHED_ROUND (printed with
	// perf script --show-round-events): records are put in time order by
	// perf's rule on them (order.go). It has no time.
	KindRound
	// KindWakeup is a wakeup (sched:sched_wakeup, sched_wakeup_new):
	// PeerTID was made runnable; Ref is the caller's handle for the waker
	// (> 0; NoWaker: unknown), given back in Weighted.Waker (wakeup.go).
	// It is not a CPU sample, nor a sign of life of the line's thread.
	KindWakeup
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
	// Preempt is a switch OUT that left the thread runnable (perf's
	// "OUT preempt"): the CPU was taken from it.
	Preempt bool
	// Samples: Clock says the period is CPU time in ns (cpu-clock,
	// task-clock); HasPeriod and HasTime that the line printed them.
	Clock, HasPeriod, HasTime bool
	// Spin: the sample's stack shows a spin-wait (a thread that burns its
	// CPU waiting for others). Its thread counts apart until its next
	// sample that does not spin, switch or exit (see Weighted.Spin).
	Spin bool

	Time int64 // ns; 0 when unknown
	// The thread the event is about (FORK, EXIT, COMM: the subject). PID
	// is -1 when not printed.
	PID, TID int
	CPU      int // -1 when not printed
	// CPU-wide switches: the next (OUT) or previous (IN) task on the CPU;
	// KindWakeup: PeerTID is the woken task.
	PeerPID, PeerTID int
	// KindFork: the new thread's parent process (-1 when not printed).
	ParentPID int

	Period uint64 // samples
	Lost   uint64 // KindLost: records lost
	// Ref is the caller's handle for a sample, given back in Weighted; see
	// OtherEvent and Unwanted. On a switch, a handle for the thread's
	// off-CPU time when none of its samples or block stacks gives one
	// (OtherEvent: none); on KindFork and KindExit, the same for the
	// thread then (its wait for a first run, its time no sample covers); on
	// KindBlockStack, the stack of the switch.
	Ref int
	// Name is the sample's event as printed, read only during Add (for a
	// warning about the first sample).
	Name []byte
	// Comm is the thread's name (on KindComm, the new one), read only
	// during Add (a tree's root named by its command).
	Comm []byte
}

// State says where a Weighted's time went.
type State uint8

const (
	// OnCPU is a sample: its thread ran.
	OnCPU State = iota
	// Blocked is off-CPU time of a thread that waited for something else
	// than a CPU (sleep, I/O, a lock, a child) while no thread of its
	// group ran.
	Blocked
	// Runnable is off-CPU time of a thread that wanted a CPU (switched out
	// with preempt) while no thread of its group ran.
	Runnable
	// Lost is a thread's CPU time whose samples were lost (PERF_RECORD_LOST)
	// while it ran through (lost.go): Period ns at Ref, with the
	// parallelism where it resumed.
	Lost
	// Unsampled is a thread's time on CPU that switch records show and
	// no sample covers (per-task recordings: after its last sample, or a
	// task too short for one): OffCPU ns of wall at Ref, from Time to
	// OffEnd.
	Unsampled
)

func (s State) String() string {
	switch s {
	case Blocked:
		return "blocked"
	case Runnable:
		return "runnable"
	case Lost:
		return "lost"
	case Unsampled:
		return "unsampled"
	}
	return "on-cpu"
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
	// Par is the parallelism as the model measured it, what Period is
	// divided by for wall time: Parallelism is it rounded. They differ
	// where it is estimated (no switch records: the rate estimate gives
	// fractions) and for Spin samples.
	Par float64
	// Spin: a spin-wait (Event.Spin). Spinning threads do not count in
	// the others' parallelism; a spinning sample weighs nothing while a
	// thread of its group that does not spin runs (Par is +Inf), and
	// shares the moment with the other spinners when only they run.
	// Parallelism is then every running thread of the group, spinners
	// included (the divisor without the spin rule).
	Spin bool
	// Group is the key of the sample's group: 0 in workload scope, the
	// root's pid in tree scope, its tid in thread scope, else its process
	// (its tid when the process is unknown).
	Group int
	// State is OnCPU for samples. Otherwise the Weighted is a share of
	// the group's off-CPU time (Model's OffCPU option): OffCPU ns charged
	// at Ref from Time on; Period and Parallelism are 0, CPU is -1.
	State  State
	OffCPU int64
	// OffEnd: the share was taken from Time to OffEnd (spread evenly
	// over it where a window cuts it).
	OffEnd int64
	// Waker: a Blocked share that a wakeup ended, the waker's handle
	// (Event.Ref of its KindWakeup); NoWaker otherwise.
	Waker int
}

// Split is how a group's span divides: on CPU (at least one thread of
// the group runs), runnable (none runs, one wants a CPU), blocked (none
// runs or waits for a CPU, one is alive and off CPU). The rest of the
// span, if any, had no live thread the model knew of. Times in ns.
type Split struct {
	Group                    int
	First, Last              int64 // the group's first and last records
	OnCPU, Runnable, Blocked int64
	// CPU is the sum of the threads' running time (the average
	// parallelism while on CPU is CPU/OnCPU).
	CPU int64
	// Unsampled is the part of it no sample covers (per-task recordings).
	Unsampled UnsampledTime
	// Before is the group's span in the segments before the one of First
	// and Last (time stepped back: order.go); the times above count them.
	Before int64
}

// Span is the group's last record minus its first, plus its spans in
// the trace's earlier segments (Before).
func (s Split) Span() int64 { return s.Last - s.First + s.Before }

// Transition is a thread going on or off its CPU, in time order within its
// group (Options.Timeline): the stretches of a timeline.
type Transition struct {
	Time     int64
	Group    int // the group's key, as Weighted.Group
	PID, TID int
	On       bool
	// State, for a thread going off: Blocked or Runnable when a record
	// said which; OnCPU when it is gone or fell silent.
	State State
	Ref   int // the thread's last sample's stack (OtherEvent: none yet)
}

// Scope says which threads count towards a sample's parallelism.
type Scope uint8

const (
	// Auto decides from the records: workload for per-task traces,
	// process for system-wide ones (see Model.decide).
	Auto Scope = iota
	// Workload counts every traced thread (perf record -- make).
	Workload
	// Process counts the threads of the sample's own process.
	Process
	// Tree counts the threads of one process and all its descendants
	// (Options.TreePID or TreeComm); other processes only take CPUs.
	Tree
	// Thread makes every thread a group of its own: its span is its own
	// life in the trace, as wall-mode profilers show each thread's time.
	Thread
)

var scopeNames = [...]string{"auto", "workload", "process", "tree", "thread"}

func (s Scope) String() string {
	if int(s) < len(scopeNames) {
		return scopeNames[s]
	}
	return "unknown"
}

// UnmarshalText decodes "auto", "workload", "process" or "thread" (for
// flags; a tree needs its root: Options.TreePID or TreeComm).
func (s *Scope) UnmarshalText(b []byte) error {
	for i, n := range scopeNames {
		if string(b) == n && Scope(i) != Tree {
			*s = Scope(i)
			return nil
		}
	}
	return fmt.Errorf("scope %q: want auto, workload, process or thread", b)
}
