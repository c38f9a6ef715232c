//go:build aix || solaris

package cliutil

import "golang.org/x/sys/unix"

const ioctlGetTermios = unix.TCGETS
