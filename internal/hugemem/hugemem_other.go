//go:build !linux

package hugemem

// mapHuge and adviseHeap: huge pages are asked for on Linux only.
func mapHuge() []byte { return nil }

func adviseHeap() {}
