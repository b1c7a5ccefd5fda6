package parse

// perf names a thread it holds no COMM for ":TID" (thread__comm_str's
// fallback). perf 7 forgets a thread at its EXIT, so the records of the
// thread after it (its last samples, its final switch-out in a CPU-wide
// trace) carry ":22580" where perf 6.1 kept the thread's name; the
// synthesized FORK records at time 0 of threads that existed before the
// recording name the forked thread that way too (":24152  0 [000]
// 0.000000: PERF_RECORD_FORK(24152:24152):...").

// IsPlaceholderComm reports comm ":TID" for the thread tid: perf knew no
// name for it.
func IsPlaceholderComm(comm []byte, tid int) bool {
	n, ok := placeholderTID(comm)
	return ok && n == tid
}

// LooksPlaceholderComm reports a comm of the form ":N" (N a decimal, or
// -1): perf's name for a thread whose name it did not know, whichever
// thread the line is of.
func LooksPlaceholderComm(comm []byte) bool {
	_, ok := placeholderTID(comm)
	return ok
}

func placeholderTID(comm []byte) (int, bool) {
	if len(comm) < 2 || comm[0] != ':' {
		return 0, false
	}
	return pidNum(comm[1:])
}
