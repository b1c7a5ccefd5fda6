package emit

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// jsonOf is encoding/json's form of v: what the trace's events were
// before they were appended by hand, and what they must stay.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTraceMicrosAsJSON: a time in ns appended as µs is what
// encoding/json writes for float64(ns)/1e3, on each side of the 1e15
// limit, at the powers of ten and on random values of every magnitude.
func TestTraceMicrosAsJSON(t *testing.T) {
	ns := []int64{0, 1, -1, 10, 100, 999, 1000, 1001, 1010, 1100, 123456789, -123456789,
		1e15 - 1, 1e15, 1e15 + 1, -1e15 + 1, -1e15, 1<<53 + 1, 1 << 62, -1 << 62, 9e18}
	for p := int64(1); p < 1e18; p *= 10 {
		ns = append(ns, p-1, p, p+1, -p)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		ns = append(ns, r.Int64N(int64(1)<<r.IntN(63))*(1-2*r.Int64N(2)))
	}
	for _, n := range ns {
		if got, want := string(appendMicros(nil, n)), jsonOf(t, float64(n)/1e3); got != want {
			t.Fatalf("%d ns: %s, encoding/json %s", n, got, want)
		}
	}
}

// TestTraceStringsAsJSON: names are quoted as encoding/json quotes them,
// HTML escapes, control characters, bad UTF-8 and line separators
// included, whole or in parts split at ASCII characters.
func TestTraceStringsAsJSON(t *testing.T) {
	for _, s := range []string{"", "running", "cc1-42: memset", `a"b\c`, "std::vector<int>::at", "a&b", "tab\there\nnl\r\x00\x1f\x7f",
		"café", "\xff\xfe", "trunc\xe2\x82", "\u2028\u2029", "日本語", "\b\f"} {
		if got, want := string(appendJSONString(nil, s)), jsonOf(t, s); got != want {
			t.Errorf("%q: %s, encoding/json %s", s, got, want)
		}
		parts := append(appendJSONChars([]byte{'"'}, s), '-')
		parts = append(appendJSONChars(parts, s+"\xe2"), '"')
		if got, want := string(parts), jsonOf(t, s+"-"+s+"\xe2"); got != want {
			t.Errorf("%q in parts: %s, encoding/json %s", s, got, want)
		}
	}
}

// TestTraceEventsAsJSON: each event is the bytes encoding/json writes for
// the map of its fields.
func TestTraceEventsAsJSON(t *testing.T) {
	b := appendSliceTail(appendJSONString(appendSliceHead(nil, "cpu", 2505), "a<b>"), 7, 70, 1040)
	want := jsonOf(t, map[string]any{"ph": "X", "name": "a<b>", "cat": "cpu", "pid": 7, "tid": 70,
		"ts": 1.04, "dur": 2.505})
	if string(b) != want {
		t.Errorf("slice: %s\nwant   %s", b, want)
	}
	b = appendCounterEvent(nil, 7, -1500, 3)
	want = jsonOf(t, map[string]any{"ph": "C", "name": "parallelism", "pid": 7, "ts": -1.5,
		"args": map[string]any{"running": 3}})
	if string(b) != want {
		t.Errorf("counter: %s\nwant     %s", b, want)
	}
	b = appendNameEvent(nil, "thread_name", 7, 70, "café")
	want = jsonOf(t, map[string]any{"ph": "M", "name": "thread_name", "pid": 7, "tid": 70,
		"args": map[string]any{"name": "café"}})
	if string(b) != want {
		t.Errorf("name: %s\nwant  %s", b, want)
	}
}
