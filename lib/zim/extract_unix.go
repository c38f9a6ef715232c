//go:build unix

package zim

import (
	"errors"
	"io"
	"os"
	"syscall"
)

const oNoFollow = syscall.O_NOFOLLOW

// writeNew writes b to a new file (or truncates an existing regular file)
// at path, never through a symbolic link, with three system calls: Go's
// os.File would add fcntl and epoll calls for every file, which dominate a
// dump of small files.
func writeNew(path string, b []byte) error {
	fd, err := syscall.Open(path, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_TRUNC|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o644)
	for errors.Is(err, syscall.EINTR) {
		fd, err = syscall.Open(path, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_TRUNC|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o644)
	}
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	for len(b) > 0 {
		n, err := syscall.Write(fd, b)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			syscall.Close(fd)
			return &os.PathError{Op: "write", Path: path, Err: err}
		}
		if n == 0 {
			syscall.Close(fd)
			return &os.PathError{Op: "write", Path: path, Err: io.ErrShortWrite}
		}
		b = b[n:]
	}
	if err := syscall.Close(fd); err != nil {
		return &os.PathError{Op: "close", Path: path, Err: err}
	}
	return nil
}
