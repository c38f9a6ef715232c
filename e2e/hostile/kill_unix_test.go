//go:build unix

package hostile

import "syscall"

// stop stops the process pid (SIGSTOP).
func stop(pid int) error { return syscall.Kill(pid, syscall.SIGSTOP) }

// cont continues the process pid (SIGCONT).
func cont(pid int) error { return syscall.Kill(pid, syscall.SIGCONT) }
