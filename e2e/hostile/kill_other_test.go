//go:build !unix

package hostile

import "errors"

// stop fails: stopping a process by signal is Unix's.
func stop(pid int) error { return errors.ErrUnsupported }

// cont fails: continuing a process by signal is Unix's.
func cont(pid int) error { return errors.ErrUnsupported }
