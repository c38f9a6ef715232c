package hostile

import (
	"os"
	"syscall"
)

// maxRSSKB is the peak resident set size of a finished process in KiB
// (wait4's ru_maxrss, the same figure as /usr/bin/time -f %M and VmHWM).
func maxRSSKB(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss
	}
	return 0
}
