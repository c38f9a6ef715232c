//go:build !linux

package hostile

import "os"

// maxRSSKB is not measured outside Linux (ru_maxrss units differ).
func maxRSSKB(ps *os.ProcessState) int64 { return 0 }
