package compio

import (
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// createUnnamed opens an O_TMPFILE file in dir; ok is false where the
// kernel or file system does not support it.
func createUnnamed(dir, pattern string) (*os.File, bool) {
	fd, err := unix.Open(dir, unix.O_RDWR|unix.O_TMPFILE|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, false
	}
	name := filepath.Join(dir, pattern+" (unlinked, fd "+strconv.Itoa(fd)+")")
	return os.NewFile(uintptr(fd), name), true
}
