package mirrorget

import (
	"os"

	"golang.org/x/sys/unix"
)

// syncFS flushes the file system holding f: the whole mirror (pages, cache,
// stream) in one call.
func syncFS(f *os.File) error { return unix.Syncfs(int(f.Fd())) }
