package browser

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// processesUsing lists the processes whose command line names a path
// under dir. Chromium passes its profile to every child it starts, and its
// crash handlers get their database under its XDG config folder; children
// rewrite their command line as one string, so it is looked for as a
// substring. dir is a fresh temporary folder: no other process names it.
func processesUsing(dir string) []int {
	want := []byte(dir + string(os.PathSeparator))
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmd, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && bytes.Contains(cmd, want) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// killUsing kills the processes of processesUsing(dir) and says how many
// there were.
func killUsing(dir string) int {
	pids := processesUsing(dir)
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	return len(pids)
}
