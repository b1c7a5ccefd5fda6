package fold

import (
	"testing"

	"github.com/wallfold/wallfold/state"
)

func TestIntList(t *testing.T) {
	var l IntList
	for _, n := range []int{0, 1, 99} {
		if !l.Has(n) {
			t.Errorf("zero IntList lacks %d", n)
		}
	}
	if err := l.UnmarshalText([]byte("1, 3,5-7,10-")); err != nil {
		t.Fatal(err)
	}
	for n, want := range map[int]bool{0: false, 1: true, 2: false, 3: true, 5: true, 7: true, 8: false, 10: true, 1 << 30: true} {
		if l.Has(n) != want {
			t.Errorf("Has(%d) = %v", n, !want)
		}
	}
	for _, bad := range []string{"x", "3-1", "-2", ",", "1-x"} {
		var l IntList
		if err := l.UnmarshalText([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestTimeWindow(t *testing.T) {
	const first, last = int64(100e9), int64(110e9)
	for _, tt := range []struct {
		in     string
		lo, hi int64
	}{
		{"101.5,102", 101.5e9, 102e9},
		{"101.5,", 101.5e9, 1 << 62},
		{",102", -1 << 62, 102e9},
		{"10%,20%", 101e9, 102e9},
		{",50%", -1 << 62, 105e9},
	} {
		var w TimeWindow
		if err := w.UnmarshalText([]byte(tt.in)); err != nil {
			t.Fatalf("%q: %v", tt.in, err)
		}
		if lo, hi := w.bounds(first, last); lo != tt.lo || hi != tt.hi {
			t.Errorf("%q: bounds %d..%d, want %d..%d", tt.in, lo, hi, tt.lo, tt.hi)
		}
	}
	for _, bad := range []string{"5", "1%,2", ",", "a,b", "3,2"} {
		var w TimeWindow
		if err := w.UnmarshalText([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	var zero TimeWindow
	if zero.Percent() || zero.set {
		t.Error("zero TimeWindow is a window")
	}
	// An empty flag value is no filter, as if the flag were not given.
	var l IntList
	var n NameList
	if l.UnmarshalText(nil) != nil || !l.Has(3) || zero.UnmarshalText(nil) != nil || zero.set ||
		n.UnmarshalText(nil) != nil || n.m != nil {
		t.Error("an empty value filters")
	}
}

func TestFilterKeep(t *testing.T) {
	var f Filter
	w := state.Weighted{PID: -1, TID: 7, Parallelism: 2}
	if !f.keep(&w) || !f.keepComm([]byte("x")) {
		t.Fatal("the zero Filter drops")
	}
	f.Parallelism.UnmarshalText([]byte("1"))
	if f.keep(&w) {
		t.Error("parallelism 2 kept by --parallelism=1")
	}
	f = Filter{}
	f.PIDs.UnmarshalText([]byte("1-"))
	if f.keep(&w) {
		t.Error("unknown pid kept by a pid list")
	}
	w.PID = 5
	if !f.keep(&w) {
		t.Error("pid 5 dropped by 1-")
	}
	f.TIDs.UnmarshalText([]byte("8"))
	if f.keep(&w) {
		t.Error("tid 7 kept by --tids=8")
	}
	f.Comms.UnmarshalText([]byte("make, cc1"))
	if !f.keepComm([]byte("cc1")) || f.keepComm([]byte("ld")) {
		t.Error("comm list")
	}
}
