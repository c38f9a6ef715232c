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
