package emit

import (
	"bytes"
	"fmt"
	"io"

	"github.com/google/pprof/profile"
)

// BuildEach hands write, for each window (merged: one for all), the
// profile the pprof library reads from what WriteEach writes: tests
// check the written profile through the library's types. A profile that
// is not gzipped or that the library rejects is a panic.
func (p *Profile) BuildEach(meta func(win int32) Meta, merged bool, write func(win int32, pr *profile.Profile) error) error {
	return p.WriteEach(meta, merged, func(win int32, enc func(io.Writer) error) error {
		var b bytes.Buffer
		if err := enc(&b); err != nil {
			return err
		}
		if !bytes.HasPrefix(b.Bytes(), []byte{0x1f, 0x8b}) {
			panic(fmt.Sprintf("window %d: not gzipped: % x", win, b.Bytes()[:min(4, b.Len())]))
		}
		pr, err := profile.Parse(&b)
		if err != nil {
			panic(fmt.Sprintf("window %d: profile.Parse: %v", win, err))
		}
		return write(win, pr)
	})
}

// Build is BuildEach's one profile of every sample (all windows in one).
func (p *Profile) Build(meta Meta) *profile.Profile {
	var pr *profile.Profile
	p.BuildEach(func(int32) Meta { return meta }, true, func(_ int32, x *profile.Profile) error {
		pr = x
		return nil
	})
	return pr
}
