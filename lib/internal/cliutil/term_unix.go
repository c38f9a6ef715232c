//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package cliutil

import "golang.org/x/sys/unix"

func isTerminal(fd uintptr) bool {
	_, err := unix.IoctlGetTermios(int(fd), ioctlGetTermios)
	return err == nil
}
