package emit

import (
	"bufio"
	"io"
	"math"
	"sort"
	"strconv"
)

// Weight selects what a folded line counts.
type Weight uint8

const (
	// Wall is the sum of period/parallelism: the wall-clock profile.
	Wall Weight = iota
	// CPU is the plain sum of periods: the ordinary CPU profile.
	CPU
)

// Totals accumulates the weights of each stack id.
type Totals struct {
	CPU  []uint64
	Wall []float64
	N    []uint64 // samples
}

// Add adds one sample of stack id.
func (t *Totals) Add(id uint32, period uint64, wall float64) {
	for int(id) >= len(t.CPU) {
		t.CPU = append(t.CPU, 0)
		t.Wall = append(t.Wall, 0)
		t.N = append(t.N, 0)
	}
	t.CPU[id] += period
	t.Wall[id] += wall
	t.N[id]++
}

// Sum returns the totals over all stacks.
func (t *Totals) Sum() (cpu uint64, wall float64) {
	for i := range t.CPU {
		cpu += t.CPU[i]
		wall += t.Wall[i]
	}
	return
}

// WriteFolded writes one line per stack, "root;...;leaf WEIGHT", sorted as
// inferno sorts them (bytewise). Wall weights are rounded once, here;
// stacks whose weight rounds to 0 are left out.
func WriteFolded(w io.Writer, s *Stacks, t *Totals, weight Weight) error {
	type line struct {
		stack string
		n     uint64
	}
	lines := make([]line, 0, len(t.CPU))
	var b []byte
	for id := range t.CPU {
		var n uint64
		if weight == CPU {
			n = t.CPU[id]
			if t.N[id] == 0 {
				continue
			}
		} else {
			n = uint64(math.Round(t.Wall[id]))
			if n == 0 {
				continue
			}
		}
		b = b[:0]
		for i, nid := range s.Frames(uint32(id)) {
			if i > 0 {
				b = append(b, ';')
			}
			b = append(b, s.Name(nid)...)
		}
		lines = append(lines, line{string(b), n})
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i].stack < lines[j].stack })
	bw := bufio.NewWriterSize(w, 1<<16)
	for _, l := range lines {
		bw.WriteString(l.stack)
		bw.WriteByte(' ')
		bw.Write(strconv.AppendUint(b[:0], l.n, 10))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
