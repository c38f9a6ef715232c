package batch

import "syscall"

func errNoSpace() error { return syscall.ENOSPC }
