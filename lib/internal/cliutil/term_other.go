//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package cliutil

import "os"

func isTerminal(fd uintptr) bool {
	f := os.NewFile(fd, "")
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
