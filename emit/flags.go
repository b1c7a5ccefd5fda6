package emit

import "fmt"

// UnmarshalText decodes "folded", "pprof" or "summary" (for flags).
func (f *Format) UnmarshalText(b []byte) error {
	switch string(b) {
	case "folded":
		*f = Folded
	case "pprof":
		*f = Pprof
	case "summary":
		*f = Summary
	default:
		return fmt.Errorf("format %q: want folded, pprof or summary", b)
	}
	return nil
}

// UnmarshalText decodes "wall" or "cpu" (for flags).
func (w *Weight) UnmarshalText(b []byte) error {
	switch string(b) {
	case "wall":
		*w = Wall
	case "cpu":
		*w = CPU
	default:
		return fmt.Errorf("weight %q: want wall or cpu", b)
	}
	return nil
}

var formatNames = [...]string{"folded", "pprof", "summary"}

func (f Format) String() string {
	if int(f) < len(formatNames) {
		return formatNames[f]
	}
	return "unknown"
}

func (w Weight) String() string {
	if w == CPU {
		return "cpu"
	}
	return "wall"
}
