package fold

import (
	"fmt"

	"github.com/wallfold/wallfold/parse"
	"github.com/wallfold/wallfold/state"
)

// event sets *e to the record as the model takes it; a sample's Clock and
// Ref are the run's to set. In place, field by field: an Event built and
// then copied (136 bytes, three times a record) was loaded in 16-byte
// pieces of narrower stores just made, which the CPU cannot forward.
func event(rec *parse.Record, e *state.Event) {
	*e = state.Event{}
	e.Time, e.PID, e.TID, e.CPU, e.Comm = rec.Time, rec.PID, rec.TID, rec.CPU, rec.Comm
	switch rec.Kind {
	case parse.KindSample:
		e.Kind, e.Period, e.Name = state.KindSample, rec.Period, rec.Event
		e.HasPeriod, e.HasTime = rec.HasPeriod, rec.HasTime
	case parse.KindSwitch:
		e.Kind, e.Out, e.Preempt = state.KindSwitch, rec.Out, rec.Preempt
	case parse.KindSwitchCPUWide:
		e.Kind, e.Out, e.Preempt, e.PeerPID, e.PeerTID = state.KindSwitchCPUWide, rec.Out, rec.Preempt, rec.PeerPID, rec.PeerTID
	case parse.KindFork:
		e.Kind, e.PID, e.TID, e.ParentPID = state.KindFork, rec.SubjectPID, rec.SubjectTID, rec.ParentPID
	case parse.KindExit:
		e.Kind, e.PID, e.TID = state.KindExit, rec.SubjectPID, rec.SubjectTID
	case parse.KindComm:
		e.Kind, e.PID, e.TID, e.Comm = state.KindComm, rec.SubjectPID, rec.SubjectTID, rec.NewComm
	case parse.KindLost:
		e.Kind, e.Lost = state.KindLost, rec.Lost
	case parse.KindRound:
		e.Kind = state.KindRound
	default:
		e.Kind = state.KindTick
	}
}

// stepBack is --strict's error for a record (at line) that came later
// than time order allows: traces concatenated or interleaved, or records
// out of order beyond the model's window.
func (r *Run) stepBack(line int) error {
	n, from, to := r.model.StepsBack()
	if n == 0 {
		return nil
	}
	if to == 0 {
		return fmt.Errorf("%s:%d: a record at time 0 after records up to %.6f s (--strict): perf script prints those only at its start, so another trace begins here (traces concatenated?); give one perf script output", r.in.Name, line, float64(from)/1e9)
	}
	return fmt.Errorf("%s:%d: time steps back %.6f s, from %.6f to %.6f (--strict): records out of time order beyond the ordering window (traces concatenated or interleaved?); give one perf script output in its own order", r.in.Name, line, float64(from-to)/1e9, float64(from)/1e9, float64(to)/1e9)
}
