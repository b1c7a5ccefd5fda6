package fold

import (
	"strings"
	"testing"

	"github.com/wallfold/wallfold/emit"
	"github.com/wallfold/wallfold/state"
)

// The idle task's samples (tid 0) weigh in CPU and nothing in wall time:
// said once, with their count and CPU time, in every scope; not when
// --tids leaves them out, nor in a profile of CPU time.
func TestRunIdleSamplesSaid(t *testing.T) {
	idle := "swapper     0 [001]     1.001500:    1000000 cpu-clock:\n\t            9000 cpu_idle+0x1 ([kernel.kallsyms])\n\n" +
		"swapper     0 [001]     1.002200:    1000000 cpu-clock:\n\t            9000 cpu_idle+0x1 ([kernel.kallsyms])\n\n"
	text := strings.Replace(twoThreads, "app    11     1.002500:", idle+"app    11     1.002500:", 1)
	said := "2 sample(s) of tid 0 (the idle task, swapper: CPUs with nothing to run) count in CPU time (0.002 s) with wall time 0"
	for _, tt := range []struct {
		name string
		cfg  Config
		want int
	}{
		{"process", Config{Scope: state.Process}, 1},
		{"thread", Config{Scope: state.Thread}, 1},
		{"tids=1-", Config{Filter: Filter{TIDs: ints(t, "1-")}}, 0},
		{"weight cpu", Config{Output: emit.Options{Weight: emit.CPU}}, 0},
	} {
		_, stderr, err := runText(t, text, tt.cfg)
		if err != nil || strings.Count(stderr, said) != tt.want {
			t.Errorf("%s: (%v) said %d times, want %d:\n%s", tt.name, err, strings.Count(stderr, said), tt.want, stderr)
		}
	}
}
