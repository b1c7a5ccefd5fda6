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

// from sets h to e (its Name and Comm dropped). Field by field, as into:
// a literal built and then copied was loaded in 16-byte pieces of the
// narrower stores just made, which the CPU cannot forward.
func (h *heldEvent) from(e *Event) {
	h.Kind, h.Out, h.Preempt, h.Clock, h.HasPeriod, h.HasTime, h.Spin = e.Kind, e.Out, e.Preempt, e.Clock, e.HasPeriod, e.HasTime, e.Spin
	h.Time, h.PID, h.TID, h.CPU = e.Time, e.PID, e.TID, e.CPU
	h.PeerPID, h.PeerTID, h.ParentPID = e.PeerPID, e.PeerTID, e.ParentPID
	h.Period, h.Lost, h.Ref = e.Period, e.Lost, e.Ref
}

// into sets *e to the held record (Name and Comm nil).
func (h *heldEvent) into(e *Event) {
	e.Kind, e.Out, e.Preempt, e.Clock, e.HasPeriod, e.HasTime, e.Spin = h.Kind, h.Out, h.Preempt, h.Clock, h.HasPeriod, h.HasTime, h.Spin
	e.Time, e.PID, e.TID, e.CPU = h.Time, h.PID, h.TID, h.CPU
	e.PeerPID, e.PeerTID, e.ParentPID = h.PeerPID, h.PeerTID, h.ParentPID
	e.Period, e.Lost, e.Ref = h.Period, h.Lost, h.Ref
	e.Name, e.Comm = nil, nil
}
