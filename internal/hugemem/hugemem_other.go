//go:build !linux

package hugemem

// mapHuge: huge pages are asked for on Linux only.
func mapHuge() []byte { return nil }
