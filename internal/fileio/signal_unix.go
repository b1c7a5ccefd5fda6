//go:build unix

package fileio

import (
	"os"
	"os/signal"
	"syscall"
	"time"
)

// dieOf ends the process by sig with its default action; should that
// not come, it exits with the shell's status for it.
func dieOf(sig syscall.Signal) {
	signal.Reset(sig)
	syscall.Kill(syscall.Getpid(), sig)
	time.Sleep(time.Second)
	os.Exit(128 + int(sig))
}
