package emit

import (
	"fmt"
	"strings"
)

// Format is an output. formats says, for each, its name (the -f value)
// and the file extensions that pick it (wallfold record -o): the one
// registry the flags, record and New read.
type Format uint8

const (
	// Folded is stackcollapse-perf.pl's "root;...;leaf WEIGHT" lines.
	Folded Format = iota
	// Pprof is a gzipped profile.proto.
	Pprof
	// Summary is the parallelism story as text.
	Summary
	// Top is a table of functions by wall time, beside CPU time.
	Top
	// SVG is a self-contained flame graph coloured by parallelism.
	SVG
	// ChromeTrace is the timeline as Chrome trace-event JSON.
	ChromeTrace
)

type formatInfo struct {
	name string
	exts []string // the first is the one record gives a new file
}

var formats = [...]formatInfo{
	Folded:      {"folded", []string{".folded"}},
	Pprof:       {"pprof", []string{".pb.gz", ".pprof", ".pb"}},
	Summary:     {"summary", []string{".txt"}},
	Top:         {"top", []string{".top"}},
	SVG:         {"svg", []string{".svg"}},
	ChromeTrace: {"trace", []string{".json"}},
}

// FormatNames lists the formats' names, comma-separated (as the -f flags'
// enums spell them out: TestFormatEnums).
func FormatNames() string {
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = f.name
	}
	return strings.Join(names, ",")
}

func (f Format) String() string {
	if int(f) < len(formats) {
		return formats[f].name
	}
	return "unknown"
}

// UnmarshalText decodes a format's name (for flags).
func (f *Format) UnmarshalText(b []byte) error {
	for i, fi := range formats {
		if string(b) == fi.name {
			*f = Format(i)
			return nil
		}
	}
	names := strings.Split(FormatNames(), ",")
	return fmt.Errorf("format %q: want %s or %s", b, strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
}

// Ext is the extension of a new file of format f.
func (f Format) Ext() string { return formats[f].exts[0] }

// FormatOf picks the format of an output file by its extension: Folded
// when none says.
func FormatOf(path string) Format {
	for i, fi := range formats {
		for _, e := range fi.exts {
			if strings.HasSuffix(path, e) {
				return Format(i)
			}
		}
	}
	return Folded
}

// Streams reports a format written while the trace is read.
func (f Format) Streams() bool { return f == ChromeTrace }
