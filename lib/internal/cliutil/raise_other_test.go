//go:build !unix

package cliutil

import (
	"errors"
	"syscall"
)

// raise fails: a process cannot send itself a signal here.
func raise(sig syscall.Signal) error { return errors.ErrUnsupported }
