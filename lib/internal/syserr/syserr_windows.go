package syserr

import (
	"syscall"

	"golang.org/x/sys/windows"
)

var (
	connReset   = []error{windows.WSAECONNRESET, windows.WSAECONNABORTED, syscall.ECONNRESET}
	connRefused = []error{windows.WSAECONNREFUSED, syscall.ECONNREFUSED}
	brokenPipe  = []error{windows.ERROR_BROKEN_PIPE, windows.ERROR_NO_DATA, windows.WSAESHUTDOWN, syscall.EPIPE}
	storageFull = []error{windows.ERROR_DISK_FULL, windows.ERROR_HANDLE_DISK_FULL, windows.ERROR_DISK_QUOTA_EXCEEDED, syscall.ENOSPC}
	ioError     = []error{windows.ERROR_CRC, syscall.EIO}
)
