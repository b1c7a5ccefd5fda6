package parse

import (
	"math/rand"
	"reflect"
	"testing"
)

// TestCommonPrefixIsTimedPrefix: wherever the common-form reading of a
// header's prefix (commonPrefix) takes a line, it reads what the general
// reading (timedPrefix) reads, on lines made of the words perf prints
// and those that trap a reader: comms with spaces, digits, ':' and
// "-1", pid/tid pairs, CPUs, misc letters, times with a word glued after
// their ':'.
func TestCommonPrefixIsTimedPrefix(t *testing.T) {
	words := []string{"go", "compile", ":12", "a b", "123", "12/34", "-1", "-1/5", "[001]", "[1]",
		"22430.043775:", "1.5:", "1.:", "x:", "1001001", "cpu-clock:", "K", "Sp", "12345678901234567890",
		"1/2/3", "0.000000:", "5.1234567891:", "1.5:x", "\u00a0x", "é\u0085", "\vz\f", "99999999999.5:",
		"1.123456789:", "123456789012345678.5:", "1234567890123456789.5:", "8589934592.9:", "8589934593.0:"}
	r := rand.New(rand.NewSource(1))
	taken := 0
	n := 2000000
	if testing.Short() {
		n = 200000
	}
	for ; n > 0; n-- {
		var line []byte
		for k := r.Intn(8); k >= 0; k-- {
			if len(line) > 0 || r.Intn(4) == 0 {
				line = append(line, "  \t"[r.Intn(3)])
			}
			line = append(line, words[r.Intn(len(words))]...)
		}
		var common, timed header
		common.pid, common.tid, common.cpu = -1, -1, -1
		timed.pid, timed.tid, timed.cpu = -1, -1, -1
		after, ok := common.commonPrefix(line)
		if !ok {
			continue
		}
		taken++
		if tAfter, tOK := timed.timedPrefix(line); !tOK || tAfter != after || !reflect.DeepEqual(common, timed) {
			t.Fatalf("%q: commonPrefix read %d %+v, timedPrefix %v %d %+v", line, after, common, tOK, tAfter, timed)
		}
	}
	if taken < 1000 {
		t.Fatalf("commonPrefix took only %d lines: the test says little", taken)
	}
}
