//go:build unix

package sysfile

import (
	"os"
	"syscall"
)

// OpenFile is os.OpenFile (an open file can be renamed and removed on
// Unix).
func OpenFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag, perm)
}

// SyncDir makes the names in the folder dir durable (fsync(2) of the
// folder).
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// FileID returns the inode number of f.
func FileID(f *os.File) (uint64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(sys.Ino), nil
	}
	return 0, nil
}
