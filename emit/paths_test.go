package emit

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/wallfold/wallfold/parse"
)

// TestLocationByAddrMatchesKeyed: a frame that names nothing (a symbol in
// parentheses), first seen without an ID (on a no -g sample's header
// line), is told "no Location" by key; after another frame makes a
// Location at the same (DSO, address), the same frame seen as a numbered
// stack line must still have none, as the keyed path says. (Found by a
// review: the numbered path gave it the other frame's Location.)
func TestLocationByAddrMatchesKeyed(t *testing.T) {
	data := []byte("a 1 [000] 1.000000: 1 cpu-clock: 1234 (anonymous namespace)::f (/bin/a)\n\n" +
		"a 1 [000] 2.000000: 1 cpu-clock:\n\t1234 main (/bin/a)\n\n" +
		"a 1 [000] 3.000000: 1 cpu-clock:\n\t1234 (anonymous namespace)::f (/bin/a)\n\n")
	fast, ref := profileBytes(t, data, NameOptions{}, true), profileBytes(t, data, NameOptions{}, false)
	if !bytes.Equal(fast, ref) {
		t.Errorf("fast profile differs from the straightforward one (%d vs %d bytes)", len(fast), len(ref))
	}
	// Either way the frame names nothing, as in folded output (it does
	// not take main's Location, though main is at its address).
	for _, plain := range []bool{false, true} {
		p := NewProfile(NameOptions{}, DefaultLabels)
		r := parse.NewSequentialReader(bytes.NewReader(data), "f")
		var got [][]string
		var buf []parse.Frame
		for r.Scan() {
			st := r.Record().Stack
			if plain {
				var frames []parse.Frame
				buf, frames = unnumbered(buf, st.Frames())
				st = parse.NewStack(frames)
			}
			got = append(got, p.StackNames(p.Stack(st, false)))
		}
		if len(got) != 3 || len(got[0]) != 0 || len(got[2]) != 0 || len(got[1]) != 1 || got[1][0] != "main" {
			t.Errorf("plain=%v: stacks %q, want [] [main] []", plain, got)
		}
	}
}

// TestRandomTracesFastEqualsPlain: on generated traces that mix spacing,
// offsets, symbols that name nothing, inlined and unknown frames, Java
// and frames on header lines, the numbered paths give the same folded and
// pprof output as the straightforward ones.
func TestRandomTracesFastEqualsPlain(t *testing.T) {
	syms := []string{"main", "(anon)::f", "[unknown]", "", "a->b", "f+0x1", "(x)+0x2", "g"}
	dsos := []string{"(/bin/a)", "(/bin/b)", "([unknown])", "(inlined)", ""}
	for seed := uint64(0); seed < 150; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		var b bytes.Buffer
		line := func() string {
			sp := []string{"\t", "\t ", "    "}[rng.IntN(3)]
			return fmt.Sprintf("%s%x %s %s", sp, rng.IntN(4), syms[rng.IntN(len(syms))], dsos[rng.IntN(len(dsos))])
		}
		for i := 0; i < 40; i++ {
			comm := []string{"a", "java"}[rng.IntN(2)]
			if rng.IntN(4) == 0 {
				fmt.Fprintf(&b, "%s 1 [000] %d.0: 1 cpu-clock: %s\n\n", comm, i+1, line())
				continue
			}
			fmt.Fprintf(&b, "%s 1 [000] %d.0: 1 cpu-clock:\n", comm, i+1)
			for j := rng.IntN(4); j >= 0; j-- {
				b.WriteString(line() + "\n")
			}
			b.WriteString("\n")
		}
		data := b.Bytes()
		for _, o := range []NameOptions{{}, {Addrs: true, Kernel: true, JIT: true}} {
			if !bytes.Equal(profileBytes(t, data, o, true), profileBytes(t, data, o, false)) {
				t.Fatalf("seed %d %+v: pprof fast != plain", seed, o)
			}
			if fold(t, data, o, true) != fold(t, data, o, false) {
				t.Fatalf("seed %d %+v: folded fast != plain", seed, o)
			}
		}
	}
}
