package emit

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

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

func (w Weight) String() string {
	if w == CPU {
		return "cpu"
	}
	return "wall"
}

// UnixTime is a flag's point in time: RFC 3339 (2026-12-03T06:24:41Z) or
// Unix seconds (1796279081.5).
type UnixTime struct{ time.Time }

// UnmarshalText decodes RFC 3339 or Unix seconds (for flags).
func (t *UnixTime) UnmarshalText(b []byte) error {
	s := string(b)
	if s == "" {
		*t = UnixTime{}
		return nil
	}
	if x, err := time.Parse(time.RFC3339Nano, s); err == nil {
		t.Time = x
		return nil
	}
	sec, err := strconv.ParseFloat(s, 64)
	if err != nil || sec < 0 || sec > 1<<33 {
		return fmt.Errorf("%q: want RFC 3339 (2026-12-03T06:24:41Z) or Unix seconds", s)
	}
	whole := math.Floor(sec)
	t.Time = time.Unix(int64(whole), int64(math.Round((sec-whole)*1e9)))
	return nil
}
