//go:build !linux && !windows

package crawl

import "os"

// createUnlinked creates a temporary file in dir and removes its name at
// once (see the Linux version, which gives it no name at all).
func createUnlinked(dir string) (*os.File, error) { return createRemoved(dir) }
