package hostile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// midRun brings a started command of an interrupt case to the middle of
// its run and returns it stopped (SIGSTOP), with a description of where it
// is; the caller signals it and then calls s.resume. The point does not
// depend on the machine's speed:
//   - a command fed through a pipe the test holds open (ic.stdin) cannot
//     finish before the pipe closes: it is stopped signalAfter in;
//   - a command reading a file (htcache export) is stopped once it has read
//     a quarter of the cache (rchar in /proc/PID/io), and must then have
//     read less than the whole cache: it cannot have written its whole
//     output, let alone committed it. If it has (a machine fast enough to
//     read 60 MiB between two polls), the test fails rather than skips.
func (s *started) midRun(t *testing.T, ic interruptCase, c *caseDir) string {
	t.Helper()
	pid := s.cmd.Process.Pid
	if ic.stdin != "" {
		time.Sleep(signalAfter)
		procStop(t, pid)
		return fmt.Sprintf("after %v, its input pipe open", signalAfter)
	}
	st, err := os.Stat(filepath.Join(c.in, "bigmirror", "hts-cache", "new.zip"))
	if err != nil {
		t.Fatal(err)
	}
	size := st.Size()
	for deadline := time.Now().Add(*caseTime); procRead(pid) < size/4; time.Sleep(time.Millisecond) {
		if procGone(pid) {
			t.Fatalf("%s ended before reading a quarter of its %d-byte cache", ic.name, size)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: read %d of %d bytes in %v", ic.name, procRead(pid), size, *caseTime)
		}
	}
	procStop(t, pid)
	read := procRead(pid)
	if read >= size {
		s.resume()
		t.Fatalf("%s: stopped after reading %d bytes, the whole %d-byte cache: not mid-run", ic.name, read, size)
	}
	return fmt.Sprintf("after reading %d of %d bytes", read, size)
}

// resume continues a command midRun stopped.
func (s *started) resume() { cont(s.cmd.Process.Pid) }

// procRead is how many bytes process pid has read (rchar in /proc/PID/io:
// read and pread alike), -1 when it cannot be read.
func procRead(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "rchar: "); ok {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				return n
			}
		}
	}
	return -1
}

// procState is the state letter of process pid ("" when it is gone).
func procState(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	// pid (comm) state ...: comm may hold spaces and parentheses
	if f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:])); len(f) > 0 {
		return f[0]
	}
	return ""
}

// procGone reports whether process pid has exited (gone, or a zombie).
func procGone(pid int) bool {
	st := procState(pid)
	return st == "" || st == "Z" || st == "X"
}

// procStop stops process pid (SIGSTOP) and waits until it is stopped; it
// fails t when the process exited first.
func procStop(t *testing.T, pid int) {
	t.Helper()
	if err := stop(pid); err != nil {
		t.Fatalf("SIGSTOP: %v", err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		switch st := procState(pid); st {
		case "T":
			return
		case "", "Z", "X":
			t.Fatalf("process %d exited before it could be stopped mid-run", pid)
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d not stopped after SIGSTOP (state %s)", pid, procState(pid))
		}
	}
}
