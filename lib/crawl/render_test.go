package crawl

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/arcport/arcport/lib/frontier"
)

// TestRender: Config.Render's fetch function sends a page's requests
// through the crawler's rules, records each as an embedded capture with
// the bytes as received, and answers the page's document from its
// capture; the links the renderer returns are crawled. The renderer here
// asks what a browser would (lib/browser's part is tested with Chromium in
// e2e TestMirrorgetBrowser).
func TestRender(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	io.WriteString(zw, "console.log('app')")
	zw.Close()
	var log, otherLog requestLog
	other := newServer(t, &otherLog, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "x") }))
	var srvURL string
	srv := newServer(t, &log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			io.WriteString(w, "User-agent: *\nDisallow: /private/\n")
		case "/", "/next.html":
			html(w, `<html><script src="/app.js"></script></html>`)
		case "/app.js":
			w.Header().Set("Content-Type", "text/javascript")
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(gz.Bytes())
		case "/api":
			b, _ := io.ReadAll(r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Set-Cookie", "s=1; Path=/")
			io.WriteString(w, `{"method":"`+r.Method+`","body":"`+string(b)+`","range":"`+r.Header.Get("Range")+`","x":"`+r.Header.Get("X-App")+`"}`)
		case "/moved":
			http.Redirect(w, r, "/api", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	srvURL = srv.URL
	type answer struct {
		status int
		body   string
		err    error
	}
	var mu sync.Mutex
	answers := map[string]answer{}
	cfg := testConfig(srv.URL + "/")
	cfg.Jar = NewJar()
	cfg.Filters, _ = ParseFilters([]string{"-*.bad"})
	cfg.Render = func(ctx context.Context, page *Capture, fetch PageFetch) ([]Link, error) {
		ask := func(name, method, u string, body string, hdr map[string]string) {
			var rd io.Reader
			if body != "" {
				rd = strings.NewReader(body)
			}
			req, _ := http.NewRequestWithContext(ctx, method, u, rd)
			for k, v := range hdr {
				req.Header.Set(k, v)
			}
			st, _, b, err := fetch(ctx, req)
			mu.Lock()
			answers[strings.TrimPrefix(page.URL, srvURL)+" "+name] = answer{st, string(b), err}
			mu.Unlock()
		}
		ask("doc", "GET", page.URL, "", nil)
		ask("app", "GET", srvURL+"/app.js", "", nil)
		ask("api", "GET", srvURL+"/api", "", map[string]string{"Range": "bytes=0-1", "X-App": "1"})
		ask("post", "POST", srvURL+"/api", "a=1", map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
		ask("moved", "GET", srvURL+"/moved", "", nil)
		ask("private", "GET", srvURL+"/private/x", "", nil)
		ask("other", "GET", other.URL+"/x.png", "", nil)
		ask("filtered", "GET", srvURL+"/a.bad", "", nil)
		ask("put", "PUT", srvURL+"/api", "", nil)
		if strings.HasSuffix(page.URL, "/next.html") {
			return nil, nil
		}
		return []Link{{URL: srvURL + "/next.html"}}, nil
	}
	col := run(t, cfg)

	for _, p := range []string{"/", "/next.html"} {
		if n := log.count(p); n != 1 {
			t.Errorf("%s fetched %d times, want once (the renderer answered from the capture)", p, n)
		}
		if a := answers[p+" doc"]; a.status != 200 || !strings.Contains(a.body, "app.js") {
			t.Errorf("%s: the page's document: %+v", p, a)
		}
	}
	for _, p := range []string{"/", "/next.html"} {
		if a := answers[p+" app"]; a.body != "console.log('app')" {
			t.Errorf("%s: app.js to the renderer: %+v (want decoded)", p, a)
		}
	}
	// asked by both pages (and linked from their HTML), fetched once: the
	// second page is answered from the first capture
	for _, p := range []string{"/app.js", "/moved"} {
		if n := log.count(p); n != 1 {
			t.Errorf("%s fetched %d times, want once", p, n)
		}
	}
	if a := answers["/next.html moved"]; a.status != 302 {
		t.Errorf("the second page's redirect: %+v", a)
	}
	if g := col.get(srv.URL + "/app.js"); g == nil || !g.Embedded || g.Via != srv.URL+"/" || !bytes.HasSuffix(g.raw, gz.Bytes()) {
		t.Errorf("app.js capture: %+v", g)
	}
	if a := answers["/ api"]; a.body != `{"method":"GET","body":"","range":"","x":"1"}` {
		t.Errorf("api: %+v (Range dropped, the page's own fields sent)", a)
	}
	if a := answers["/ post"]; a.body != `{"method":"POST","body":"a=1","range":"","x":""}` {
		t.Errorf("POST: %+v", a)
	}
	if a := answers["/ moved"]; a.status != 302 {
		t.Errorf("a redirect is handed over, not followed: %+v", a)
	}
	for _, n := range []string{"private", "other", "filtered", "put"} {
		if a := answers["/ "+n]; !errors.Is(a.err, ErrNotFetched) {
			t.Errorf("%s: %+v, want ErrNotFetched", n, a)
		}
	}
	if log.count("/private/x") != 0 || log.count("/a.bad") != 0 || len(otherLog.paths) != 0 {
		t.Errorf("refused requests reached a server: %v, other %v", log.paths, otherLog.paths)
	}
	// the cookie set by /api went to the jar, and is sent after
	sawCookie := false
	for i, p := range log.paths {
		if p == "/api" && log.headers[i].Get("Cookie") == "s=1" {
			sawCookie = true
		}
	}
	if !sawCookie {
		t.Errorf("the jar's cookie was never sent to /api")
	}
	if col.get(srv.URL+"/next.html") == nil {
		t.Errorf("the rendered link was not crawled: %v", col.urls(srv.URL))
	}
	t.Logf("captures %v; server saw %v", col.urls(srv.URL), log.paths)
}

// TestRenderShared: the same with a frontier (Bolt) holding the crawl.
func TestRenderShared(t *testing.T) {
	withFrontier = func(t *testing.T, cfg Config) frontier.Frontier {
		b, err := frontier.OpenBolt(t.TempDir(), frontierOptions(cfg))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		return b
	}
	defer func() { withFrontier = nil }()
	TestRender(t)
}
