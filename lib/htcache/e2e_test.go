package htcache

import (
	"bytes"
	"context"
	"crypto/sha1"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/internal/httracktest"
	"github.com/arcport/arcport/lib/internal/peertest"
	"github.com/arcport/arcport/lib/record"
)

// site is a small web site served on loopback for real httrack runs.
type site struct {
	srv   *httptest.Server
	files map[string][]byte // path -> body (200)
	types map[string]string
	mu    sync.Mutex
	log   []string // "GET /path If-None-Match=..." per request
}

var siteModified = time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)

func newSite(t *testing.T) *site {
	s := &site{files: map[string][]byte{}, types: map[string]string{}}
	bin := make([]byte, 50000)
	rand.New(rand.NewSource(1)).Read(bin)
	add := func(p, ct string, b []byte) { s.files[p], s.types[p] = b, ct }
	add("/", "text/html; charset=utf-8", []byte(`<html><head><title>Home</title><link rel="stylesheet" href="style.css"></head><body>
<a href="page.html">page</a> <a href="r%C3%A9sum%C3%A9.html">cv</a> <a href="list.html?sort=name">list</a>
<a href="old">old</a> <a href="gone.html">gone</a> <a href="files/data.bin">data</a> <img src="img/a.gif"></body></html>`))
	add("/page.html", "text/html; charset=utf-8", []byte("<html><body><p>A page. <a href=\"./\">home</a></p></body></html>"))
	add("/résumé.html", "text/html; charset=utf-8", []byte("<html><body>Résumé — ünïcödé</body></html>"))
	add("/list.html", "text/html; charset=utf-8", []byte("<html><body><ul><li>a<li>b</ul></body></html>"))
	add("/style.css", "text/css", []byte("body { background: url(img/b.gif) }"))
	add("/img/a.gif", "image/gif", []byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9\x04\x00\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"))
	add("/img/b.gif", "image/gif", []byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x00\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02L\x01\x00;"))
	add("/files/data.bin", "application/octet-stream", bin)
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.log = append(s.log, fmt.Sprintf("%s %s If-None-Match=%s", r.Method, r.URL.Path, r.Header.Get("If-None-Match")))
		s.mu.Unlock()
		switch r.URL.Path {
		case "/old":
			http.Redirect(w, r, "/page.html", http.StatusMovedPermanently)
			return
		}
		b, ok := s.files[r.URL.Path]
		if !ok {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, "<html><body>not here</body></html>")
			return
		}
		w.Header().Set("Content-Type", s.types[r.URL.Path])
		w.Header().Set("ETag", s.etag(r.URL.Path))
		http.ServeContent(w, r, "", siteModified, bytes.NewReader(b))
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *site) etag(p string) string { return fmt.Sprintf(`"%x"`, sha1.Sum(s.files[p]))[:18] + `"` }

func (s *site) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log...)
}

// runHTTrack runs the Debian httrack on the site into dir.
func runHTTrack(t *testing.T, dir string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "httrack", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("httrack %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func needHTTrack(t *testing.T) {
	peertest.Need(t, "httrack", "httrack")
}

// TestHTTrackEndToEnd runs the real httrack against a loopback site and
// reads its cache: every URL with its status, 200 bodies byte-equal to what
// was served (in the zip or external), the redirect with its Location, the
// 404, and fetch times inside the run.
func TestHTTrackEndToEnd(t *testing.T) {
	needHTTrack(t)
	s := newSite(t)
	dir := t.TempDir()
	start := time.Now().Truncate(time.Second)
	runHTTrack(t, dir, s.srv.URL+"/", "-O", dir, "-q", "-%v0", "-c4", "-%!", "-s0")
	end := time.Now()

	var problems []*record.Problem
	c, err := Open(dir, WithProblemFunc(func(p *record.Problem) { problems = append(problems, p) }))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	host := strings.TrimPrefix(s.srv.URL, "http://")
	er, err := c.Entries()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]*Entry{}
	for {
		e, err := er.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		seen[e.URI()] = e
		ft, exact := c.FetchTime(e)
		if !exact || ft.Before(start) || ft.After(end.Add(time.Second)) {
			t.Errorf("%s: fetch time %v (exact %v) outside the run %v..%v", e.URI(), ft, exact, start, end)
		}
	}
	if len(problems) != 0 {
		t.Errorf("problems: %v", problems)
	}
	for p, body := range s.files {
		if p == "/list.html" {
			continue // linked as list.html?sort=name only
		}
		uri := URI("http://" + host + p)
		e := seen[uri]
		if e == nil {
			t.Errorf("%s not in cache (have %v)", uri, keys(seen))
			continue
		}
		if e.Meta.StatusCode != 200 || e.Meta.ETag != s.etag(p) {
			t.Errorf("%s: status %d etag %s", uri, e.Meta.StatusCode, e.Meta.ETag)
		}
		rc, _, err := c.Body(e)
		if err != nil {
			t.Errorf("%s: %v", uri, err)
			continue
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || !bytes.Equal(got, body) {
			t.Errorf("%s: body %d bytes (%v), served %d", uri, len(got), err, len(body))
		}
	}
	if e := seen["http://"+host+"/list.html?sort=name"]; e == nil || e.Meta.StatusCode != 200 {
		t.Errorf("query URL missing or wrong: %+v", e)
	}
	if e := seen["http://"+host+"/r%C3%A9sum%C3%A9.html"]; e == nil || e.Name != "http://"+host+"/r\xc3\xa9sum\xc3\xa9.html" {
		t.Errorf("résumé entry: %+v", e)
	}
	if e := seen["http://"+host+"/old"]; e == nil || e.Meta.StatusCode != 301 || e.Meta.Location != "/page.html" {
		t.Errorf("redirect: %+v", e)
	}
	if e := seen["http://"+host+"/gone.html"]; e == nil || e.Meta.StatusCode != 404 || e.Meta.StatusMessage != "Not Found" {
		t.Errorf("404: %+v", e)
	}
	if e := seen["http://"+host+"/files/data.bin"]; e == nil || e.Meta.InCache {
		t.Errorf("binary file should be external: %+v", e)
	}
	if c.Log.Version == "" || !strings.Contains(c.Log.CommandLine, s.srv.URL) {
		t.Errorf("log: version %q command %q", c.Log.Version, c.Log.CommandLine)
	}

	// The same cache as records.
	rr, err := NewRecordReader(c)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		r, err := rr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(r.Block)
		if err != nil || int64(len(b)) != r.ContentLength() {
			t.Errorf("%s: block %d bytes (%v), Content-Length %d", r.TargetURI(), len(b), err, r.ContentLength())
		}
		n++
	}
	if n != len(seen) || rr.Stats.Missing != 0 {
		t.Errorf("%d records for %d entries, stats %+v", n, len(seen), rr.Stats)
	}
}

func keys(m map[string]*Entry) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestHTTrackUpdatesFromOurCache: after a real crawl, the cache is rewritten
// entry by entry with Writer (every byte of new.zip is ours) and httrack
// --update continues the mirror from it: it sends our ETags back as
// If-None-Match (so it parsed our metadata), gets 304s, and rebuilds the
// HTML pages from our zip data (so it inflated our entries); its own new
// cache then holds the same bodies.
func TestHTTrackUpdatesFromOurCache(t *testing.T) {
	needHTTrack(t)
	s := newSite(t)
	dir := t.TempDir()
	runHTTrack(t, dir, s.srv.URL+"/", "-O", dir, "-q", "-%v0", "-c4", "-%!", "-s0")

	zipPath := filepath.Join(dir, "hts-cache", "new.zip")
	before := cacheBodies(t, dir)
	var buf bytes.Buffer
	{
		c, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		tmp := filepath.Join(dir, "hts-cache", "ours.zip")
		f, err := os.Create(tmp)
		if err != nil {
			t.Fatal(err)
		}
		copyCache(t, c, f)
		f.Close()
		c.Close()
		orig, _ := os.ReadFile(zipPath)
		ours, _ := os.ReadFile(tmp)
		if bytes.Equal(orig, ours) {
			t.Fatal("rewritten cache is byte-identical to httrack's: the test would prove nothing")
		}
		if err := os.Rename(tmp, zipPath); err != nil {
			t.Fatal(err)
		}
		buf.Write(ours)
	}
	// Remove the HTML pages: httrack must rebuild them from our cache.
	host := strings.ReplaceAll(strings.TrimPrefix(s.srv.URL, "http://"), ":", "_")
	page := filepath.Join(dir, host, "page.html")
	if err := os.Remove(page); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.log = nil
	s.mu.Unlock()

	runHTTrack(t, dir, s.srv.URL+"/", "-O", dir, "-q", "-%v0", "-c4", "-%!", "-s0", "--update")

	conditional := 0
	for _, l := range s.requests() {
		for p := range s.files {
			if strings.HasSuffix(l, "If-None-Match="+s.etag(p)) {
				conditional++
			}
		}
	}
	t.Logf("update requests:\n%s", strings.Join(s.requests(), "\n"))
	if conditional < len(s.files)-1 {
		t.Errorf("only %d conditional requests carried our ETags:\n%s", conditional, strings.Join(s.requests(), "\n"))
	}
	if b, err := os.ReadFile(page); err != nil || !bytes.Contains(b, []byte("A page.")) {
		t.Errorf("page.html not rebuilt from our cache: %v %q", err, b)
	}
	after := cacheBodies(t, dir)
	for u, b := range before {
		if !bytes.Equal(after[u], b) {
			t.Errorf("%s: body after update %q, before %q", u, after[u], b)
		}
	}
	if len(after) != len(before) {
		t.Errorf("%d entries after update, %d before", len(after), len(before))
	}
}

// cacheBodies maps each entry's URI to its body.
func cacheBodies(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	c, err := Open(dir, WithPolicy(record.Fail))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	er, _ := c.Entries()
	out := map[string][]byte{}
	for {
		e, err := er.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		rc, _, err := c.Body(e)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		out[fmt.Sprintf("%s %d", e.URI(), e.Meta.StatusCode)] = b
	}
}

// TestHTTrackInterruptedUpdate: a real httrack crawl, then a real `httrack
// --update` killed while the server holds back most pages. HTTrack leaves
// new.zip (what the update fetched, no central directory) beside old.zip
// (the first crawl): Entries gives every URL of the site once, the ones
// the update did not reach from old.zip, dated inside the first crawl by
// old.txt.
func TestHTTrackInterruptedUpdate(t *testing.T) {
	httracktest.Need(t)
	s := httracktest.NewSite(t, 12, 5)
	dir := t.TempDir()
	start1 := time.Now().Truncate(time.Second)
	s.Mirror(t, dir)
	end1 := time.Now()
	s.Interrupt(t, dir)

	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.OldPath == "" {
		ents, _ := os.ReadDir(filepath.Join(dir, "hts-cache"))
		t.Fatalf("no old.zip read beside %s (hts-cache: %v)", c.Path, ents)
	}
	er, err := c.Entries()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	fromOld := 0
	for {
		e, err := er.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		seen[e.URI()]++
		if e.Old {
			fromOld++
			if ft, exact := c.FetchTime(e); !exact || ft.Before(start1) || ft.After(end1) {
				t.Errorf("%s (old.zip): fetch time %v (exact %v) outside the first crawl %v..%v", e.URI(), ft, exact, start1, end1)
			}
		}
	}
	for i := -1; i < s.Pages; i++ {
		if u := s.PageURL(i); seen[u] != 1 {
			t.Errorf("%s: %d entries, want 1", u, seen[u])
		}
	}
	if fromOld == 0 || fromOld == len(seen) {
		t.Errorf("%d of %d entries from old.zip: the update's new.zip should hold some, old.zip the rest", fromOld, len(seen))
	}
	t.Logf("%d entries: %d from new.zip (%s), %d from old.zip", len(seen), len(seen)-fromOld, c.Path, fromOld)
}
