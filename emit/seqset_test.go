package emit

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/wallfold/wallfold/internal/hugemem"
)

// TestSeqSet: equal sequences get one id, different ones different ids
// (numbered from 0), also when their hashes collide (forced here: every
// sequence hashed to one of 3 values), and seq gives back what was
// interned.
func TestSeqSet(t *testing.T) {
	for _, collide := range []bool{false, true} {
		s := newSeqSet()
		rng := rand.New(rand.NewPCG(1, 2))
		var seqs [][]uint32
		for i := 0; i < 2000; i++ {
			n := rng.IntN(6)
			q := make([]uint32, n)
			for j := range q {
				q[j] = uint32(rng.IntN(4))
			}
			seqs = append(seqs, q)
		}
		idOf := func(q []uint32) uint32 {
			if collide {
				return s.idHash(q, uint64(len(q)%3))
			}
			return s.id(q)
		}
		want := map[string]uint32{}  // sequence -> its id
		owner := map[uint32]string{} // id -> its sequence
		for _, q := range seqs {
			id := idOf(slices.Clone(q))
			k := string(idBytes(q))
			if w, ok := want[k]; ok && w != id {
				t.Fatalf("collide=%v: %v got id %d, earlier %d", collide, q, id, w)
			}
			if o, ok := owner[id]; ok && o != k {
				t.Fatalf("collide=%v: id %d for two sequences", collide, id)
			}
			want[k], owner[id] = id, k
			if !slices.Equal(s.seq(id), q) {
				t.Fatalf("collide=%v: seq(%d) = %v, want %v", collide, id, s.seq(id), q)
			}
		}
		// Numbered from 0 with no gaps.
		for id := range owner {
			if int(id) >= len(want) {
				t.Fatalf("collide=%v: id %d for %d distinct sequences", collide, id, len(want))
			}
		}
	}
}

// TestSeqSetHugeChunks: past its first chunk the arena keeps sequences in
// 2 MB blocks of huge pages (Linux), and seq gives back every one of
// 40,000 sequences of 20 ids (800,000 ids: the first chunk and two blocks).
func TestSeqSetHugeChunks(t *testing.T) {
	s := newSeqSet()
	q := make([]uint32, 20)
	for i := range 40000 {
		for j := range q {
			q[j] = uint32(i*31 + j)
		}
		if id := s.id(q); id != uint32(i) {
			t.Fatalf("sequence %d: id %d", i, id)
		}
	}
	for i := range 40000 {
		for j, v := range s.seq(uint32(i)) {
			if v != uint32(i*31+j) {
				t.Fatalf("seq(%d)[%d] = %d, want %d", i, j, v, i*31+j)
			}
		}
	}
	if len(s.arena.chunks) != 3 {
		t.Fatalf("%d chunks, want 3", len(s.arena.chunks))
	}
	if c := s.arena.chunks[1]; runtime.GOOS == "linux" && cap(c) != hugemem.Size/4 {
		t.Errorf("the second chunk holds %d ids, want a huge block's %d", cap(c), hugemem.Size/4)
	}
}
