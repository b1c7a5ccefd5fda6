package fold

import (
	"github.com/wallfold/wallfold/parse"
	"github.com/wallfold/wallfold/state"
)

// event is a record as the model takes it; a sample's Clock and Ref are
// the run's to set.
func event(rec *parse.Record) state.Event {
	e := state.Event{Time: rec.Time, PID: rec.PID, TID: rec.TID, CPU: rec.CPU, Comm: rec.Comm}
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
	default:
		e.Kind = state.KindTick
	}
	return e
}
