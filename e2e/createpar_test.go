//go:build unix

package e2e

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCreateParallelInterrupted: waczpack create of a 20 MB WARC.gz (the
// parallel fast path: a local file over 4 MiB) stopped by SIGINT, SIGTERM
// or SIGKILL at several points leaves nothing under the final name and,
// after SIGINT and SIGTERM, no temporary file; the same command run to its
// end then gives a WACZ that validates, with every record.
//
// The signal lands mid-run on any machine, fast or slow: a second input
// follows the WARC, a FIFO the test holds open and never writes to, so
// waczpack cannot finish. The points are events, not delays: after the
// process has read 1 MiB and 8 MiB (/proc/PID/io) it is stopped (SIGSTOP)
// and must still be in the first input, in the parallel phase (it has not
// opened the FIFO yet); the last point is while it waits on the FIFO. The
// signal is sent to the stopped process, which is then continued.
func TestCreateParallelInterrupted(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewSource(7))
	var data bytes.Buffer
	for i := range 2000 {
		body := make([]byte, 4000+rng.Intn(12000))
		rng.Read(body)
		ct := "application/octet-stream"
		if i%4 == 0 {
			body = []byte(fmt.Sprintf("<html><title>page %d</title>%x</html>", i, body[:2000]))
			ct = "text/html"
		}
		msg := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n%s", ct, len(body), body)
		rec := fmt.Sprintf("WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-%012d>\r\nWARC-Date: 2024-01-02T03:04:05Z\r\nWARC-Target-URI: http://p.test/%d\r\nContent-Type: application/http;msgtype=response\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n", i, i, len(msg), msg)
		zw := gzip.NewWriter(&data)
		zw.Write([]byte(rec))
		zw.Close()
	}
	in := filepath.Join(dir, "in.warc.gz")
	if err := os.WriteFile(in, data.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(in)
	if st.Size() < 8<<20 {
		t.Fatalf("input %d bytes, want over 8 MiB", st.Size())
	}
	outDir := filepath.Join(dir, "out")
	os.Mkdir(outDir, 0o755)
	out := filepath.Join(outDir, "site.wacz")
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL} {
		for _, pt := range []struct {
			name string
			read int64 // stop once this much is read; 0: once the FIFO is open
		}{{"1MiB-read", 1 << 20}, {"8MiB-read", 8 << 20}, {"waiting-on-fifo", 0}} {
			t.Run(fmt.Sprintf("%s/%s", sig, pt.name), func(t *testing.T) {
				waczpack := bin(t, "waczpack")
				t.Cleanup(func() { os.Remove(out) }) // a failed subtest leaves nothing to the next
				fifo := filepath.Join(t.TempDir(), "slow.warc.gz")
				if err := syscall.Mkfifo(fifo, 0o600); err != nil {
					t.Fatal(err)
				}
				// O_RDWR does not wait for a reader; holding a writer end
				// keeps waczpack's reads of the FIFO waiting, never at EOF
				hold, err := os.OpenFile(fifo, os.O_RDWR, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer hold.Close()
				cmd := exec.Command(waczpack, "create", "-q", "-o", out, in, fifo)
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				exited := make(chan error, 1)
				go func() { exited <- cmd.Wait() }()
				pid := cmd.Process.Pid
				reached := func() bool {
					if pt.read > 0 {
						return procRead(pid) >= pt.read
					}
					return procHasOpen(pid, fifo)
				}
				for deadline := time.Now().Add(time.Minute); !reached(); time.Sleep(time.Millisecond) {
					select {
					case err := <-exited:
						t.Fatalf("waczpack ended (%v) before %s, though its second input never ends", err, pt.name)
					default:
					}
					if time.Now().After(deadline) {
						cmd.Process.Kill()
						t.Fatalf("%s not reached in a minute (read %d bytes)", pt.name, procRead(pid))
					}
				}
				procStop(t, pid)
				inFirst := !procHasOpen(pid, fifo)
				read := procRead(pid)
				if pt.read > 0 && !inFirst {
					cmd.Process.Kill()
					t.Fatalf("stopped after %d bytes read, past the first input: the signal would not land in the parallel phase", read)
				}
				t.Logf("%s sent with %d bytes read, in the first input (parallel phase): %v", sig, read, inFirst)
				cmd.Process.Signal(sig)
				syscall.Kill(pid, syscall.SIGCONT)
				var ee *exec.ExitError
				if err := <-exited; err == nil {
					t.Fatalf("exit 0 after %s: waczpack finished with an input that never ended", sig)
				} else if !errors.As(err, &ee) {
					t.Fatal(err)
				}
				if _, err := os.Stat(out); err == nil {
					t.Fatalf("after %s: %s exists", sig, out)
				}
				left, _ := os.ReadDir(outDir)
				if sig != syscall.SIGKILL && len(left) != 0 {
					t.Errorf("after %s: left in the directory: %v", sig, left)
				}
				for _, e := range left { // what SIGKILL leaves is a hidden temporary file
					if !strings.HasPrefix(e.Name(), ".") {
						t.Errorf("after %s: %s left", sig, e.Name())
					}
					os.Remove(filepath.Join(outDir, e.Name()))
				}
			})
		}
	}
	_, stderr, code := run(t, bin(t, "waczpack"), nil, "create", "-v", "-o", out, in)
	if code != 0 || !strings.Contains(stderr, "2000 records") {
		t.Fatalf("create: exit %d: %s", code, stderr)
	}
	if _, stderr, code := run(t, bin(t, "waczpack"), nil, "validate", out); code != 0 {
		t.Fatalf("validate: exit %d: %s", code, stderr)
	}
}

// procRead is how many bytes process pid has read so far (rchar in
// /proc/PID/io: read and pread alike), -1 when it cannot be read.
func procRead(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "rchar: "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err == nil {
				return n
			}
		}
	}
	return -1
}

// procHasOpen reports whether process pid has the file path open.
func procHasOpen(pid int, path string) bool {
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	for _, fd := range fds {
		if l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name())); err == nil && l == path {
			return true
		}
	}
	return false
}

// procStop stops process pid (SIGSTOP) and waits until it is stopped, so
// that what the test reads of it then stays true until it continues.
func procStop(t *testing.T, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			t.Fatalf("process %d: %v", pid, err)
		}
		// pid (comm) state ...: comm may hold spaces and parentheses
		if f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:])); len(f) > 0 && f[0] == "T" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d not stopped after SIGSTOP: %s", pid, b)
		}
	}
}
