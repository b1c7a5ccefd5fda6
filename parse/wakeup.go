package parse

import "bytes"

// Wakeup tracepoints. perf prints them (6.1 and 7.x alike) as
//
//	sleeper  7006 [000] 15297.371098:     sched:sched_wakeup: comm=sleeper pid=7007 prio=120 target_cpu=000
//	sleeper  7004 [001] 15297.365992: sched:sched_wakeup_new: comm=sleeper pid=7006 prio=120 target_cpu=000
//
// The line's own thread is the one that ran when the wakeup happened (the
// waker, or whatever an interrupt interrupted); pid= is the tid of the
// woken task. Older kernels print a success= field before target_cpu=.

// IsSchedWakeup reports sched:sched_wakeup and sched:sched_wakeup_new:
// samples taken where a task became runnable, not CPU samples.
func IsSchedWakeup(ev []byte) bool {
	b := string(EventBase(ev))
	return b == "sched:sched_wakeup" || b == "sched:sched_wakeup_new"
}

// WakeupTarget reads the woken task of a wakeup's payload: its tid (the
// pid= field) and its name (comm=, which may hold spaces). ok is false
// when the payload has no pid= number.
func WakeupTarget(payload []byte) (tid int, comm []byte, ok bool) {
	// The comm may hold anything: the last " pid=" is the field.
	i := bytes.LastIndex(payload, []byte(" pid="))
	if i < 0 {
		return 0, nil, false
	}
	n, digits := 0, 0
	for _, c := range payload[i+len(" pid="):] {
		if c < '0' || c > '9' {
			break
		}
		if digits++; digits > 9 {
			return 0, nil, false // no tid is that long
		}
		n = n*10 + int(c-'0')
	}
	if digits == 0 {
		return 0, nil, false
	}
	if j := bytes.Index(payload[:i], []byte("comm=")); j >= 0 {
		comm = payload[j+len("comm=") : i]
	}
	return n, comm, true
}

// interruptFrames are the kernel functions that enter or run interrupt
// and softirq work (x86 names, as 6.1 and 7.x print them): a wakeup under
// one of them was done for an interrupt (a timer, a device, a remote
// CPU's IPI), not by the thread that happened to run.
var interruptFrames = [][]byte{
	[]byte("asm_sysvec_"), []byte("sysvec_"), []byte("__sysvec_"),
	[]byte("asm_common_interrupt"), []byte("common_interrupt"),
	[]byte("irq_exit"), []byte("__irq_exit_rcu"),
	[]byte("__do_softirq"), []byte("handle_softirqs"), []byte("do_softirq"),
	[]byte("__handle_irq_event_percpu"), []byte("handle_irq_event"),
}

// InInterrupt reports a wakeup's callchain (leaf first) as run in
// interrupt or softirq context. An interrupt never makes a system call,
// so a marker anywhere in the chain means the wakeup is the interrupt's;
// a chain without one (or no chain) says nothing.
func InInterrupt(frames []Frame) bool {
	for i := range frames {
		s := frames[i].Sym
		if len(s) < 6 {
			continue
		}
		for _, m := range interruptFrames {
			if bytes.HasPrefix(s, m) {
				return true
			}
		}
	}
	return false
}
