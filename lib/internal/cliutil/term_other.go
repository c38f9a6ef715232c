//go:build !(unix || windows)

package cliutil

// isTerminal reports false on systems with no terminal ioctl (Plan 9,
// WebAssembly): no progress display there.
func isTerminal(fd uintptr) bool { return false }
