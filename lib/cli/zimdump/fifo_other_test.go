//go:build !unix

package zimdump

import "errors"

// mkfifo fails: named pipes in a folder are Unix's.
func mkfifo(p string, mode uint32) error { return errors.ErrUnsupported }
