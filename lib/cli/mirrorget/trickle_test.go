package mirrorget

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/arc"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/warc"
)

// trickleSite serves a small page linking to /big, a body announced as
// 8 GiB and sent 32 KiB every 20 ms for as long as the client reads (with
// fast, 2 GiB sent as fast as the client reads); sent counts the bytes of
// /big written.
func trickleSite(t *testing.T, sent *atomic.Int64, fast bool) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			http.NotFound(w, r)
		case "/":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, `<html><body><a href="/big">big</a> <a href="/small.html">s</a></body></html>`)
		case "/big":
			w.Header().Set("Content-Type", "application/octet-stream")
			size, pause := int64(8)<<30, 20*time.Millisecond
			if fast {
				size, pause = fastBody, 0
			}
			w.Header().Set("Content-Length", fmt.Sprint(size))
			chunk := []byte(strings.Repeat("0123456789abcdef", 2048))
			for n := int64(0); n < size; n += int64(len(chunk)) {
				if _, err := w.Write(chunk); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				sent.Add(int64(len(chunk)))
				if pause == 0 {
					continue
				}
				select {
				case <-r.Context().Done():
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		default:
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, `<html><body>small</body></html>`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// fastBody is the size of the body sent fast by trickleSite.
const fastBody = 2 << 30

// readAllRecords reads a WARC or ARC file to its end, every block in full,
// failing on any error, and returns the number of records.
func readAllRecords(t *testing.T, path, format string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("the stream is gone: %v", err)
	}
	defer f.Close()
	type reader interface {
		Next() (*record.Record, error)
	}
	var r reader
	if format == "arc" {
		r, err = arc.NewReader(f, arc.WithPolicy(record.Fail))
	} else {
		r, err = warc.NewReader(f, warc.WithPolicy(record.Fail))
	}
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return n
		}
		if err != nil {
			t.Fatalf("%s: after %d records: %v", path, n, err)
		}
		if _, err := io.Copy(io.Discard, rec.Block); err != nil {
			t.Fatalf("%s: record %d: %v", path, n, err)
		}
		n++
	}
}

// TestSignalDuringLargeDownload interrupts the real binary while it
// receives a huge body trickled slowly: it stops (bound 10 s; the time taken
// is logged), exits 130 for SIGINT and 143 for SIGTERM, and the -o file
// reads to its end with lib/warc or lib/arc, every record complete. A body
// arriving fast (the fetcher reading without pause) is cut as well.
func TestSignalDuringLargeDownload(t *testing.T) {
	bin := buildMirrorget(t)
	for _, tc := range []struct {
		format string
		sig    syscall.Signal
		want   int
		mirror bool
		fast   bool
	}{
		{"warc", syscall.SIGINT, 130, false, false},
		{"arc", syscall.SIGTERM, 143, false, false},
		{"warc", syscall.SIGINT, 130, true, false},
		{"warc", syscall.SIGINT, 130, false, true},
		{"warc", syscall.SIGTERM, 143, true, true},
	} {
		t.Run(fmt.Sprintf("%s-%v-mirror=%v-fast=%v", tc.format, tc.sig, tc.mirror, tc.fast), func(t *testing.T) {
			var sent atomic.Int64
			srv := trickleSite(t, &sent, tc.fast)
			dir := t.TempDir()
			out := filepath.Join(dir, "x."+tc.format+".gz")
			args := []string{"-c", "2", "--format", tc.format, "-o", out}
			if tc.mirror {
				args = append(args, "-O", filepath.Join(dir, "m"))
			}
			cmd := exec.Command(bin, append(args, srv.URL+"/")...)
			cmd.Env = append(os.Environ(), "TMPDIR="+dir)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			// well into the body: past the in-memory part of the spool
			for sent.Load() < 2<<20 {
				select {
				case err := <-done:
					t.Fatalf("exited before the signal: %v\n%s", err, stderr.String())
				case <-time.After(10 * time.Millisecond):
				}
			}
			start := time.Now()
			cmd.Process.Signal(tc.sig)
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("still running 10 s after %v (%d body bytes sent)\n%s", tc.sig, sent.Load(), stderr.String())
			}
			t.Logf("%v: exited %v after the signal, %d body bytes sent", tc.sig, time.Since(start).Round(time.Millisecond), sent.Load())
			if tc.fast && sent.Load() >= fastBody {
				t.Errorf("the signal did not stop the download: all %d bytes were read", sent.Load())
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != tc.want {
				t.Fatalf("exit %v, want status %d; stderr %q", err, tc.want, stderr.String())
			}
			n := readAllRecords(t, out, tc.format)
			if n < 2 {
				t.Errorf("%d records in the stream", n)
			}
			left, _ := filepath.Glob(filepath.Join(dir, "mirrorget-spool-*"))
			if len(left) > 0 {
				t.Errorf("spool files left: %v", left)
			}
		})
	}
}

// bigSite serves a page linking to /big, size bytes of incompressible data
// sent as fast as the client reads; sent counts them.
func bigSite(t *testing.T, size int64, sent *atomic.Int64) *httptest.Server {
	chunk := make([]byte, 1<<20)
	rand.NewChaCha8([32]byte{1}).Read(chunk)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			http.NotFound(w, r)
		case "/":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, `<html><body><a href="/big">big</a></body></html>`)
		case "/big":
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Header().Set("Content-Length", fmt.Sprint(size))
			for n := int64(0); n < size; n += int64(len(chunk)) {
				if _, err := w.Write(chunk[:min(int64(len(chunk)), size-n)]); err != nil {
					return
				}
				sent.Add(min(int64(len(chunk)), size-n))
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestSignalWhileWritingRecord signals the real binary once a 768 MiB body
// has been received whole, while its record is written (to -o FILE, with
// and without -O DIR, and to a pipe): the record is dropped whole and the
// run ends (bound 10 s; the time taken is logged) with status 130, the
// output reading to its end with every record complete. (To a pipe a WARC
// record is dropped while its block is read, before any byte of it is
// written; one whose writing has begun is finished.)
func TestSignalWhileWritingRecord(t *testing.T) {
	bin := buildMirrorget(t)
	const size = 768 << 20
	for _, tc := range []struct {
		format string
		mirror bool
		pipe   bool
		want   int // records in the output
	}{
		{"warc", false, false, 5},
		{"warc", true, false, 5},
		{"arc", false, false, 3},
		{"warc", false, true, 6}, // /big's request record is out before its response is read
	} {
		t.Run(fmt.Sprintf("%s-mirror=%v-pipe=%v", tc.format, tc.mirror, tc.pipe), func(t *testing.T) {
			var sent atomic.Int64
			srv := bigSite(t, size, &sent)
			dir := t.TempDir()
			out := filepath.Join(dir, "x."+tc.format+".gz")
			args := []string{"-c", "1", "--format", tc.format}
			if !tc.pipe {
				args = append(args, "-o", out)
			}
			if tc.mirror {
				args = append(args, "-O", filepath.Join(dir, "m"))
			}
			cmd := exec.Command(bin, append(args, srv.URL+"/")...)
			cmd.Env = append(os.Environ(), "TMPDIR="+dir)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if tc.pipe {
				f, err := os.Create(out) // the test's end of the pipe copies to out
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				cmd.Stdout = struct{ io.Writer }{f} // not an *os.File: a pipe
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			for sent.Load() < size {
				select {
				case err := <-done:
					t.Fatalf("exited before the signal: %v\n%s", err, stderr.String())
				case <-time.After(time.Millisecond):
				}
			}
			time.Sleep(50 * time.Millisecond) // the last bytes reach the spool
			start := time.Now()
			cmd.Process.Signal(syscall.SIGINT)
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("still running 10 s after SIGINT\n%s", stderr.String())
			}
			t.Logf("exited %v after SIGINT", time.Since(start).Round(time.Millisecond))
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 130 {
				t.Fatalf("exit %v, want status 130; stderr %q", err, stderr.String())
			}
			n := readAllRecords(t, out, tc.format)
			fi, _ := os.Stat(out)
			t.Logf("%d records, %d bytes in the -o file", n, fi.Size())
			// warcinfo, robots.txt and / (request and response): /big's
			// records are dropped whole (to a pipe, its request record is
			// out before the response record is read)
			if n != tc.want || fi.Size() > 1<<20 {
				t.Errorf("%d records, %d bytes: the record being written was finished, not dropped", n, fi.Size())
			}
			// no temporary file left, in TMPDIR or the mirror
			filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err == nil && (strings.Contains(d.Name(), ".tmp") || strings.Contains(d.Name(), "mirrorget-") || strings.Contains(d.Name(), "arcport-")) {
					t.Errorf("left behind: %s", p)
				}
				return nil
			})
		})
	}
}

// TestSecondSignal: with stdout on a pipe nobody reads, the wind-down after
// the first SIGINT is stuck writing; a second SIGINT ends the process at
// once with status 130 and a one-line reason, as a second SIGTERM does with
// 143.
func TestSecondSignal(t *testing.T) {
	bin := buildMirrorget(t)
	for _, tc := range []struct {
		sig  syscall.Signal
		want int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			var sent atomic.Int64
			const size = 8 << 20
			srv := bigSite(t, size, &sent)
			cmd := exec.Command(bin, "-c", "1", "--format", "warc", srv.URL+"/")
			stdout, err := cmd.StdoutPipe() // never read
			if err != nil {
				t.Fatal(err)
			}
			defer stdout.Close()
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			for sent.Load() < size {
				select {
				case err := <-done:
					t.Fatalf("exited before the signal: %v\n%s", err, stderr.String())
				case <-time.After(time.Millisecond):
				}
			}
			time.Sleep(300 * time.Millisecond)
			cmd.Process.Signal(tc.sig)
			select {
			case err := <-done:
				t.Fatalf("the first signal ended the run with stdout blocked (%v): the test needs a stuck wind-down", err)
			case <-time.After(time.Second):
			}
			start := time.Now()
			cmd.Process.Signal(tc.sig)
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("still running 10 s after a second %v", tc.sig)
			}
			t.Logf("exited %v after the second %v", time.Since(start).Round(time.Millisecond), tc.sig)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != tc.want {
				t.Fatalf("exit %v, want status %d; stderr %q", err, tc.want, stderr.String())
			}
			if !strings.Contains(stderr.String(), "again: stopped at once") {
				t.Errorf("stderr %q: no reason", stderr.String())
			}
		})
	}
}

// TestSignalDuringProxyConnect: SIGINT while a proxy holds a CONNECT
// unanswered ends the run (bound 10 s, well under the 30 s timeout that
// bounded it before; the time taken is logged) with status 130.
func TestSignalDuringProxyConnect(t *testing.T) {
	bin := buildMirrorget(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan struct{}, 1)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
			go func() {
				b := make([]byte, 4096)
				c.Read(b) // the CONNECT request, left unanswered
				select {
				case got <- struct{}{}:
				default:
				}
			}()
		}
	}()
	cmd := exec.Command(bin, "-q", "--format", "warc", "-o", filepath.Join(t.TempDir(), "x.warc.gz"),
		"--proxy", "http://"+ln.Addr().String(), "https://site.invalid/")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-got:
	case err := <-done:
		t.Fatalf("exited before the CONNECT: %v\n%s", err, stderr.String())
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("no CONNECT in 10 s")
	}
	time.Sleep(200 * time.Millisecond)
	start := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("still running 10 s after SIGINT\n%s", stderr.String())
	}
	t.Logf("exited %v after SIGINT", time.Since(start).Round(time.Millisecond))
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit %v, want status 130; stderr %q", err, stderr.String())
	}
}
