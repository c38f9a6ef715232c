package zimdump

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/internal/zimtest"
)

// spoolOpen reports whether process pid has a file open in dir (the WARC
// writer's spool, named or unlinked).
func spoolOpen(pid int, dir string) bool {
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	for _, fd := range fds {
		l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if err == nil && strings.HasPrefix(l, dir+"/") {
			return true
		}
	}
	return false
}

// TestWarcSpoolLeftAfterSignal runs the zimdump binary's warc command on
// an archive of 80 entries of 1.5 MiB (each spooled, the spool file kept
// open from the first to the end) and, once the spool is open, sends it
// SIGKILL, SIGINT or SIGTERM: TMPDIR (a fresh directory) must be empty
// afterwards, and no output file exist.
func TestWarcSpoolLeftAfterSignal(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("needs /proc")
	}
	bin := filepath.Join(t.TempDir(), "zimdump")
	if out, err := exec.Command("go", "build", "-o", bin, "../../../cmd/zimdump").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	blob := bytes.Repeat([]byte("0123456789abcdef"), 3<<15) // 1.5 MiB
	s := zimtest.Spec{}
	for c := 0; c < 8; c++ {
		s.Clusters = append(s.Clusters, zimtest.Cluster{Comp: 5})
		for i := 0; i < 10; i++ {
			s.Entries = append(s.Entries, zimtest.Entry{NS: 'C', Path: fmt.Sprintf("c%d/e%d", c, i), Mime: "text/plain", Data: blob, Cluster: c})
		}
	}
	zf := writeZim(t, s)
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			tmp := t.TempDir()
			out := filepath.Join(t.TempDir(), "x.warc.gz")
			cmd := exec.Command(bin, "warc", "-o", out, zf)
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "GOMAXPROCS=1")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
		wait:
			for {
				select {
				case err = <-done:
					t.Fatalf("finished (%v) before its spool was seen open; stderr %q", err, stderr.String())
				default:
				}
				if spoolOpen(cmd.Process.Pid, tmp) {
					cmd.Process.Signal(sig)
					err = <-done
					break wait
				}
				time.Sleep(time.Millisecond)
			}
			t.Logf("%v: %v, stderr %q", sig, err, stderr.String())
			if sig != syscall.SIGKILL {
				want := map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143}[sig]
				if code := cmd.ProcessState.ExitCode(); code != want {
					t.Errorf("exit %d, want %d", code, want)
				}
			}
			if ents, _ := os.ReadDir(tmp); len(ents) > 0 {
				t.Errorf("%v left %d file(s) in TMPDIR: %s", sig, len(ents), ents[0].Name())
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%v: %s exists", sig, out)
			}
		})
	}
}
