//go:build unix

package zim

import (
	"errors"
	"io"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/arcport/arcport/lib/internal/safefs"
)

type fileHandle = int

// maxDirFDs bounds the folders a dump keeps open to create files relative
// to them (one path component looked up per file instead of all).
const maxDirFDs = 512

// dirSet holds open descriptors of the dump's folders, by relative path,
// and the root they were opened below (nil when the dump folder could not
// be opened: every file then fails).
type dirSet struct {
	root *safefs.Root
	fds  map[string]int
}

// openDirs opens root and the first maxDirFDs-1 of dirs (relative, real
// folders checked by mkdirs), below root and never through a symbolic
// link.
func openDirs(root *safefs.Root, dirs []string) dirSet {
	s := dirSet{root: root, fds: map[string]int{}}
	if root == nil {
		return s
	}
	add := func(rel string) {
		if fd, err := root.OpenDirFD(rel); err == nil {
			s.fds[rel] = fd
		}
	}
	add("")
	for _, d := range dirs {
		if len(s.fds) >= maxDirFDs {
			break
		}
		add(d)
	}
	return s
}

func (s dirSet) close() {
	for _, fd := range s.fds {
		syscall.Close(fd)
	}
}

// create creates (or truncates) the regular file rel below root for
// writing, never through a symbolic link (the error then matches
// safefs.ErrSymlink).
func (s dirSet) create(root, rel string) (fileHandle, error) {
	// O_NONBLOCK: a FIFO planted in the folder fails (ENXIO), never blocks
	const flags = syscall.O_WRONLY | syscall.O_CREAT | syscall.O_TRUNC | syscall.O_NOFOLLOW | syscall.O_CLOEXEC | syscall.O_NONBLOCK
	dir, name := "", rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		dir, name = rel[:i], rel[i+1:]
	}
	dfd, ok := s.fds[dir]
	if !ok {
		if s.root == nil {
			return -1, &os.PathError{Op: "open", Path: root + "/" + rel, Err: syscall.EBADF}
		}
		fd, err := s.root.OpenFD(rel, flags, 0o644)
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return -1, &os.PathError{Op: "open", Path: root + "/" + rel, Err: err}
		}
		return fd, nil
	}
	fd, err := unix.Openat(dfd, name, flags, 0o644)
	for errors.Is(err, syscall.EINTR) {
		fd, err = unix.Openat(dfd, name, flags, 0o644)
	}
	if err != nil {
		var st unix.Stat_t
		if unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			err = safefs.ErrSymlink
		}
		return -1, &os.PathError{Op: "open", Path: root + "/" + rel, Err: err}
	}
	return fd, nil
}

// createFile is create returning an *os.File.
func (s dirSet) createFile(root, rel string) (*os.File, error) {
	fd, err := s.create(root, rel)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), root+"/"+rel), nil
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
