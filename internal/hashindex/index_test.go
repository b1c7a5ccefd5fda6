package hashindex

import (
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"testing"
)

// set is the smallest table over an Index: keys kept by value number.
type set struct {
	x    Index
	keys []string // by value-1
	hash func(string) uint64
}

// id returns the number of key (from 1), adding it if new.
func (s *set) id(key string) (uint32, bool) {
	p := s.x.Start(s.hash(key))
	for v := s.x.Next(&p); v != 0; v = s.x.Next(&p) {
		if s.keys[v-1] == key {
			return v, true
		}
	}
	s.keys = append(s.keys, key)
	v := uint32(len(s.keys))
	s.x.Add(p, v)
	return v, false
}

// TestIndexAgainstMap: a table over the index numbers keys as a Go map
// does (one number per distinct key, in the order first seen), through
// growth to 64 times its first size, with random keys, with hashes that
// differ only in their high half (the tag), and with hashes of one tag
// (all equal, or differing only in their low half) or of five: one walk
// through them all, where the keys decide. The same with NewHuge, whose
// slots past 64 KB are in huge pages.
func TestIndexAgainstMap(t *testing.T) {
	for _, huge := range []bool{false, true} {
		indexAgainstMap(t, huge)
	}
}

func indexAgainstMap(t *testing.T, huge bool) {
	seed := maphash.MakeSeed()
	hashes := map[string]func(string) uint64{
		"maphash":     func(k string) uint64 { return maphash.String(seed, k) },
		"all equal":   func(string) uint64 { return 12345 },
		"high varies": func(k string) uint64 { return maphash.String(seed, k)&^0xffffffff | 7 },
		"low varies":  func(k string) uint64 { return maphash.String(seed, k)&0xffffffff | 9<<32 },
		"few":         func(k string) uint64 { return maphash.String(seed, k) % 5 << 32 },
	}
	for name, hash := range hashes {
		n := 64 * minSlots
		if name == "all equal" || name == "few" || name == "low varies" {
			n = 3000 // every lookup walks them all
		}
		if huge {
			name += ", NewHuge"
		}
		rng := rand.New(rand.NewPCG(1, 2))
		s := set{x: New(), hash: hash}
		if huge {
			s.x = NewHuge()
		}
		want := map[string]uint32{}
		for i := 0; i < 2*n; i++ {
			key := fmt.Sprint(rng.IntN(n))
			got, had := s.id(key)
			w, ok := want[key]
			if !ok {
				w = uint32(len(want) + 1)
				want[key] = w
			}
			if got != w || had != ok {
				t.Fatalf("%s: key %q: id %d (seen %v), want %d (seen %v)", name, key, got, had, w, ok)
			}
		}
		if s.x.Len() != len(want) || s.x.Len() > len(s.x.slots)/4*3 {
			t.Fatalf("%s: %d values in %d slots, want %d", name, s.x.Len(), len(s.x.slots), len(want))
		}
		// Every key is still found after all the growth.
		for key, w := range want {
			if got, had := s.id(key); got != w || !had {
				t.Fatalf("%s: key %q: id %d at the end, want %d", name, key, got, w)
			}
		}
	}
}
