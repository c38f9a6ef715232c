//go:build unix

package sysfile

import (
	"os"
	"path/filepath"
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

// CreateDeleteOnClose creates a new temporary file in dir ("" for
// os.TempDir()) as os.CreateTemp does and removes its name at once: the
// file is gone when closed, and the name from the start.
func CreateDeleteOnClose(dir, pattern string) (*os.File, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// RenameDurable renames oldpath to newpath, replacing it, and makes the
// rename durable (os.Rename, then SyncDir of newpath's folder).
func RenameDurable(oldpath, newpath string) error {
	if err := os.Rename(oldpath, newpath); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(newpath))
}
