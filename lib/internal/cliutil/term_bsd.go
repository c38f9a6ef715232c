//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package cliutil

import "golang.org/x/sys/unix"

const ioctlGetTermios = unix.TIOCGETA
