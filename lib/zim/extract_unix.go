//go:build unix

package zim

import (
	"errors"
	"io"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

const oNoFollow = syscall.O_NOFOLLOW

type fileHandle = int

// maxDirFDs bounds the folders a dump keeps open to create files relative
// to them (one path component looked up per file instead of all).
const maxDirFDs = 512

// dirSet holds open descriptors of the dump's folders, by relative path.
type dirSet struct{ fds map[string]int }

// openDirs opens root and the first maxDirFDs-1 of dirs (relative, real
// folders checked by mkdirs), never through a symbolic link.
func openDirs(root string, dirs []string) dirSet {
	s := dirSet{fds: map[string]int{}}
	add := func(rel, path string) {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
		if err == nil {
			s.fds[rel] = fd
		}
	}
	add("", root)
	for _, d := range dirs {
		if len(s.fds) >= maxDirFDs {
			break
		}
		add(d, root+"/"+d)
	}
	return s
}

func (s dirSet) close() {
	for _, fd := range s.fds {
		syscall.Close(fd)
	}
}

// create creates (or truncates) the regular file rel below root for
// writing, never through a symbolic link.
func (s dirSet) create(root, rel string) (fileHandle, error) {
	dir, name := "", rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		dir, name = rel[:i], rel[i+1:]
	}
	dfd, ok := s.fds[dir]
	if !ok {
		dfd, name = unix.AT_FDCWD, root+"/"+rel
	}
	const flags = syscall.O_WRONLY | syscall.O_CREAT | syscall.O_TRUNC | syscall.O_NOFOLLOW | syscall.O_CLOEXEC
	fd, err := unix.Openat(dfd, name, flags, 0o644)
	for errors.Is(err, syscall.EINTR) {
		fd, err = unix.Openat(dfd, name, flags, 0o644)
	}
	if err != nil {
		return -1, &os.PathError{Op: "open", Path: root + "/" + rel, Err: err}
	}
	return fd, nil
}

// writeClose writes b to the file fd made by create and closes it.
func writeClose(fd fileHandle, b []byte) error {
	for len(b) > 0 {
		n, err := syscall.Write(fd, b)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			syscall.Close(fd)
			return err
		}
		if n == 0 {
			syscall.Close(fd)
			return io.ErrShortWrite
		}
		b = b[n:]
	}
	return syscall.Close(fd)
}
