package hugemem

import (
	"runtime"
	"testing"
	"unsafe"
)

// TestAlloc: pieces are zeroed, at multiples of 64, apart from each other
// (written to their ends, each keeps what was written), from the first
// block until a piece does not fit in what is left; too large or empty
// pieces are refused. Before TestBlocks, which takes every block.
func TestAlloc(t *testing.T) {
	if Alloc(0) != nil || Alloc(Size+1) != nil {
		t.Fatal("a piece of 0 or Size+1 bytes")
	}
	var got [][]byte
	for i, n := range []int{1, 100, 64 << 10, Size - 70<<10, 4096, Size} {
		b := Alloc(n)
		if b == nil {
			if runtime.GOOS == "linux" {
				t.Fatalf("piece %d: nil on Linux", i)
			}
			return
		}
		if len(b) != n || cap(b) != n {
			t.Fatalf("piece %d: len %d cap %d, want %d", i, len(b), cap(b), n)
		}
		if p := uintptr(unsafe.Pointer(unsafe.SliceData(b))); p%64 != 0 {
			t.Fatalf("piece %d at %#x: not a multiple of 64", i, p)
		}
		for j := range b {
			if b[j] != 0 {
				t.Fatalf("piece %d: byte %d not zero", i, j)
			}
			b[j] = byte(i + 1)
		}
		got = append(got, b)
	}
	for i, b := range got {
		for j := range b {
			if b[j] != byte(i+1) {
				t.Fatalf("piece %d: byte %d is %d, want %d", i, j, b[j], i+1)
			}
		}
	}
}

// TestBlocks: a block is Size zero bytes at a multiple of Size, writable
// to its end, and a process gets MaxBytes of them, then nil (and no
// more pieces).
func TestBlocks(t *testing.T) {
	before := int(taken.Load() / Size) // TestAlloc's
	b := Bytes()
	if b == nil {
		if runtime.GOOS == "linux" {
			t.Fatal("no block on Linux")
		}
		return
	}
	if len(b) != 0 || cap(b) != Size {
		t.Fatalf("len %d cap %d, want 0 and %d", len(b), cap(b), Size)
	}
	if p := uintptr(unsafe.Pointer(unsafe.SliceData(b))); p%Size != 0 {
		t.Fatalf("block at %#x: not a multiple of %d", p, Size)
	}
	b = b[:Size]
	for i := 0; i < Size; i += 4096 {
		if b[i] != 0 || b[i+4095] != 0 {
			t.Fatalf("byte %d not zero", i)
		}
	}
	b[0], b[Size-1] = 1, 2
	u := Uint32s()
	if len(u) != 0 || cap(u) != Size/4 {
		t.Fatalf("Uint32s: len %d cap %d", len(u), cap(u))
	}
	u = append(u, 7)
	n := 2 // blocks taken
	for Bytes() != nil {
		n++
	}
	if before+n != MaxBytes/Size {
		t.Errorf("%d blocks after %d, want %d in all", n, before, MaxBytes/Size)
	}
	if Alloc(1) != nil {
		t.Error("a piece once every block is taken")
	}
	if b[0] != 1 || b[Size-1] != 2 || u[0] != 7 {
		t.Error("a block changed")
	}
}

// TestMake: once every block is taken (TestBlocks, before it), Make still
// gives n zero values, from the Go heap.
func TestMake(t *testing.T) {
	if Slice[uint64](1000) != nil {
		t.Fatal("a piece after TestBlocks took every block")
	}
	s := Make[uint64](1000)
	if len(s) != 1000 {
		t.Fatalf("%d values, want 1000", len(s))
	}
	for i, v := range s {
		if v != 0 {
			t.Fatalf("value %d is %d", i, v)
		}
	}
}
