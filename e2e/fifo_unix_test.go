//go:build unix

package e2e

import "syscall"

// mkfifo makes a named pipe at p.
func mkfifo(p string, mode uint32) error { return syscall.Mkfifo(p, mode) }
