package e2e

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestExitCodes holds all five binaries to one convention (README, "Exit
// status"): 0 success, 1 failure with a one-line reason, 2 bad usage
// (unknown command or flag, missing argument), 130 after SIGINT and 143
// after SIGTERM.
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	arc := sample("example.arc.gz")
	warc := sample("example.warc.gz")
	wacz := filepath.Join(dir, "ok.wacz")
	if _, stderr, code := run(t, bin(t, "waczpack"), nil, "-q", "-o", wacz, warc); code != 0 {
		t.Fatalf("waczpack create: exit %d: %s", code, stderr)
	}
	zim := filepath.Join(repoRoot(), "testdata/zim/nons/small.zim")
	cache := filepath.Join(repoRoot(), "testdata/htcache/garden")
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><title>x</title></html>"))
	}))
	defer site.Close()
	missing := filepath.Join(dir, "missing")

	tests := []struct {
		bin  string
		args []string
		want int
	}{
		{"arc2warc", []string{"-o", filepath.Join(dir, "a.warc.gz"), arc}, 0},
		{"arc2warc", []string{missing}, 1},
		{"arc2warc", []string{"--bogus", arc}, 2},
		{"arc2warc", []string{"--compress", "lz77", arc}, 2},

		{"waczpack", []string{"validate", wacz}, 0},
		{"waczpack", []string{"ls", wacz}, 0},
		{"waczpack", []string{"validate", missing}, 1},
		{"waczpack", []string{"get", wacz, "http://not.archived.example/"}, 1},
		{"waczpack", nil, 2},
		{"waczpack", []string{"--bogus"}, 2},
		{"waczpack", []string{"validate", "--bogus", wacz}, 2},
		{"waczpack", []string{"get", wacz}, 2},
		{"waczpack", []string{"create", warc}, 2}, // no -o

		{"htcache", []string{"info", cache}, 0},
		{"htcache", []string{"info", missing}, 1},
		{"htcache", nil, 2},
		{"htcache", []string{"bogus"}, 2},
		{"htcache", []string{"--bogus"}, 2},
		{"htcache", []string{"ls", "--bogus", cache}, 2},
		{"htcache", []string{"cat", cache}, 2}, // no URL

		{"zimdump", []string{"info", zim}, 0},
		{"zimdump", []string{"info", missing}, 1},
		{"zimdump", []string{"show", "--url=no/such/entry", zim}, 1},
		{"zimdump", []string{"check", missing}, 1},
		{"zimdump", nil, 2},
		{"zimdump", []string{"bogus"}, 2},
		{"zimdump", []string{"list", "--bogus", zim}, 2},
		{"zimdump", []string{"dump", zim}, 2}, // no --dir
		{"zimdump", []string{"create", "-o", filepath.Join(t.TempDir(), "c.zim"), missing}, 1},
		{"zimdump", []string{"create", missing}, 2}, // no -o

		{"mirrorget", []string{"-q", "-o", filepath.Join(dir, "m.arc.gz"), site.URL + "/"}, 0},
		{"mirrorget", []string{"-q", "-o", filepath.Join(dir, "m2.arc.gz"), "http://127.0.0.1:1/"}, 1},
		{"mirrorget", nil, 2},
		{"mirrorget", []string{"--bogus", site.URL + "/"}, 2},
		{"mirrorget", []string{"--format", "tar", site.URL + "/"}, 2},
	}
	for _, tc := range tests {
		name := tc.bin + " " + strings.Join(tc.args, " ")
		t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
			stdout, stderr, code := run(t, bin(t, tc.bin), []byte{}, tc.args...)
			if code != tc.want {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tc.want, stderr)
			}
			reason := stderr
			if tc.bin == "zimdump" && reason == "" {
				reason = string(stdout) // openzim's "Exception: ..." goes to stdout
			}
			if tc.want != 0 {
				lines := strings.Split(strings.TrimSpace(reason), "\n")
				if reason == "" || (tc.bin != "zimdump" && len(lines) != 1) {
					t.Errorf("want a one-line reason, got %q", reason)
				}
			}
		})
	}
}

// TestExitCodesOnSignal: every binary, blocked on its input, exits 130
// after SIGINT and 143 after SIGTERM (or dies of that signal, which a shell
// reports as the same status).
func TestExitCodesOnSignal(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(repoRoot(), "testdata/htcache/garden")
	hold := make(chan struct{})
	defer close(hold)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html>"))
		w.(http.Flusher).Flush()
		select {
		case <-hold:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()

	tests := []struct {
		bin    string
		args   []string
		stdin  bool // an open pipe that never delivers
		stdout bool // a pipe that is never read (the output is larger)
	}{
		{"arc2warc", []string{"-o", filepath.Join(dir, "a.warc.gz")}, true, false},
		{"waczpack", []string{"-o", filepath.Join(dir, "a.wacz")}, true, false},
		{"htcache", []string{"export", cache}, false, true},
		{"zimdump", []string{"info", fifo}, false, false},
		{"mirrorget", []string{"-q", "-o", filepath.Join(dir, "m.arc.gz"), slow.URL + "/"}, false, false},
	}
	for _, tc := range tests {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			want := 128 + int(sig)
			t.Run(tc.bin+"/"+sig.String(), func(t *testing.T) {
				cmd := exec.Command(bin(t, tc.bin), tc.args...)
				if tc.stdin || tc.stdout {
					r, w, err := os.Pipe()
					if err != nil {
						t.Fatal(err)
					}
					defer w.Close()
					defer r.Close()
					if tc.stdin {
						cmd.Stdin = r
					} else {
						cmd.Stdout = w
					}
				}
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				time.Sleep(500 * time.Millisecond) // let it block on its input
				cmd.Process.Signal(sig)
				done := make(chan error, 1)
				go func() { done <- cmd.Wait() }()
				var err error
				select {
				case err = <-done:
				case <-time.After(30 * time.Second):
					cmd.Process.Kill()
					<-done
					t.Fatalf("still running 30 s after %s", sig)
				}
				var ee *exec.ExitError
				if !errors.As(err, &ee) {
					t.Fatalf("after %s: %v, want exit %d", sig, err, want)
				}
				ws := ee.Sys().(syscall.WaitStatus)
				if got := ee.ExitCode(); got != want && !(ws.Signaled() && ws.Signal() == sig) {
					t.Fatalf("after %s: %v, want exit %d", sig, err, want)
				}
			})
		}
	}
}
