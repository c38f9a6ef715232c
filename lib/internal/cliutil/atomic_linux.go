package cliutil

import (
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// createUnnamed opens a file with no name in dir (O_TMPFILE), or returns
// false where the kernel, the file system or a missing /proc does not
// allow one to be named later by nameUnnamed.
func createUnnamed(dir string) (*os.File, bool) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		return nil, false
	}
	fd, err := unix.Open(dir, unix.O_RDWR|unix.O_TMPFILE|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return nil, false
	}
	return os.NewFile(uintptr(fd), filepath.Join(dir, "(unnamed output)")), true
}

// nameUnnamed gives the unnamed file f the name name (linkat through
// /proc/self/fd, as open(2) describes for O_TMPFILE).
func nameUnnamed(f *os.File, name string) error {
	return unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(int(f.Fd())), unix.AT_FDCWD, name, unix.AT_SYMLINK_FOLLOW)
}

// startWriteback asks the kernel to start writing f's dirty pages to disk
// without waiting for them (sync_file_range SYNC_FILE_RANGE_WRITE), so the
// fsync at Commit has little left to wait for. Errors are left to fsync.
func startWriteback(f *os.File) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	rc.Control(func(fd uintptr) {
		unix.SyncFileRange(int(fd), 0, 0, unix.SYNC_FILE_RANGE_WRITE)
	})
}
