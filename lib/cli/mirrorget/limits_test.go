package mirrorget

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/arcport/arcport/lib/crawl"
)

func gzipped(t *testing.T, prefix string, zeros int, suffix string) []byte {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	zw.Write([]byte(prefix))
	zw.Write(make([]byte, zeros))
	zw.Write([]byte(suffix))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestMirrorGzipBomb: with -O, a page whose gzip coding inflates past the
// parse limit is kept in the mirror as received (the gzip bytes, not
// rewritten), with a warning, while a small gzip page is decoded and its
// links rewritten as usual.
func TestMirrorGzipBomb(t *testing.T) {
	bomb := gzipped(t, `<html><a href=index.html>`, 8<<20, `</html>`)
	small := gzipped(t, `<html><a href="index.html">home</a></html>`, 0, "")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := map[string][]byte{"/index.html": []byte(`<a href="bomb.html">b</a> <a href="small.html">s</a>`),
			"/bomb.html": bomb, "/small.html": small}[r.URL.Path]
		if body == nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path != "/index.html" {
			w.Header().Set("Content-Encoding", "gzip")
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}))
	defer srv.Close()
	dir := t.TempDir()
	cfg := crawl.DefaultConfig()
	cfg.Seeds = []string{srv.URL + "/index.html"}
	cfg.Robots = false
	cfg.MaxParse = 1 << 20
	o := &Options{Crawl: cfg, Format: "warc", Output: filepath.Join(dir, "x.warc.gz"), Mirror: filepath.Join(dir, "m")}
	var stderr strings.Builder
	if err := Run(context.Background(), o, nil, &stderr); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(srv.URL)
	site := filepath.Join(dir, "m", strings.ReplaceAll(u.Host, ":", "_"))
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(site, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if got := read("bomb.html"); got != string(bomb) {
		t.Errorf("bomb.html: %d bytes, want the %d bytes of gzip as received", len(got), len(bomb))
	}
	if got, want := read("small.html"), `<html><a href="index.html">home</a></html>`; got != want {
		t.Errorf("small.html: %q, want %q", got, want)
	}
	if got, want := read("index.html"), `<a href="bomb.html">b</a> <a href="small.html">s</a>`; got != want {
		t.Errorf("index.html: %q, want %q", got, want)
	}
	want := "mirrorget: " + srv.URL + "/bomb.html: decoded body larger than 1048576 bytes: links read from the first 1048576 bytes only; " +
		"kept in the mirror as received (Content-Encoding: gzip)\n"
	if stderr.String() != want {
		t.Errorf("stderr %q\nwant %q", stderr.String(), want)
	}
}
