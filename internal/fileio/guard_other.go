//go:build !linux

package fileio

import "io/fs"

// followAllowed: protected_symlinks is Linux's; elsewhere links are followed.
func followAllowed(path, name string, fi fs.FileInfo, dir string) error { return nil }

// mayWrite leaves the check to the rename elsewhere.
func mayWrite(path, name string, st fs.FileInfo) error { return nil }
