package cliutil

import "golang.org/x/sys/windows"

// isTerminal reports whether the handle fd is a console (GetConsoleMode
// answers for a console only; NUL and pipes fail).
func isTerminal(fd uintptr) bool {
	var mode uint32
	return windows.GetConsoleMode(windows.Handle(fd), &mode) == nil
}
