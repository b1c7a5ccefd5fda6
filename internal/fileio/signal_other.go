//go:build !unix

package fileio

import (
	"os"
	"syscall"
)

// dieOf exits with the shell's status for sig (no kill(2) here).
func dieOf(sig syscall.Signal) { os.Exit(128 + int(sig)) }
