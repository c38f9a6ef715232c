package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/frontier/redistest"
	"github.com/arcport/arcport/lib/record"
)

// changingSite serves version 1 of a small site, then version 2 after
// next(): a.html unchanged and answering conditional requests (304); b.html
// unchanged without validators (200, same body); c.html changed; d.html
// deleted (404) and no longer linked; e.html new.
type changingSite struct {
	srv     *httptest.Server
	version atomic.Int32
	sent    atomic.Int64 // body bytes sent
}

func newChangingSite(t *testing.T) *changingSite {
	s := &changingSite{}
	s.version.Store(1)
	page := func(title, links string) string {
		return "<html><head><title>" + title + "</title></head><body><h1>" + title + "</h1>" + links + strings.Repeat("<p>text</p>", 20) + "</body></html>"
	}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := s.version.Load()
		var body, etag string
		switch r.URL.Path {
		case "/", "/index.html":
			if v == 1 {
				body = page("Index 1", `<a href="a.html">a</a> <a href="b.html">b</a> <a href="c.html">c</a> <a href="d.html">d</a>`)
			} else {
				body = page("Index 2", `<a href="a.html">a</a> <a href="b.html">b</a> <a href="c.html">c</a> <a href="e.html">e</a>`)
			}
		case "/a.html":
			body, etag = page("Page A", ""), `"a-1"`
		case "/b.html":
			body = page("Page B", "")
		case "/c.html":
			body, etag = page(fmt.Sprintf("Page C%d", v), ""), fmt.Sprintf(`"c-%d"`, v)
		case "/d.html":
			if v == 1 {
				body = page("Page D", "")
			}
		case "/e.html":
			if v == 2 {
				body = page("Page E", "")
			}
		}
		if body == "" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		if etag != "" {
			w.Header().Set("ETag", etag)
			if r.Header.Get("If-None-Match") == etag {
				w.WriteHeader(http.StatusNotModified)
				return
			}
		}
		s.sent.Add(int64(len(body)))
		fmt.Fprint(w, body)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// TestUpdateRevisits: a mirror crawled as WARC, the site changed, then an
// update over the same -O DIR. The update writes revisit records for the
// unchanged pages (server-not-modified for the 304, identical-payload-digest
// for the same body again) naming the first crawl's records, and response
// records for the changed and new pages; waczpack get and ls of a WACZ of
// both crawls resolve the revisits to the first crawl's payloads, a WACZ of
// the update alone says the originals are missing (exit 1), and
// ReplayWeb.page replays every page of the update (no blank page).
func TestUpdateRevisits(t *testing.T) {
	s := newChangingSite(t)
	dir := t.TempDir()
	mirror := filepath.Join(dir, "m")
	v1, v2 := filepath.Join(dir, "v1.warc.gz"), filepath.Join(dir, "v2.warc.gz")
	mg := bin(t, "mirrorget")
	if _, stderr, code := run(t, mg, nil, "-q", "--format", "warc", "-O", mirror, "-o", v1, s.srv.URL+"/index.html"); code != 0 {
		t.Fatalf("first crawl: exit %d: %s", code, stderr)
	}
	first := s.sent.Load()
	// the update's captures a second later (WARC-Date has seconds): its
	// revisits are then the latest captures, the ones replay shows
	time.Sleep(1100 * time.Millisecond)
	s.version.Store(2)
	s.sent.Store(0)
	if _, stderr, code := run(t, mg, nil, "-q", "--format", "warc", "-O", mirror, "-o", v2, s.srv.URL+"/index.html"); code != 0 {
		t.Fatalf("update: exit %d: %s", code, stderr)
	}
	t.Logf("body bytes sent: first crawl %d, update %d", first, s.sent.Load())

	byURL := func(path string) map[string]*record.Record {
		m := map[string]*record.Record{}
		for _, c := range readWARC(t, readFile(t, path)) {
			if typ := c.rec.Type(); typ == record.Response || typ == record.Revisit {
				m[c.rec.Header.Get(record.FieldTargetURI)] = c.rec
			}
		}
		return m
	}
	one, two := byURL(v1), byURL(v2)
	u := func(p string) string { return s.srv.URL + "/" + p }
	for _, tc := range []struct {
		page, typ, profile string
	}{
		{"index.html", "response", ""},
		{"a.html", "revisit", "http://netpreserve.org/warc/1.1/revisit/server-not-modified"},
		{"b.html", "revisit", "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"},
		{"c.html", "response", ""},
		{"e.html", "response", ""},
	} {
		r := two[u(tc.page)]
		if r == nil {
			t.Errorf("%s: not in the update's WARC", tc.page)
			continue
		}
		if string(r.Type()) != tc.typ || r.Header.Get(record.FieldProfile) != tc.profile {
			t.Errorf("%s: %s %q, want %s %q", tc.page, r.Type(), r.Header.Get(record.FieldProfile), tc.typ, tc.profile)
			continue
		}
		if tc.typ != "revisit" {
			continue
		}
		o := one[u(tc.page)]
		for _, f := range []struct{ got, want string }{
			{r.Header.Get(record.FieldRefersTo), o.ID()},
			{r.Header.Get(record.FieldRefersToTargetURI), u(tc.page)},
			{r.Header.Get(record.FieldRefersToDate), o.Header.Get(record.FieldDate)},
			{r.Header.Get(record.FieldPayloadDigest), o.Header.Get(record.FieldPayloadDigest)},
		} {
			if f.got != f.want || f.got == "" {
				t.Errorf("%s: revisit field %q, want %q", tc.page, f.got, f.want)
			}
		}
	}
	if two[u("d.html")] != nil {
		t.Errorf("d.html (no longer linked) fetched again")
	}

	wz := bin(t, "waczpack")
	both, only := filepath.Join(dir, "both.wacz"), filepath.Join(dir, "update.wacz")
	for _, c := range [][]string{{"-o", both, v1, v2}, {"-o", only, v2}} {
		if _, stderr, code := run(t, wz, nil, c...); code != 0 {
			t.Fatalf("waczpack %v: exit %d: %s", c, code, stderr)
		}
	}
	for _, p := range []string{"a.html", "b.html"} {
		out, stderr, code := run(t, wz, nil, "get", both, u(p))
		if code != 0 || !strings.Contains(string(out), "<title>Page "+strings.ToUpper(p[:1])+"</title>") {
			t.Errorf("get %s from both crawls: exit %d, %d bytes: %s", p, code, len(out), stderr)
		}
		out, stderr, code = run(t, wz, nil, "get", only, u(p))
		if code != 1 || len(out) != 0 || !strings.Contains(stderr, "not in this archive") {
			t.Errorf("get %s from the update alone: exit %d, %d bytes, %q (want exit 1, no output, the original named missing)", p, code, len(out), stderr)
		}
	}
	out, stderr, code := run(t, wz, nil, "ls", both)
	if code != 0 || strings.Count(string(out), "(revisit of ") != 2 {
		t.Errorf("ls of both crawls: exit %d, %s%s", code, out, stderr)
	}
	if _, stderr, code := run(t, wz, nil, "ls", only); code != 1 || !strings.Contains(stderr, "2 revisit(s)") {
		t.Errorf("ls of the update alone: exit %d, %s", code, stderr)
	}

	// ReplayWeb.page, latest capture of each page
	wzReplayPeers(t)
	for _, tc := range []struct{ page, title string }{
		{"index.html", "Index 2"}, {"a.html", "Page A"}, {"b.html", "Page B"}, {"c.html", "Page C2"}, {"e.html", "Page E"},
	} {
		if got := wzReplayTitle(t, both, u(tc.page)); got != tc.title {
			t.Errorf("ReplayWeb.page shows %q for %s, want %q", got, tc.page, tc.title)
		}
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDedupIndex: with --dedup-index (the CDXJ of an earlier crawl) a
// capture whose payload is already there, under another URL, is written as
// an identical-payload-digest revisit naming that capture; so is a second
// URL with the payload of a first one in the same crawl, and with the Redis
// frontier the same across workers. waczpack get of such a revisit returns
// the payload of the capture it names.
func TestDedupIndex(t *testing.T) {
	body := "<html><head><title>Shared</title></head><body>" + strings.Repeat("same bytes ", 50) + "</body></html>"
	site := func(links ...string) *httptest.Server {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			if r.URL.Path == "/" {
				for _, l := range links {
					fmt.Fprintf(w, `<a href="%s">%s</a> `, l, l)
				}
				return
			}
			if r.URL.Path == "/robots.txt" {
				http.NotFound(w, r)
				return
			}
			fmt.Fprint(w, body)
		}))
		t.Cleanup(srv.Close)
		return srv
	}
	one, two := site("x.html"), site("y.html", "z.html")
	dir := t.TempDir()
	c1, c2 := filepath.Join(dir, "c1.warc.gz"), filepath.Join(dir, "c2.warc.gz")
	mg, wz := bin(t, "mirrorget"), bin(t, "waczpack")
	if _, stderr, code := run(t, mg, nil, "-q", "--format", "warc", "-o", c1, one.URL+"/"); code != 0 {
		t.Fatalf("crawl 1: exit %d: %s", code, stderr)
	}
	cdxj, stderr, code := run(t, wz, nil, "index", c1)
	if code != 0 {
		t.Fatalf("index: exit %d: %s", code, stderr)
	}
	idx := filepath.Join(dir, "c1.cdxj")
	os.WriteFile(idx, cdxj, 0o644)
	if _, stderr, code := run(t, mg, nil, "-q", "--format", "warc", "--dedup-index", idx, "-c", "1", "-o", c2, two.URL+"/"); code != 0 {
		t.Fatalf("crawl 2: exit %d: %s", code, stderr)
	}
	var x *record.Record
	for _, c := range readWARC(t, readFile(t, c1)) {
		if c.rec.Header.Get(record.FieldTargetURI) == one.URL+"/x.html" && c.rec.Type() == record.Response {
			x = c.rec
		}
	}
	revisits := 0
	for _, c := range readWARC(t, readFile(t, c2)) {
		u := c.rec.Header.Get(record.FieldTargetURI)
		if u != two.URL+"/y.html" && u != two.URL+"/z.html" || c.rec.Type() == record.Request {
			continue
		}
		if c.rec.Type() != record.Revisit || c.rec.Header.Get(record.FieldProfile) != "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest" ||
			c.rec.Header.Get(record.FieldRefersToTargetURI) != one.URL+"/x.html" || c.rec.Header.Get(record.FieldRefersToDate) != x.Header.Get(record.FieldDate) {
			t.Errorf("%s: %s %v, want a revisit of %s", u, c.rec.Type(), c.rec.Header, one.URL+"/x.html")
			continue
		}
		revisits++
	}
	if revisits != 2 {
		t.Errorf("%d revisits in crawl 2, want 2", revisits)
	}
	wacz := filepath.Join(dir, "both.wacz")
	if _, stderr, code := run(t, wz, nil, "-o", wacz, c1, c2); code != 0 {
		t.Fatalf("waczpack: exit %d: %s", code, stderr)
	}
	if out, stderr, code := run(t, wz, nil, "get", wacz, two.URL+"/z.html"); code != 0 || string(out) != body {
		t.Errorf("get of a revisit of another URL: exit %d, %q %s", code, out, stderr)
	}

	// the Redis frontier: the second URL with the payload of the first
	srv := redistest.Start(t, redistest.Options{})
	wd := filepath.Join(dir, "w")
	if _, stderr, code := run(t, mg, nil, "-q", "--format", "warc", "-c", "1", "--frontier", "redis://"+srv.Addr+"/0", "--crawl-id", "dd", "--warc-dir", wd, two.URL+"/"); code != 0 {
		t.Fatalf("redis crawl: exit %d: %s", code, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(wd, "*.warc.gz"))
	types := map[record.Type]int{}
	for _, f := range files {
		for _, c := range readWARC(t, readFile(t, f)) {
			if u := c.rec.Header.Get(record.FieldTargetURI); strings.HasSuffix(u, "y.html") || strings.HasSuffix(u, "z.html") {
				types[c.rec.Type()]++
			}
		}
	}
	if types[record.Response] != 1 || types[record.Revisit] != 1 {
		t.Errorf("y and z through the Redis frontier: %v, want one response and one revisit", types)
	}
}
