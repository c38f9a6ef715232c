//go:build unix

package syserr

import "syscall"

var (
	connReset   = []error{syscall.ECONNRESET}
	connRefused = []error{syscall.ECONNREFUSED}
	brokenPipe  = []error{syscall.EPIPE}
	storageFull = []error{syscall.ENOSPC, syscall.EDQUOT}
	ioError     = []error{syscall.EIO}
)
