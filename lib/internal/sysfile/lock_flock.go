//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package sysfile

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// Lock takes an exclusive lock on f without waiting (flock(2) LOCK_EX |
// LOCK_NB). It is released when f is closed. A lock held elsewhere gives
// ErrLocked.
func Lock(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var lerr error
	if err := rc.Control(func(fd uintptr) {
		for {
			lerr = unix.Flock(int(fd), unix.LOCK_EX|unix.LOCK_NB)
			if lerr != unix.EINTR {
				break
			}
		}
	}); err != nil {
		return err
	}
	if errors.Is(lerr, unix.EWOULDBLOCK) {
		return ErrLocked
	}
	return lerr
}
