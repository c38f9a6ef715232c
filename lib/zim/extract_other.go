//go:build !unix

package zim

import (
	"os"
	"syscall"

	"github.com/arcport/arcport/lib/internal/safefs"
)

type fileHandle = *os.File

// dirSet creates the dump's files below its root (nil when the dump
// folder could not be opened).
type dirSet struct{ root *safefs.Root }

func openDirs(root *safefs.Root, dirs []string) dirSet { return dirSet{root} }

func (dirSet) close() {}

// create creates (or truncates) the regular file rel below root for
// writing, never through a symbolic link (the error then matches
// safefs.ErrSymlink).
func (s dirSet) create(root, rel string) (fileHandle, error) {
	if s.root == nil {
		return nil, &os.PathError{Op: "open", Path: root + "/" + rel, Err: syscall.EBADF}
	}
	return s.root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
}

// createFile is create.
func (s dirSet) createFile(root, rel string) (*os.File, error) { return s.create(root, rel) }

func writeClose(f fileHandle, b []byte) error {
	_, err := f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
