//go:build !unix && !windows

package sysfile

import (
	"os"
	"path/filepath"
)

// OpenFile is os.OpenFile.
func OpenFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag, perm)
}

// SyncDir does nothing: these systems (Plan 9, WebAssembly) have no way
// to flush a folder.
func SyncDir(dir string) error { return nil }

// FileID returns 0: these systems do not name a file apart from its path.
func FileID(f *os.File) (uint64, error) { return 0, nil }

// CreateDeleteOnClose creates a new temporary file in dir ("" for
// os.TempDir()) as os.CreateTemp does and removes its name at once.
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
