package store

import (
	"bytes"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/store/s3test"
)

// serve returns a handler serving data with Range support and an ETag,
// counting the requests it answers.
func serve(data []byte, etag string, n *atomic.Int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if etag != "" {
			w.Header().Set("ETag", etag)
		}
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
	})
}

// TestHTTPS reads from a loopback HTTPS server with a test CA: through the
// server's own client, through Options.RootCAs, and not at all (one
// request, a one-line error) with the system's CAs.
func TestHTTPS(t *testing.T) {
	data := random(600<<10, 10)
	var n atomic.Int64
	ts := httptest.NewUnstartedServer(serve(data, `"v1"`, &n))
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake
	ts.StartTLS()
	defer ts.Close()
	name := ts.URL + "/site.wacz"
	pool := x509.NewCertPool()
	pool.AddCert(ts.Certificate())
	for _, c := range []struct {
		what string
		opts Options
	}{{"server client", Options{HTTPClient: ts.Client()}}, {"RootCAs", Options{RootCAs: pool}}} {
		st := New(c.opts)
		n.Store(0)
		if got := readAll(t, st, name); !bytes.Equal(got, data) {
			t.Fatalf("%s: Open read %d bytes", c.what, len(got))
		}
		f, err := st.OpenAt(context.Background(), name)
		if err != nil {
			t.Fatal(err)
		}
		p := make([]byte, 1000)
		if _, err := f.ReadAt(p, 300<<10); err != nil || !bytes.Equal(p, data[300<<10:300<<10+1000]) {
			t.Fatalf("%s: ReadAt: %v", c.what, err)
		}
		t.Logf("%s: Open+ReadAll then OpenAt+ReadAt: %d requests; store %v; file %v", c.what, n.Load(), st.Stats(), f.Stats())
		if n.Load() != 3 || f.Size() != int64(len(data)) || f.Stats().Requests != 2 || f.Stats().Bytes != 256<<10 {
			t.Errorf("%s: %d requests, size %d, file %v", c.what, n.Load(), f.Size(), f.Stats())
		}
	}
	st := New(Options{})
	n.Store(0)
	_, err := st.Open(context.Background(), name)
	t.Logf("untrusted CA: %v", err)
	var se *Error
	if !errors.As(err, &se) || se.URL != name || strings.Contains(err.Error(), "\n") || st.Stats().Requests != 1 || n.Load() != 0 {
		t.Errorf("untrusted CA: %v after %v", err, st.Stats())
	}
}

// TestHTTPResume: an http body cut twice resumes by Range, each byte once.
func TestHTTPResume(t *testing.T) {
	data := random(1<<20, 11)
	var n atomic.Int64
	ts := httptest.NewServer(serve(data, `"abc"`, &n))
	defer ts.Close()
	p := s3test.NewProxy(t, ts.URL)
	p.Cut(2, 300000)
	st := New(Options{RetryBase: time.Millisecond})
	if got := readAll(t, st, p.URL+"/x.warc.gz"); !bytes.Equal(got, data) {
		t.Fatalf("read %d bytes, not the same", len(got))
	}
	ps := p.Stats()
	t.Logf("cut twice: %+v", ps)
	if ps.Gets != 3 || ps.Bytes != int64(len(data)) {
		t.Errorf("%+v", ps)
	}
}

// TestHTTPNoRange: a server that ignores Range cannot resume a cut stream
// nor serve OpenAt: ErrNoRange, rather than reading from the start again.
func TestHTTPNoRange(t *testing.T) {
	data := random(1<<20, 12)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(data)
	}))
	defer ts.Close()
	p := s3test.NewProxy(t, ts.URL)
	p.Cut(1, 1000)
	st := New(Options{RetryBase: time.Millisecond})
	r, err := st.Open(context.Background(), p.URL+"/x")
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	t.Logf("cut, no ranges: %d bytes, %v", len(got), err)
	if !errors.Is(err, ErrNoRange) || !bytes.Equal(got, data[:1000]) || !strings.Contains(err.Error(), "at offset 1000") {
		t.Errorf("read %d bytes, %v", len(got), err)
	}
	if _, err := st.OpenAt(context.Background(), p.URL+"/x"); !errors.Is(err, ErrNoRange) {
		t.Errorf("OpenAt: %v", err)
	}
}

// TestHTTPErrors: 404 and 401 fail at once, 500 after the retries, each
// with a one-line error without the URL's password or signature.
func TestHTTPErrors(t *testing.T) {
	var n atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		switch r.URL.Path {
		case "/missing":
			http.NotFound(w, r)
		case "/private":
			w.WriteHeader(http.StatusUnauthorized)
		default:
			http.Error(w, "boom", http.StatusInternalServerError)
		}
	}))
	defer ts.Close()
	st := New(Options{Retries: 3, RetryBase: time.Millisecond})
	host := strings.TrimPrefix(ts.URL, "http://")
	const query = "?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDSECRETCRED&X-Amz-Signature=deadbeefsig"
	for _, c := range []struct {
		path string
		kind error
		reqs int64
	}{{"/missing", ErrNotFound, 1}, {"/private", ErrAccessDenied, 1}, {"/flaky", nil, 4}} {
		n.Store(0)
		name := "http://user:hunter2@" + host + c.path + query
		_, err := st.Open(context.Background(), name)
		t.Logf("%s: %v", c.path, err)
		if err == nil || (c.kind != nil && !errors.Is(err, c.kind)) || n.Load() != c.reqs {
			t.Errorf("%s: %v after %d requests", c.path, err, n.Load())
			continue
		}
		msg := err.Error()
		for _, secret := range []string{"hunter2", "deadbeefsig", "AKIDSECRETCRED", "\n"} {
			if strings.Contains(msg, secret) {
				t.Errorf("%s: %q in %q", c.path, secret, msg)
			}
		}
		if !strings.Contains(msg, host+c.path) {
			t.Errorf("%s: URL not in %q", c.path, msg)
		}
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"s3://bkt/a/b.warc.gz":                "s3://bkt/a/b.warc.gz",
		"https://u:p@h.example/x?a=1":         "https://h.example/x?a=1",
		"https://h/x?X-Amz-Signature=s&b=2":   "https://h/x?X-Amz-Signature=REDACTED&b=2",
		"https://h/x?sig=s&sv=1":              "https://h/x?sig=REDACTED&sv=1",
		"local/path?x":                        "local/path?x",
		"-":                                   "-",
		"https://u:p@h/%zz?X-Amz-Signature=s": "https://h/%zz",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestKindOf(t *testing.T) {
	for in, want := range map[string]Kind{
		"-": Std, "a.warc": Local, "/x/y": Local, "s3://b/k": S3, "S3://b/k": S3,
		"https://h/": HTTP, "HTTP://h/": HTTP, "ftp://h/x": Local, "c:/x": Local,
	} {
		if got := KindOf(in); got != want {
			t.Errorf("KindOf(%q) = %v, want %v", in, got, want)
		}
	}
}

// TestLocal: a local output appears only at Commit, with mode 0644 and no
// temporary file left; Abort leaves nothing; "-" reads Options.Stdin and
// writes Options.Stdout; http URLs are read-only.
func TestLocal(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	st := New(Options{Stdin: strings.NewReader("from stdin"), Stdout: &out})
	name := filepath.Join(dir, "out.warc")
	w, err := st.Create(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("hello"))
	if _, err := os.Stat(name); !os.IsNotExist(err) {
		t.Errorf("exists before Commit: %v", err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil {
		t.Errorf("Abort after Commit: %v", err)
	}
	fi, err := os.Stat(name)
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("after Commit: %v %v", fi, err)
	}
	f, err := st.OpenAt(context.Background(), name)
	if err != nil || f.Size() != 5 {
		t.Fatalf("OpenAt: %v", err)
	}
	p := make([]byte, 3)
	if _, err := f.ReadAt(p, 2); err != nil || string(p) != "llo" {
		t.Errorf("ReadAt: %q %v", p, err)
	}
	f.Close()
	w, _ = st.Create(context.Background(), filepath.Join(dir, "gone.warc"))
	w.Write([]byte("partial"))
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left in dir: %v", ents)
	}
	if got := readAll(t, st, "-"); string(got) != "from stdin" {
		t.Errorf("stdin: %q", got)
	}
	w, _ = st.Create(context.Background(), "-")
	w.Write([]byte("to stdout"))
	if w.Commit() != nil || out.String() != "to stdout" {
		t.Errorf("stdout: %q", out.String())
	}
	if _, err := st.OpenAt(context.Background(), "-"); err == nil {
		t.Error("OpenAt of stdin")
	}
	if _, err := st.Create(context.Background(), "https://h/x"); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Create of https: %v", err)
	}
	_, err = st.Create(context.Background(), filepath.Join(dir, "nodir", "x.warc"))
	if err == nil || err.Error() != filepath.Join(dir, "nodir", "x.warc")+": create: no such file or directory" {
		t.Errorf("Create in a missing directory: %v", err)
	}
	if _, err := st.Open(context.Background(), "s3:///k"); err == nil {
		t.Error("s3 URL without bucket")
	}
}

// TestStall: a body that stops arriving is dropped after ReadTimeout and
// the read resumes by Range.
func TestStall(t *testing.T) {
	data := random(100<<10, 13)
	var n atomic.Int64
	release := make(chan struct{})
	defer close(release)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("Content-Length", fmt.Sprint(len(data)))
			w.Header().Set("ETag", `"e"`)
			w.Write(data[:5000])
			w.(http.Flusher).Flush()
			select { // stall
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		w.Header().Set("ETag", `"e"`)
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
	}))
	defer ts.Close()
	st := New(Options{ReadTimeout: time.Second, RetryBase: time.Millisecond})
	if got := readAll(t, st, ts.URL+"/x"); !bytes.Equal(got, data) {
		t.Fatalf("read %d bytes", len(got))
	}
	t.Logf("stalled after 5000 bytes: %d requests, store %v", n.Load(), st.Stats())
	if n.Load() != 2 || st.Stats().Bytes != int64(len(data)) {
		t.Errorf("%d requests, %v", n.Load(), st.Stats())
	}
}
