package emit

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"math/rand"
	"testing"
)

// TestFrameKeysAgainstMap: every key finds what was added with it, and
// only that, against a Go map; keys that are prefixes of one another,
// empty, and longer than a chunk; the index doubled many times.
func TestFrameKeysAgainstMap(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var keys [][]byte
	for i := range 20000 {
		k := []byte(fmt.Sprintf("sym%d\x00/dso/%d", rng.Intn(5000), i%7))
		keys = append(keys, k, k[:len(k)/2])
	}
	keys = append(keys, nil, bytes.Repeat([]byte("x"), 3*frameKeyChunk), bytes.Repeat([]byte("x"), 3*frameKeyChunk+1))
	fk := newFrameKeys()
	want := map[string][2]int{}
	for i, k := range keys {
		loc, ok := fk.find(k)
		w, wok := want[string(k)]
		if ok != wok || loc != w {
			t.Fatalf("key %d %.40q: find = %v %v, the map has %v %v", i, k, loc, ok, w, wok)
		}
		if !ok {
			loc = [2]int{i, len(k)}
			fk.add(k, loc)
			want[string(k)] = loc
		}
	}
	for k, w := range want {
		if loc, ok := fk.find([]byte(k)); !ok || loc != w {
			t.Fatalf("%.40q: find = %v %v after all adds, want %v", k, loc, ok, w)
		}
	}
	if len(fk.keys) != len(want) {
		t.Fatalf("%d keys kept, %d distinct", len(fk.keys), len(want))
	}
}

// TestFrameKeysSameTag: two keys whose hashes share the 32 bits the
// index keeps (found among many: the seed is random) are told apart by
// their text.
func TestFrameKeysSameTag(t *testing.T) {
	fk := newFrameKeys()
	seen := map[uint32]string{}
	for i := 0; ; i++ {
		if i == 1<<21 {
			t.Skip("no two keys of the same tag among 2 Mi: about e^-512 odds")
		}
		k := fmt.Sprintf("f%d", i)
		tag := uint32(maphash.String(fk.seed, k) >> 32)
		first, ok := seen[tag]
		if !ok {
			seen[tag] = k
			continue
		}
		if _, ok := fk.find([]byte(first)); ok {
			t.Fatal("found in an empty table")
		}
		fk.add([]byte(first), [2]int{1, 1})
		if loc, ok := fk.find([]byte(k)); ok {
			t.Fatalf("%q found as %q (same tag %#x): %v", k, first, tag, loc)
		}
		fk.add([]byte(k), [2]int{2, 1})
		if loc, _ := fk.find([]byte(k)); loc != [2]int{2, 1} {
			t.Fatalf("%q: %v, want [2 1]", k, loc)
		}
		if loc, _ := fk.find([]byte(first)); loc != [2]int{1, 1} {
			t.Fatalf("%q: %v, want [1 1]", first, loc)
		}
		return
	}
}
