package mirrorget

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/warc"
)

// TestSignalExitStatus interrupts the real binary in the middle of a crawl:
// SIGINT exits 130 and SIGTERM 143 (128 + signal, as lib/internal/cliutil
// does for the other binaries), with a one-line reason on stderr, and the
// -o file still holds a valid stream of complete records.
func TestSignalExitStatus(t *testing.T) {
	bin := buildMirrorget(t)
	srv := slowSite(40, 100*time.Millisecond)
	defer srv.Close()
	for _, tc := range []struct {
		sig  syscall.Signal
		want int
	}{
		{syscall.SIGINT, 130},
		{syscall.SIGTERM, 143},
	} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "x.warc.gz")
			cmd := exec.Command(bin, "-c", "1", "--format", "warc", "-o", out, srv.URL+"/")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(700 * time.Millisecond)
			cmd.Process.Signal(tc.sig)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("still running 20 s after %v", tc.sig)
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != tc.want {
				t.Fatalf("exit %v, want status %d; stderr %q", err, tc.want, stderr.String())
			}
			if !strings.Contains(stderr.String(), "mirrorget: interrupted after") {
				t.Errorf("stderr %q: no reason", stderr.String())
			}
			f, err := os.Open(out)
			if err != nil {
				t.Fatalf("the stream is gone: %v", err)
			}
			defer f.Close()
			r, err := warc.NewReader(f, warc.WithPolicy(record.Fail))
			if err != nil {
				t.Fatal(err)
			}
			responses := 0
			for {
				rec, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("after %d responses: %v", responses, err)
				}
				if rec.Type() == record.Response {
					responses++
				}
				if _, err := io.Copy(io.Discard, rec.Block); err != nil {
					t.Fatal(err)
				}
			}
			// the start page and a few of its 40 links, not all of them
			if responses < 2 || responses > 40 {
				t.Errorf("%d responses in the stream of an interrupted crawl", responses)
			}
		})
	}
}
