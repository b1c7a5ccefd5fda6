//go:build !linux

package main

import (
	"io"
	"os"
)

// stdinPipe is Linux-only (F_SETPIPE_SZ, FIONREAD).
func stdinPipe(f *os.File) io.Reader { return f }
