//go:build !unix

package zim

import (
	"os"
	"path/filepath"
)

const oNoFollow = 0

type fileHandle = *os.File

type dirSet struct{}

func openDirs(root string, dirs []string) dirSet { return dirSet{} }

func (dirSet) close() {}

func (dirSet) create(root, rel string) (fileHandle, error) {
	return os.OpenFile(filepath.Join(root, rel), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
}

func writeClose(f fileHandle, b []byte) error {
	_, err := f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
