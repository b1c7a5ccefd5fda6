package emit

import (
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
	zw, err := gzip.NewWriterLevel(w, gzip.BestSpeed)
	if err != nil {
		return err
	}
	if err := encodeProfile(zw, pr); err != nil {
		zw.Close()
		return err
	}
	return zw.Close()
}
