package hugemem

import (
	"runtime"
	"testing"
	"unsafe"
)

// TestBlocks: a block is Size zero bytes at a multiple of Size, writable
// to its end, and a process gets MaxBytes of them, then nil.
func TestBlocks(t *testing.T) {
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
	if n != MaxBytes/Size {
		t.Errorf("%d blocks, want %d", n, MaxBytes/Size)
	}
	if b[0] != 1 || b[Size-1] != 2 || u[0] != 7 {
		t.Error("a block changed")
	}
}
