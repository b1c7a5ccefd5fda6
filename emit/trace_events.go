package emit

import "strconv"

// Writing the timeline's events into the output's buffer.

// next is the output buffer's free space to append the next event to,
// after the separator from the one before; ok is false after an error.
func (t *traceWriter) next() (b []byte, ok bool) {
	if t.err != nil {
		return nil, false
	}
	b = t.w.AvailableBuffer()
	if t.n > 0 {
		b = append(b, ",\n"...)
	}
	t.n++
	return b, true
}

// put writes an event appended to next's buffer.
func (t *traceWriter) put(b []byte) { _, t.err = t.w.Write(b) }

// head begins a slice of category cat from from to to, cut to the window
// (ok is false when nothing of it is left): the caller appends its name
// and ends it with finish.
func (t *traceWriter) head(cat string, from, to int64) (b []byte, start int64, ok bool) {
	from, to = max(from, t.lo), min(to, t.hi)
	if to <= from {
		return nil, 0, false
	}
	if b, ok = t.next(); !ok {
		return nil, 0, false
	}
	return appendSliceHead(b, cat, to-from), from, true
}

// finish ends a slice begun by head on the track of keys.
func (t *traceWriter) finish(b, keys []byte, from int64) {
	t.put(append(appendMicros(append(b, keys...), from-t.first), '}'))
}

// serial writes a stretch when thread alone ran alone in group g, on the
// group's serial track, named by what ran.
func (t *traceWriter) serial(g *traceGroup, alone int, from, to int64) {
	if b, start, ok := t.head("serial", from, to); ok {
		t.finish(t.appendSerialName(b, alone), g.serialKeys, start)
	}
}

// parallelism writes a stretch when n threads of group g ran, on the
// group's parallelism track: the counter as slices, for viewers that
// show no counters (speedscope).
func (t *traceWriter) parallelism(g *traceGroup, n int, from, to int64) {
	if b, start, ok := t.head("parallelism", from, to); ok {
		b = strconv.AppendInt(append(b, `"parallelism `...), int64(n), 10)
		t.finish(append(b, '"'), g.parKeys, start)
	}
}

// counter writes group g's parallelism counter: n threads from at.
func (t *traceWriter) counter(g *traceGroup, at int64, n int) {
	if b, ok := t.next(); ok {
		b = append(appendCounterHead(b, n), g.counterKeys...)
		t.put(append(appendMicros(b, at-t.first), '}'))
	}
}

// name writes a metadata event naming a process or a track.
func (t *traceWriter) name(kind string, pid, tid int, name string) {
	if b, ok := t.next(); ok {
		t.put(appendNameEvent(b, kind, pid, tid, name))
	}
}

// appendSerialName appends, quoted, what ran alone: the thread and its
// last sample's leaf ("cc1-42: memset", "tid 42" when no sample named
// it). Serial stretches are many, and a thread's often follow one
// another between two of its samples: each thread keeps its last name.
func (t *traceWriter) appendSerialName(b []byte, tid int) []byte {
	th := t.threads[tid]
	if th == nil {
		return append(strconv.AppendInt(append(b, `"tid `...), int64(tid), 10), '"')
	}
	if th.serialRef != th.lastRef {
		th.serialName, th.serialRef = t.serialJSON(th.serialName[:0], th, tid), th.lastRef
	}
	return append(b, th.serialName...)
}

// serialJSON appends th's serial name, quoted.
func (t *traceWriter) serialJSON(b []byte, th *traceThread, tid int) []byte {
	b = append(b, '"')
	var frames []uint32
	if th.lastRef >= 0 {
		frames = t.stacks.Frames(uint32(th.lastRef))
	}
	if len(frames) > 0 && t.stacks.Name(frames[0]) != "" {
		b = appendJSONChars(b, t.stacks.Name(frames[0]))
		b = append(b, '-')
	} else {
		b = append(b, "tid "...)
	}
	b = strconv.AppendInt(b, int64(tid), 10)
	if len(frames) > 1 {
		b = append(b, ": "...)
		b = appendJSONChars(b, t.stacks.Name(frames[len(frames)-1]))
	}
	return append(b, '"')
}
