//go:build !linux

package fileio

import (
	"io"
	"os"
)

// StdinPipe is Linux-only (F_SETPIPE_SZ, FIONREAD).
func StdinPipe(f *os.File) io.Reader { return f }
