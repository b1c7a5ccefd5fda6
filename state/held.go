package state

// heldEvent is an Event as the order stage keeps it while it waits:
// without Name and Comm, which are valid only during Add (Model.Add sets
// them nil before). 88 bytes, not 136: a pipe's look-ahead holds up to
// lookaheadMax of them.
type heldEvent struct {
	Kind                                          EventKind
	Out, Preempt, Clock, HasPeriod, HasTime, Spin bool
	Time                                          int64
	PID, TID, CPU, PeerPID, PeerTID, ParentPID    int
	Period, Lost                                  uint64
	Ref                                           int
}

// keep returns e as held (its Name and Comm dropped).
func keep(e *Event) heldEvent {
	return heldEvent{Kind: e.Kind, Out: e.Out, Preempt: e.Preempt, Clock: e.Clock, HasPeriod: e.HasPeriod,
		HasTime: e.HasTime, Spin: e.Spin, Time: e.Time, PID: e.PID, TID: e.TID, CPU: e.CPU,
		PeerPID: e.PeerPID, PeerTID: e.PeerTID, ParentPID: e.ParentPID, Period: e.Period, Lost: e.Lost, Ref: e.Ref}
}

// event returns the held record as an Event again.
func (h *heldEvent) event() Event {
	return Event{Kind: h.Kind, Out: h.Out, Preempt: h.Preempt, Clock: h.Clock, HasPeriod: h.HasPeriod,
		HasTime: h.HasTime, Spin: h.Spin, Time: h.Time, PID: h.PID, TID: h.TID, CPU: h.CPU,
		PeerPID: h.PeerPID, PeerTID: h.PeerTID, ParentPID: h.ParentPID, Period: h.Period, Lost: h.Lost, Ref: h.Ref}
}
