package safefs

import (
	"sync/atomic"

	"golang.org/x/sys/unix"
)

var noOpenat2 atomic.Bool // the kernel said ENOSYS

// openat2 opens path below dirfd with RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS
// in one call; errNoOpenat2 when the kernel lacks it. ELOOP (a symbolic
// link) becomes ErrSymlink only after walk finds which component it is.
func openat2(dirfd int, path string, flags int, mode uint32) (int, error) {
	if noOpenat2.Load() {
		return -1, errNoOpenat2
	}
	if flags&unix.O_CREAT == 0 {
		mode = 0 // openat2 wants no mode without O_CREAT
	}
	how := unix.OpenHow{Flags: uint64(flags), Mode: uint64(mode), Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS}
	for {
		fd, err := unix.Openat2(dirfd, path, &how)
		switch err {
		case unix.EINTR, unix.EAGAIN:
			continue
		case unix.ENOSYS:
			noOpenat2.Store(true)
			return -1, errNoOpenat2
		}
		return fd, err
	}
}
