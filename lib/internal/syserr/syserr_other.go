//go:build !unix && !windows

package syserr

// Plan 9 and WebAssembly: no errno to match; none of these is retried.
var connReset, connRefused, brokenPipe, storageFull, ioError []error
