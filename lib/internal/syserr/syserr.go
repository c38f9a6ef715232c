// Package syserr tells apart the network errors the tools retry, whatever
// the system names them: ECONNRESET on Unix is WSAECONNRESET on Windows,
// which errors.Is(err, syscall.ECONNRESET) does not match there.
package syserr

import "errors"

// ConnReset reports whether err is a connection reset (or aborted) by the
// peer.
func ConnReset(err error) bool { return isAny(err, connReset) }

// ConnRefused reports whether err is a connection refused.
func ConnRefused(err error) bool { return isAny(err, connRefused) }

// BrokenPipe reports whether err is a write to a connection the peer has
// closed.
func BrokenPipe(err error) bool { return isAny(err, brokenPipe) }

// StorageFull reports whether err is a full disk or an exceeded quota
// (ENOSPC, EDQUOT; ERROR_DISK_FULL, ERROR_HANDLE_DISK_FULL,
// ERROR_DISK_QUOTA_EXCEEDED on Windows).
func StorageFull(err error) bool { return isAny(err, storageFull) }

// IO reports whether err is a device's input/output error (EIO; ERROR_CRC,
// a data error, on Windows).
func IO(err error) bool { return isAny(err, ioError) }

func isAny(err error, targets []error) bool {
	if err == nil {
		return false
	}
	for _, t := range targets {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}
