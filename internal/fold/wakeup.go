package fold

import (
	"fmt"

	"github.com/wallfold/wallfold/emit"
	"github.com/wallfold/wallfold/parse"
	"github.com/wallfold/wallfold/state"
)

// wakeups turns sched:sched_wakeup and sched_wakeup_new samples into the
// model's wakeups, and names their wakers.
type wakeups struct {
	names *emit.WakerNames
	n     int // wakeup samples
	bad   int // of which the payload named no task
	badAt int // the first such line
	// blocked is the [blocked] time the profile holds (ns): without
	// wakeups it holds each wait for a CPU after a wakeup too.
	blocked int64
}

func newWakeups() wakeups { return wakeups{names: emit.NewWakerNames()} }

// interruptName is the waker's name of wakeups in interrupt context.
var interruptName = []byte(emit.InterruptWaker)

// event makes ev, the event of a wakeup sample rec, the model's wakeup.
// The waker is the line's thread unless the wakeup ran for an interrupt:
// on the idle task (tid 0: only an interrupt wakes anyone there), or
// under interrupt or softirq frames (a timer's or a device's wakeup lands
// on whatever thread ran). Without a callchain only the idle task tells.
func (w *wakeups) event(rec *parse.Record, ev *state.Event) {
	w.n++
	tid, _, ok := parse.WakeupTarget(rec.Payload)
	if !ok || tid <= 0 {
		if w.bad == 0 {
			w.badAt = rec.Line
		}
		w.bad++
		ev.Kind = state.KindTick
		return
	}
	name := rec.Comm
	if rec.TID == 0 || parse.InInterrupt(rec.Stack.Frames()) {
		name = interruptName
	}
	ev.Kind, ev.PeerPID, ev.PeerTID, ev.Ref = state.KindWakeup, -1, tid, w.names.Intern(name)
}

// charged notes an off-CPU share that reached the profile.
func (w *wakeups) charged(s *state.Weighted) {
	if s.State == state.Blocked {
		w.blocked += s.OffCPU
	}
}

// warnings says which wakeup samples said nothing, and what [blocked]
// holds when the trace has none.
func (w *wakeups) warnings(file string) []string {
	if w.n == 0 && w.blocked > 0 {
		return []string{fmt.Sprintf("--off-cpu: no sched:sched_wakeup records, so [blocked] (%s) also holds each thread's wait for a CPU from its wakeup to its switch-in (runnable time); record -e sched:sched_wakeup -e sched:sched_wakeup_new with -c 1, as wallfold record --off-cpu does", emit.FormatWeight(float64(w.blocked), true, ""))}
	}
	if w.bad == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%s:%d: %d of %d sched_wakeup samples name no woken task (no pid= in the payload; first here): they were skipped, and the threads they woke stay blocked until they run; convert with perf script's default fields", file, w.badAt, w.bad, w.n)}
}
