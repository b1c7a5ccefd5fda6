package diff

import (
	"bufio"
	"io"
	"math"
	"strconv"
)

// WriteFolded writes difffolded.pl's lines, "root;...;leaf BEFORE AFTER",
// which flamegraph.pl and inferno-flamegraph draw as a differential flame
// graph: integer weights, each stack's sum rounded once (as the folded
// output rounds it, so a column sums to that side's folded lines), in
// bytewise order; stacks that round to 0 on both sides are left out.
// cpu: the CPU time instead of the wall time.
func WriteFolded(w io.Writer, d *Diff, cpu bool) error {
	bw := bufio.NewWriter(w)
	var b []byte
	for _, r := range d.Stacks {
		x, y := r.Before.Wall, r.After.Wall
		if cpu {
			x, y = r.Before.CPU, r.After.CPU
		}
		before, after := uint64(math.Round(x)), uint64(math.Round(y))
		if before == 0 && after == 0 {
			continue
		}
		b = append(b[:0], r.Name...)
		b = append(b, ' ')
		b = strconv.AppendUint(b, before, 10)
		b = append(b, ' ')
		b = strconv.AppendUint(b, after, 10)
		b = append(b, '\n')
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}
