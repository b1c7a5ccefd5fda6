//go:build !linux

package fileio

import (
	"io/fs"
	"os"
)

// followAllowed: protected_symlinks is Linux's; elsewhere links are followed.
func followAllowed(path, name string, fi fs.FileInfo, dir string) error { return nil }

// mayWrite leaves the check to the rename elsewhere.
func mayWrite(path, name string, st fs.FileInfo) error { return nil }

// keepOwner: the rename's owner is kept as it comes elsewhere.
func keepOwner(tmp *os.File, st fs.FileInfo) error { return nil }

// otherLinks: the link count is not asked elsewhere (the file is replaced).
func otherLinks(st fs.FileInfo) bool { return false }
