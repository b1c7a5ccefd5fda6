package emit

import (
	"bufio"
	"compress/gzip"
	"io"

	"github.com/google/pprof/profile"
)

// What a pprof profile says besides its samples.

// Meta is what a profile says about its trace.
type Meta struct {
	Event     string // the event sampled
	TimeBased bool   // period in nanoseconds (cpu-clock, task-clock)
	Period    int64  // typical sampling period
	// TimeNanos and DurationNanos: the profile's window in Unix time.
	TimeNanos, DurationNanos int64
	Comments                 []string
}

// SampleTypes returns the sample types a profile of event has: count,
// then cpu and wall (time events), or the event count and the event
// count divided by parallelism (other events), named in SafeName's
// alphabet.
func SampleTypes(event string, timeBased bool) []*profile.ValueType {
	if timeBased {
		return []*profile.ValueType{
			{Type: "samples", Unit: "count"},
			{Type: "cpu", Unit: "nanoseconds"},
			{Type: "wall", Unit: "nanoseconds"},
		}
	}
	name := SafeName(event)
	return []*profile.ValueType{
		{Type: "samples", Unit: "count"},
		{Type: name, Unit: "count"},
		{Type: name + "_wall", Unit: "count"},
	}
}

// WritePprof writes pr (a profile made with the library's types: wallfold
// diff's) gzipped at gzip.BestSpeed, as the pprof writer writes its
// profiles, encoded by encodeProfile.
func WritePprof(w io.Writer, pr *profile.Profile) error {
	return writeGzip(w, func(zw io.Writer) error { return encodeProfile(zw, pr) })
}

// gzipBuffer is what writeGzip keeps of the compressed profile before it
// writes to its writer.
const gzipBuffer = 64 << 10

// writeGzip writes what enc writes, gzipped at gzip.BestSpeed, to w. The
// compressor hands on its output in pieces of a few hundred bytes: to a
// file each was a write call (3,845 for the 0.9 MB profile of an 86 MB
// trace), so they are gathered in gzipBuffer pieces first. The bytes
// are the same: the compressor's blocks do not depend on how it is fed
// or drained. The error is the first there is: enc's (w's, as it
// writes), else the gzip writer's Close, else writing the rest.
func writeGzip(w io.Writer, enc func(io.Writer) error) error {
	bw := bufio.NewWriterSize(w, gzipBuffer)
	zw, err := gzip.NewWriterLevel(bw, gzip.BestSpeed)
	if err != nil {
		return err
	}
	if err := enc(zw); err != nil {
		zw.Close()
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return bw.Flush()
}
