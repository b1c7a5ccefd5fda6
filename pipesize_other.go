//go:build !linux

package main

import "os"

// growPipe is Linux-only (F_SETPIPE_SZ).
func growPipe(*os.File) {}
