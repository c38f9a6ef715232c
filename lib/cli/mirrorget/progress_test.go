package mirrorget

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/internal/peertest"
)

// slowSite serves n linked pages, each after a delay, so a crawl lasts long
// enough for the progress line to refresh a few times.
func slowSite(n int, delay time.Duration) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		time.Sleep(delay)
		w.Header().Set("Content-Type", "text/html")
		var b strings.Builder
		b.WriteString("<html><head><title>p</title></head><body>")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, `<a href="/p%d.html">%d</a> `, i, i)
		}
		b.WriteString("</body></html>")
		w.Write([]byte(b.String()))
	}))
}

func buildMirrorget(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "mirrorget")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/arcport/arcport/cmd/mirrorget").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestProgressOnTerminal runs the real binary with stderr on a pseudo-terminal
// (util-linux script) and checks the refreshed status line appears there, and
// that with stderr on a pipe nothing but data is written.
func TestProgressOnTerminal(t *testing.T) {
	script := peertest.Need(t, "script", "bsdutils") // gives mirrorget a terminal
	bin := buildMirrorget(t)
	srv := slowSite(12, 150*time.Millisecond)
	defer srv.Close()
	dir := t.TempDir()

	out := filepath.Join(dir, "tty.arc")
	cmdline := fmt.Sprintf("%s -c 1 -o %s %s", bin, out, srv.URL+"/")
	tty, err := exec.Command(script, "-qec", cmdline, "/dev/null").CombinedOutput()
	if err != nil {
		t.Fatalf("mirrorget under script: %v\n%q", err, tty)
	}
	if !bytes.Contains(tty, []byte("\r\x1b[K")) || !bytes.Contains(tty, []byte(" done, ")) || !bytes.Contains(tty, []byte(" queued, ")) {
		t.Fatalf("no progress line on the terminal: %q", tty)
	}
	if st, err := os.Stat(out); err != nil || st.Size() == 0 {
		t.Fatalf("stream file: %v", err)
	}

	var stderr bytes.Buffer
	cmd := exec.Command(bin, "-c", "1", "-o", filepath.Join(dir, "pipe.arc"), srv.URL+"/")
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("mirrorget: %v: %s", err, stderr.String())
	}
	if strings.Contains(stderr.String(), "queued") {
		t.Fatalf("progress written to a pipe: %q", stderr.String())
	}
}
