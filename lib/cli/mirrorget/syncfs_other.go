//go:build !linux

package mirrorget

import "os"

// syncFS flushes f (other systems have no syncfs).
func syncFS(f *os.File) error { return f.Sync() }
