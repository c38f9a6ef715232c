package hostile

import (
	"bytes"
	"os"
	"strconv"
	"sync/atomic"
	"time"
)

// watchRSS samples /proc/<pid>/status VmHWM (the peak resident set of the
// process's current image) every few milliseconds until stop is closed and
// returns the largest value seen, in KiB.
//
// wait4's ru_maxrss is no use here: Go starts commands with vfork, and
// Linux folds the parent's high-water mark into the child's at exec, so
// the figure would include this test process's own memory.
func watchRSS(pid int, stop <-chan struct{}) func() int64 {
	var peak atomic.Int64
	done := make(chan struct{})
	path := "/proc/" + strconv.Itoa(pid) + "/status"
	sample := func() {
		b, err := os.ReadFile(path)
		if err != nil {
			return
		}
		i := bytes.Index(b, []byte("VmHWM:"))
		if i < 0 {
			return
		}
		f := bytes.Fields(b[i+6:])
		if len(f) == 0 {
			return
		}
		if kb, err := strconv.ParseInt(string(f[0]), 10, 64); err == nil && kb > peak.Load() {
			peak.Store(kb)
		}
	}
	go func() {
		defer close(done)
		tick := time.NewTicker(3 * time.Millisecond)
		defer tick.Stop()
		for {
			sample()
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	return func() int64 { <-done; return peak.Load() }
}
