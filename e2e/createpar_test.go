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
		for _, after := range []time.Duration{10 * time.Millisecond, 40 * time.Millisecond, 90 * time.Millisecond} {
			t.Run(fmt.Sprintf("%s/%v", sig, after), func(t *testing.T) {
				waczpack := bin(t, "waczpack") // built before the clock starts
				cmd := exec.Command(waczpack, "create", "-q", "-o", out, in)
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				time.Sleep(after)
				cmd.Process.Signal(sig)
				err := cmd.Wait()
				var ee *exec.ExitError
				if err == nil {
					os.Remove(out)
					t.Skipf("finished before %s after %v", sig, after) // a fast machine
				}
				if !errors.As(err, &ee) {
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
