package crawl

import (
	"os"

	"golang.org/x/sys/unix"
)

// createUnlinked opens a new file in dir ("" for the system's temporary
// folder) that has no name: O_TMPFILE, so that the file never shows in the
// folder and nothing, not even SIGKILL, can leave it behind. Where the file
// system does not support O_TMPFILE, a named file is created and removed
// at once.
func createUnlinked(dir string) (*os.File, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return createRemoved(dir)
	}
	return os.NewFile(uintptr(fd), dir+"/(unlinked spool)"), nil
}
