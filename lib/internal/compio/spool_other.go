//go:build !linux && !windows

package compio

import "os"

// createUnnamed is the O_TMPFILE path, only on Linux.
func createUnnamed(dir, pattern string) (*os.File, bool) { return nil, false }
