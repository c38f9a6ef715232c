package crawl

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/record"
)

// got is a capture copied out of the sink (spools close after the sink).
type got struct {
	*Capture
	raw  []byte
	body []byte
	// headers of the WARC records made while the capture was live
	reqRec, respRec record.Header
}

type collector struct {
	mu   sync.Mutex
	caps []got
}

func (c *collector) Capture(cp *Capture) error {
	g := got{Capture: cp}
	req, resp := cp.WARCRecords()
	g.reqRec = req.Header
	if resp != nil {
		g.respRec = resp.Header
	}
	if cp.Response != nil {
		g.raw, _ = io.ReadAll(cp.Response.Reader())
		if b, err := cp.Body(); err == nil {
			g.body, _ = io.ReadAll(b)
			b.Close()
		}
	}
	cc := *cp
	cc.Response = nil
	g.Capture = &cc
	c.mu.Lock()
	c.caps = append(c.caps, g)
	c.mu.Unlock()
	return nil
}

// urls lists the captured URLs (path and query relative to base), sorted.
func (c *collector) urls(base string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, g := range c.caps {
		out = append(out, strings.TrimPrefix(g.URL, base))
	}
	sort.Strings(out)
	return out
}

func (c *collector) get(u string) *got {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.caps {
		if c.caps[i].URL == u {
			return &c.caps[i]
		}
	}
	return nil
}

// testConfig is DefaultConfig with fast retries and seeds.
func testConfig(seeds ...string) Config {
	cfg := DefaultConfig()
	cfg.Seeds = seeds
	cfg.RetryBackoff = 10 * time.Millisecond
	cfg.Timeout = 10 * time.Second
	return cfg
}

func run(t *testing.T, cfg Config) *collector {
	t.Helper()
	col := &collector{}
	if withFrontier != nil {
		cfg.Frontier = withFrontier(t, cfg)
	}
	c, err := New(cfg, col)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := c.Run(ctx); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if cfg.Frontier != nil {
		// the frontier did the crawl's book-keeping
		st, err := cfg.Frontier.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if over, _ := cfg.Frontier.Over(ctx); !over || st.Done == 0 || st.Queued != 0 || st.Leased != 0 {
			t.Fatalf("frontier after the crawl: over %v, %+v", over, st)
		}
	}
	return col
}

func eq(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

// requestLog records what a test server saw.
type requestLog struct {
	mu       sync.Mutex
	paths    []string
	times    []time.Time
	headers  []http.Header
	cur, max int
	conns    int
}

func (l *requestLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.paths = append(l.paths, r.URL.RequestURI())
		l.times = append(l.times, time.Now())
		l.headers = append(l.headers, r.Header.Clone())
		l.cur++
		if l.cur > l.max {
			l.max = l.cur
		}
		l.mu.Unlock()
		defer func() {
			l.mu.Lock()
			l.cur--
			l.mu.Unlock()
		}()
		h.ServeHTTP(w, r)
	})
}

func (l *requestLog) count(path string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, p := range l.paths {
		if p == path {
			n++
		}
	}
	return n
}

func newServer(t *testing.T, log *requestLog, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(log.wrap(h))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			log.mu.Lock()
			log.conns++
			log.mu.Unlock()
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

func html(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	io.WriteString(w, body)
}

// A small site: scope, robots, redirect, 404, requisites, external links.
func TestCrawlSite(t *testing.T) {
	var other *httptest.Server
	otherLog := &requestLog{}
	other = newServer(t, otherLog, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		html(w, "<a href=/far.html>far</a>")
	}))
	log := &requestLog{}
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "User-agent: *\nDisallow: /site/private\n")
	})
	mux.HandleFunc("/site/", func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/site/":
			html(w, `<html><head><link rel=stylesheet href="style.css"><script src='/js/app.js'></script></head>
<body><img src="img/logo.png"><a href="a.html#top">a</a> <a href="a.html">a again</a>
<a href="b.html">b</a> <a href="private/secret.html">secret</a> <a href="/elsewhere.html">outside</a>
<a href="missing.html">404</a> <a href="moved">moved</a> <a href="`+other.URL+`/ext.html">ext</a>
<a href="mailto:x@y.z">mail</a></body></html>`)
		case "/site/a.html":
			html(w, `<a href="sub/deep.html">deep</a><a href="../site/">up</a>`)
		case "/site/sub/deep.html":
			html(w, `<a href="deeper.html">deeper</a>`)
		case "/site/sub/deeper.html":
			html(w, `end`)
		case "/site/b.html":
			html(w, `<meta http-equiv="refresh" content="0; url=a.html">`)
		case "/site/style.css":
			w.Header().Set("Content-Type", "text/css")
			io.WriteString(w, `body { background: url("img/bg.gif") }`)
		case "/site/img/logo.png", "/site/img/bg.gif":
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte{0x89, 'P', 'N', 'G'})
		case "/site/moved":
			http.Redirect(w, r, "/site/new.html", http.StatusMovedPermanently)
		case "/site/new.html":
			html(w, "new")
		case "/site/private/secret.html":
			html(w, "secret")
		default:
			http.NotFound(w, r)
		}
	})
	mux.HandleFunc("/js/app.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/javascript")
		io.WriteString(w, `var i = new Image(); i.src = "/site/img/js.gif";`)
	})
	mux.HandleFunc("/elsewhere.html", func(w http.ResponseWriter, r *http.Request) { html(w, "no") })
	srv := newServer(t, log, mux)

	var skipped []string
	cfg := testConfig(srv.URL + "/site/")
	cfg.OnSkip = func(u, reason string) { skipped = append(skipped, strings.TrimPrefix(u, srv.URL)+" "+reason) }
	col := run(t, cfg)

	eq(t, "captured", col.urls(srv.URL), []string{
		"/js/app.js", "/robots.txt",
		"/site/", "/site/a.html", "/site/b.html", "/site/img/bg.gif", "/site/img/js.gif", "/site/img/logo.png",
		"/site/missing.html", "/site/moved", "/site/new.html", "/site/style.css",
		"/site/sub/deep.html", "/site/sub/deeper.html",
	})
	eq(t, "skipped", skipped, []string{"/site/private/secret.html robots.txt"})
	if p := log.paths[0]; p != "/robots.txt" {
		t.Errorf("first request %s, want /robots.txt", p)
	}
	if n := len(otherLog.paths); n != 0 {
		t.Errorf("out-of-scope host got %d requests: %v", n, otherLog.paths)
	}
	if log.count("/elsewhere.html") != 0 {
		t.Error("navigational link outside the directory was fetched")
	}
	if st := col.get(srv.URL + "/site/missing.html").Status(); st != 404 {
		t.Errorf("missing.html status %d", st)
	}
	if st := col.get(srv.URL + "/site/moved").Status(); st != 301 {
		t.Errorf("moved status %d", st)
	}
	if c := col.get(srv.URL + "/site/new.html"); c.Redirects != 1 || c.Via != srv.URL+"/site/" {
		t.Errorf("new.html redirects %d via %q", c.Redirects, c.Via)
	}
	// depth and kind bookkeeping
	for _, tt := range []struct {
		path     string
		depth    int
		embedded bool
	}{
		{"/site/", 0, false}, {"/site/a.html", 1, false}, {"/site/sub/deep.html", 2, false},
		{"/site/img/logo.png", 0, true}, {"/site/img/bg.gif", 0, true}, {"/site/sub/deeper.html", 3, false},
	} {
		c := col.get(srv.URL + tt.path)
		if c.Depth != tt.depth || c.Embedded != tt.embedded {
			t.Errorf("%s: depth %d embedded %v, want %d %v", tt.path, c.Depth, c.Embedded, tt.depth, tt.embedded)
		}
	}
	// the decisions reported with the index's links, one per distinct URL
	// (a.html#top and a.html are one link; "duplicate" is for URLs queued
	// from other pages)
	var decisions []string
	for _, l := range col.get(srv.URL + "/site/").Links {
		decisions = append(decisions, fmt.Sprintf("%s %v %s", strings.TrimPrefix(l.Canonical, srv.URL), l.Taken, l.Reason))
	}
	eq(t, "index decisions", decisions, []string{
		"/site/style.css true ", "/js/app.js true ", "/site/img/logo.png true ", "/site/a.html true ",
		"/site/b.html true ", "/site/private/secret.html true ",
		"/elsewhere.html false scope", "/site/missing.html true ", "/site/moved true ",
		strings.TrimPrefix(other.URL+"/ext.html", srv.URL) + " false scope",
	})

	// -r 1: the start page and what it links to, with requisites
	cfg.MaxDepth = 1
	skipped = nil
	col = run(t, cfg)
	eq(t, "captured with -r 1", col.urls(srv.URL), []string{
		"/js/app.js", "/robots.txt",
		"/site/", "/site/a.html", "/site/b.html", "/site/img/bg.gif", "/site/img/js.gif", "/site/img/logo.png",
		"/site/missing.html", "/site/moved", "/site/new.html", "/site/style.css",
	})

	// --ext-depth 1: the external page, but not what it links to
	cfg.MaxDepth = -1
	cfg.ExtDepth = 1
	cfg.Robots = false
	col = run(t, cfg)
	if c := col.get(other.URL + "/ext.html"); c == nil || c.Hops != 1 {
		t.Errorf("ext.html not captured with --ext-depth 1 (%v)", c)
	}
	if col.get(other.URL+"/far.html") != nil {
		t.Error("far.html (2 hops out) captured with --ext-depth 1")
	}
	if col.get(srv.URL+"/site/private/secret.html") == nil || col.get(srv.URL+"/robots.txt") != nil {
		t.Error("--robots off: robots.txt fetched or Disallow obeyed")
	}

	// filters: later rule wins
	cfg.ExtDepth = 0
	cfg.Filters, _ = ParseFilters([]string{"-*.gif", "+*/elsewhere.html", "-*/sub/*"})
	col = run(t, cfg)
	eq(t, "captured with filters", col.urls(srv.URL), []string{
		"/elsewhere.html", "/js/app.js",
		"/site/", "/site/a.html", "/site/b.html", "/site/img/logo.png",
		"/site/missing.html", "/site/moved", "/site/new.html", "/site/private/secret.html", "/site/style.css",
	})
}

// The response recorded is every byte the server sent (interim response,
// chunked transfer coding, gzip), the request every byte it received.
func TestRawBytes(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	io.WriteString(zw, "<html><body>Hello, raw world</body></html>")
	zw.Close()
	var resp bytes.Buffer
	resp.WriteString("HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n")
	resp.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\nX-Odd:  spaced  \r\n\r\n")
	z := gz.Bytes()
	fmt.Fprintf(&resp, "%x;ext=1\r\n", 10)
	resp.Write(z[:10])
	fmt.Fprintf(&resp, "\r\n%X\r\n", len(z)-10)
	resp.Write(z[10:])
	resp.WriteString("\r\n0\r\nTrailer-Field: x\r\n\r\n")
	want := resp.Bytes()

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var mu sync.Mutex
	var reqs [][]byte
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					var req []byte
					for {
						line, err := br.ReadBytes('\n')
						req = append(req, line...)
						if err != nil {
							return
						}
						if string(line) == "\r\n" {
							break
						}
					}
					mu.Lock()
					reqs = append(reqs, req)
					mu.Unlock()
					c.Write(want)
				}
			}(c)
		}
	}()
	base := "http://" + ln.Addr().String()
	cfg := testConfig(base + "/x")
	cfg.Robots = false
	cfg.Header = append(cfg.Header, record.Field{Name: "X-Test", Value: "1"})
	col := run(t, cfg)
	c := col.get(base + "/x")
	if c == nil {
		t.Fatal("no capture")
	}
	if !bytes.Equal(c.raw, want) {
		t.Errorf("raw response differs:\n got %q\nwant %q", c.raw, want)
	}
	if len(reqs) != 1 || !bytes.Equal(c.Request, reqs[0]) {
		t.Errorf("request recorded %q, server read %q", c.Request, reqs)
	}
	wantReq := "GET /x HTTP/1.1\r\nHost: " + ln.Addr().String() + "\r\nUser-Agent: " + DefaultUserAgent() +
		"\r\nAccept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\nAccept-Encoding: gzip, deflate, br\r\nX-Test: 1\r\nConnection: keep-alive\r\n\r\n"
	if string(c.Request) != wantReq {
		t.Errorf("request %q, want %q", c.Request, wantReq)
	}
	if string(c.body) != "<html><body>Hello, raw world</body></html>" {
		t.Errorf("decoded body %q", c.body)
	}
	if c.Status() != 200 || c.Head.Header.Get("X-Odd") != "spaced" || c.IP != "127.0.0.1" {
		t.Errorf("status %d, X-Odd %q, IP %q", c.Status(), c.Head.Header.Get("X-Odd"), c.IP)
	}
	req, rsp := c.reqRec, c.respRec
	if req.Get("WARC-Concurrent-To") != rsp.Get("WARC-Record-ID") || rsp.Get("Content-Length") != fmt.Sprint(len(want)) ||
		rsp.Get("Content-Type") != "application/http;msgtype=response" || rsp.Get("WARC-IP-Address") != "127.0.0.1" ||
		req.Get("Content-Length") != fmt.Sprint(len(wantReq)) || rsp.Get("WARC-Target-URI") != base+"/x" {
		t.Errorf("records: %v / %v", req, rsp)
	}
}

// -c 2 --rate 10 as seen by the server: never more than 2 requests at once,
// never more than 10 in any second; and -c 2 alone does use 2 connections.
func TestPoliteness(t *testing.T) {
	const pages = 24
	mk := func(delay time.Duration) (*httptest.Server, *requestLog) {
		log := &requestLog{}
		srv := newServer(t, log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(delay)
			if r.URL.Path == "/" {
				var b strings.Builder
				for i := 0; i < pages; i++ {
					fmt.Fprintf(&b, "<a href=p%d.html>p</a>", i)
				}
				html(w, b.String())
				return
			}
			if r.URL.Path == "/robots.txt" {
				http.NotFound(w, r)
				return
			}
			html(w, "page")
		}))
		return srv, log
	}

	srv, log := mk(40 * time.Millisecond)
	cfg := testConfig(srv.URL + "/")
	cfg.Connections = 2
	col := run(t, cfg)
	if len(col.caps) != pages+2 {
		t.Fatalf("%d captures", len(col.caps))
	}
	if log.max != 2 {
		t.Errorf("-c 2: server saw at most %d concurrent requests, want exactly 2", log.max)
	}
	if log.conns > 2 && !sharedNoIdle {
		t.Errorf("-c 2: server saw %d connections", log.conns)
	}

	// The rate is measured where requests come off the wire: the time a
	// connection read returns a request line (handler start times carry the
	// server's own scheduling delays).
	srv, log = mk(30 * time.Millisecond)
	wire := &wireClock{}
	srv.Listener.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv2 := httptest.NewUnstartedServer(srv.Config.Handler)
	srv2.Listener = wire.wrap(ln)
	srv2.Start()
	defer srv2.Close()
	cfg = testConfig(srv2.URL + "/")
	cfg.Connections = 2
	cfg.Rate = 10
	start := time.Now()
	run(t, cfg)
	elapsed := time.Since(start)
	if log.max > 2 {
		t.Errorf("-c 2 --rate 10: %d concurrent requests", log.max)
	}
	ts := wire.times()
	if len(ts) != pages+2 {
		t.Fatalf("%d requests", len(ts))
	}
	// A second at the server is 1 s minus what its reading goroutine may
	// lag behind the kernel (a few ms; much more under -race).
	const lag = 25 * time.Millisecond
	worst := 0
	for i := range ts {
		n := 0
		for j := i; j < len(ts) && ts[j].Sub(ts[i]) < time.Second-lag; j++ {
			n++
		}
		worst = max(worst, n)
	}
	if worst > 10 {
		t.Errorf("--rate 10: server saw %d requests within one second", worst)
	}
	minGap := time.Hour
	for i := 1; i < len(ts); i++ {
		minGap = min(minGap, ts[i].Sub(ts[i-1]))
	}
	t.Logf("--rate 10: %d requests in %v, smallest gap %v, max concurrency %d", len(ts), elapsed, minGap, log.max)
}

// --max-rate as seen by the server: bytes written by time t never exceed
// what the cap allows plus socket buffers.
func TestMaxRate(t *testing.T) {
	const total = 800 << 10
	const capRate = 200 << 10
	type mark struct {
		t time.Time
		n int
	}
	var mu sync.Mutex
	var marks []mark
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Length", fmt.Sprint(total))
		buf := bytes.Repeat([]byte("x"), 8<<10)
		sent := 0
		for sent < total {
			n, err := w.Write(buf)
			if err != nil {
				return
			}
			w.(http.Flusher).Flush()
			sent += n
			mu.Lock()
			marks = append(marks, mark{time.Now(), sent})
			mu.Unlock()
		}
	})
	srv := httptest.NewUnstartedServer(h)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.Listener = smallSendBuf{ln}
	srv.Start()
	defer srv.Close()

	cfg := testConfig(srv.URL + "/big.bin")
	cfg.Robots = false
	cfg.MaxRate = capRate
	col := run(t, cfg)
	if c := col.get(srv.URL + "/big.bin"); c == nil || len(c.body) != total {
		t.Fatal("big.bin not captured whole")
	}
	srv.Close() // waits for the handler
	mu.Lock()
	defer mu.Unlock()
	t0 := marks[0].t
	const allowance = 160 << 10 // socket buffers on both sides plus one burst
	for _, m := range marks {
		limit := allowance + int(float64(capRate)*m.t.Sub(t0).Seconds())
		if m.n > limit {
			t.Fatalf("server had sent %d bytes after %v: cap allows %d", m.n, m.t.Sub(t0), limit)
		}
	}
	last := marks[len(marks)-1]
	t.Logf("--max-rate %d: %d bytes in %v (%.0f B/s as seen by the server)", capRate, total, last.t.Sub(t0), float64(total)/last.t.Sub(t0).Seconds())
}

// wireClock timestamps each read that starts with a request line.
type wireClock struct {
	mu sync.Mutex
	ts []time.Time
}

func (w *wireClock) wrap(l net.Listener) net.Listener { return clockListener{l, w} }

func (w *wireClock) times() []time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	ts := append([]time.Time(nil), w.ts...)
	sort.Slice(ts, func(i, j int) bool { return ts[i].Before(ts[j]) })
	return ts
}

type clockListener struct {
	net.Listener
	w *wireClock
}

func (l clockListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return clockConn{c, l.w}, nil
}

type clockConn struct {
	net.Conn
	w *wireClock
}

func (c clockConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n >= 4 && string(p[:4]) == "GET " {
		now := time.Now()
		c.w.mu.Lock()
		c.w.ts = append(c.w.ts, now)
		c.w.mu.Unlock()
	}
	return n, err
}

type smallSendBuf struct{ net.Listener }

func (l smallSendBuf) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(16 << 10)
	}
	return c, err
}

func TestRedirects(t *testing.T) {
	otherLog := &requestLog{}
	other := newServer(t, otherLog, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		html(w, "other")
	}))
	log := &requestLog{}
	srv := newServer(t, log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch p := r.URL.Path; p {
		case "/d/":
			html(w, `<a href=r301>1</a><a href=r302>2</a><a href=r303>3</a><a href=r307>7</a><a href=r308>8</a><a href=rout>out</a><a href=loop1>loop</a><a href=refresh.html>refresh</a>`)
		case "/d/r301", "/d/r302", "/d/r303", "/d/r307", "/d/r308":
			code := map[string]int{"/d/r301": 301, "/d/r302": 302, "/d/r303": 303, "/d/r307": 307, "/d/r308": 308}[p]
			http.Redirect(w, r, "/d/t"+p[4:]+".html", code)
		case "/d/rout":
			http.Redirect(w, r, other.URL+"/landing.html", 302)
		case "/d/loop1":
			http.Redirect(w, r, "/d/loop2", 302)
		case "/d/loop2":
			http.Redirect(w, r, "/d/loop1", 302)
		case "/d/refresh.html":
			html(w, `<meta http-equiv=refresh content="1;URL='refreshed.html'">`)
		case "/robots.txt":
			http.NotFound(w, r)
		default:
			html(w, "target")
		}
	}))
	all := []string{"/d/", "/d/loop1", "/d/loop2", "/d/r301", "/d/r302", "/d/r303", "/d/r307", "/d/r308",
		"/d/refresh.html", "/d/refreshed.html", "/d/rout", "/d/t301.html", "/d/t302.html", "/d/t303.html", "/d/t307.html", "/d/t308.html", "/robots.txt"}
	for _, tt := range []struct {
		policy  RedirectPolicy
		want    []string
		landing bool
	}{
		{RedirectsInScope, all, false},
		{RedirectsAll, all, true},
		{RedirectsNone, []string{"/d/", "/d/loop1", "/d/r301", "/d/r302", "/d/r303", "/d/r307", "/d/r308", "/d/refresh.html", "/d/rout", "/robots.txt"}, false},
	} {
		cfg := testConfig(srv.URL + "/d/")
		cfg.Redirects = tt.policy
		col := run(t, cfg)
		var mine []string
		for _, u := range col.urls(srv.URL) {
			if strings.HasPrefix(u, "/") {
				mine = append(mine, u)
			}
		}
		eq(t, tt.policy.String(), mine, tt.want)
		if got := col.get(other.URL+"/landing.html") != nil; got != tt.landing {
			t.Errorf("%s: out-of-scope redirect target captured = %v", tt.policy, got)
		}
	}
	// a start URL that redirects takes its scope along
	cfg := testConfig(srv.URL + "/d/rout")
	col := run(t, cfg)
	if col.get(other.URL+"/landing.html") == nil {
		t.Error("redirected start URL not followed")
	}
}

func TestErrorsRecorded(t *testing.T) {
	dead, _ := net.Listen("tcp", "127.0.0.1:0")
	deadURL := "http://" + dead.Addr().String() + "/gone.html"
	dead.Close()
	srv := newServer(t, &requestLog{}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			html(w, `<a href=missing.html>x</a><a href=`+deadURL+`>dead</a><a href=ok.html>ok</a><a href=boom>500</a>`)
		case "/ok.html":
			html(w, "ok")
		case "/boom":
			w.WriteHeader(500)
		default:
			http.NotFound(w, r)
		}
	}))
	cfg := testConfig(srv.URL + "/")
	cfg.Scope = ScopeAny
	cfg.Retries = 1
	col := run(t, cfg)
	if c := col.get(srv.URL + "/missing.html"); c == nil || c.Status() != 404 || c.Attempts != 1 {
		t.Errorf("404 not recorded once: %+v", c)
	}
	if c := col.get(srv.URL + "/boom"); c == nil || c.Status() != 500 || c.Attempts != 2 {
		t.Errorf("500 not retried once and recorded: %+v", c)
	}
	c := col.get(deadURL)
	if c == nil || c.Err == nil || c.Response != nil || c.Attempts != 2 {
		t.Fatalf("network error not recorded: %+v", c)
	}
	if !errors.Is(c.Err, syscall.ECONNREFUSED) {
		t.Errorf("error %v, want connection refused", c.Err)
	}
	if col.get(srv.URL+"/ok.html") == nil {
		t.Error("crawl stopped at an error")
	}
	if c.respRec != nil {
		t.Error("a response record for a fetch that got no response")
	}
}

func TestRobotsDisallow(t *testing.T) {
	log := &requestLog{}
	srv := newServer(t, log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			io.WriteString(w, "User-agent: mirrorget\nDisallow: /private\nDisallow: /*.pdf$\n\nUser-agent: *\nDisallow: /\n")
		case "/":
			html(w, `<a href=/private/a.html>p</a><a href=/privateer.html>p2</a><a href=/doc.pdf>pdf</a><a href=/doc.pdf?x>pdf2</a><a href=/ok.html>ok</a>`)
		default:
			html(w, "x")
		}
	}))
	var skipped []string
	cfg := testConfig(srv.URL + "/")
	cfg.OnSkip = func(u, reason string) { skipped = append(skipped, strings.TrimPrefix(u, srv.URL)) }
	col := run(t, cfg)
	eq(t, "captured", col.urls(srv.URL), []string{"/", "/doc.pdf?x", "/ok.html", "/robots.txt"})
	sort.Strings(skipped)
	eq(t, "skipped", skipped, []string{"/doc.pdf", "/private/a.html", "/privateer.html"})
	if c := col.get(srv.URL + "/robots.txt"); !c.Robots || c.Status() != 200 {
		t.Errorf("robots capture %+v", c)
	}
	if log.paths[0] != "/robots.txt" {
		t.Errorf("first request %s", log.paths[0])
	}
	// another agent name falls in the * group
	cfg.UserAgent = "other/1.0"
	col = run(t, cfg)
	eq(t, "captured as other/1.0", col.urls(srv.URL), []string{"/robots.txt"})
}

func TestTrapsBounded(t *testing.T) {
	log := &requestLog{}
	srv := newServer(t, log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/cal":
			var n int
			fmt.Sscan(r.URL.Query().Get("m"), &n)
			html(w, fmt.Sprintf(`<a href="cal?m=%d">next</a>`, n+1))
		case strings.HasPrefix(r.URL.Path, "/loop/"):
			html(w, `<a href="a/">deeper</a><a href="b/a/">other</a>`)
		case r.URL.Path == "/":
			html(w, `<a href="cal?m=0">cal</a><a href="loop/">loop</a>`)
		default:
			http.NotFound(w, r)
		}
	}))
	cfg := testConfig(srv.URL + "/")
	cfg.Robots = false
	cfg.Traps = Traps{MaxQueryVariants: 5, MaxRepeat: 3}
	col := run(t, cfg)
	eq(t, "captured", col.urls(srv.URL), []string{
		"/", "/cal?m=0", "/cal?m=1", "/cal?m=2", "/cal?m=3", "/cal?m=4",
		// every sequence of up to three "a/" or "b/a/" steps: "a" at most 3 times
		"/loop/", "/loop/a/", "/loop/a/a/", "/loop/a/a/a/", "/loop/a/a/b/a/", "/loop/a/b/a/", "/loop/a/b/a/a/",
		"/loop/a/b/a/b/a/", "/loop/b/a/", "/loop/b/a/a/", "/loop/b/a/a/a/", "/loop/b/a/a/b/a/", "/loop/b/a/b/a/",
		"/loop/b/a/b/a/a/", "/loop/b/a/b/a/b/a/",
	})
	c := col.get(srv.URL + "/cal?m=4")
	if len(c.Links) != 1 || c.Links[0].Taken || !strings.Contains(c.Links[0].Reason, "query variants") {
		t.Errorf("cal?m=4 link decision: %+v", c.Links)
	}
}

func TestRetryAfter(t *testing.T) {
	var mu sync.Mutex
	calls := map[string]int{}
	log := &requestLog{}
	srv := newServer(t, log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls[r.URL.Path]++
		n := calls[r.URL.Path]
		mu.Unlock()
		switch r.URL.Path {
		case "/busy":
			if n == 1 {
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(503)
				return
			}
		case "/slow-down":
			if n == 1 {
				w.Header().Set("Retry-After", time.Now().Add(2*time.Second).UTC().Format(http.TimeFormat))
				w.WriteHeader(429)
				return
			}
		case "/never":
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(503)
			return
		}
		html(w, "fine")
	}))
	for _, tt := range []struct {
		path     string
		status   int
		attempts int
		wait     time.Duration
	}{
		{"/busy", 200, 2, time.Second},
		{"/slow-down", 200, 2, time.Second}, // HTTP-date to the second: at least 1 s
		{"/never", 503, 1, 0},               // more than MaxRetryAfter: recorded, not retried
	} {
		log.mu.Lock()
		log.paths, log.times = nil, nil
		log.mu.Unlock()
		cfg := testConfig(srv.URL + tt.path)
		cfg.Robots = false
		cfg.MaxRetryAfter = time.Minute
		col := run(t, cfg)
		c := col.get(srv.URL + tt.path)
		if c == nil || c.Status() != tt.status || c.Attempts != tt.attempts {
			t.Errorf("%s: %+v", tt.path, c)
			continue
		}
		if len(log.times) != tt.attempts {
			t.Errorf("%s: server saw %d requests", tt.path, len(log.times))
			continue
		}
		if tt.attempts == 2 {
			if gap := log.times[1].Sub(log.times[0]); gap < tt.wait {
				t.Errorf("%s: retried after %v, server asked for %v", tt.path, gap, tt.wait)
			}
		}
	}
}

func TestRetriesOnNetworkErrors(t *testing.T) {
	var mu sync.Mutex
	n := 0
	srv := newServer(t, &requestLog{}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		if k <= 2 {
			// cut the connection in the middle of the body
			w.Header().Set("Content-Length", "100")
			w.WriteHeader(200)
			io.WriteString(w, "partial")
			w.(http.Flusher).Flush()
			c, _, _ := w.(http.Hijacker).Hijack()
			c.Close()
			return
		}
		html(w, "whole")
	}))
	for _, tt := range []struct {
		retries  int
		attempts int
		ok       bool
	}{{2, 3, true}, {1, 2, false}} {
		mu.Lock()
		n = 0
		mu.Unlock()
		cfg := testConfig(srv.URL + "/flaky")
		cfg.Robots = false
		cfg.Retries = tt.retries
		col := run(t, cfg)
		c := col.get(srv.URL + "/flaky")
		if c == nil || c.Attempts != tt.attempts || (c.Err == nil) != tt.ok {
			t.Fatalf("retries %d: %+v", tt.retries, c)
		}
		if tt.ok && string(c.body) != "whole" {
			t.Errorf("body %q", c.body)
		}
		if !tt.ok {
			if c.Truncated != "disconnect" || !bytes.HasSuffix(c.raw, []byte("\r\n\r\npartial")) {
				t.Errorf("cut response: truncated %q raw %q", c.Truncated, c.raw)
			}
		}
	}
}

func TestMaxSize(t *testing.T) {
	big := strings.Repeat("0123456789", 10000)
	srv := newServer(t, &requestLog{}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		if r.URL.Path == "/chunked" {
			w.(http.Flusher).Flush() // no Content-Length: chunked
		} else if r.URL.Path == "/small" {
			io.WriteString(w, big[:5000])
			return
		}
		io.WriteString(w, big)
	}))
	for _, path := range []string{"/cl", "/chunked", "/small"} {
		cfg := testConfig(srv.URL + path)
		cfg.Robots = false
		cfg.MaxSize = 10000
		col := run(t, cfg)
		c := col.get(srv.URL + path)
		if path == "/small" {
			if c.Truncated != "" || string(c.body) != big[:5000] {
				t.Errorf("small: truncated %q, %d bytes", c.Truncated, len(c.body))
			}
			continue
		}
		if c.Truncated != "length" || int64(len(c.raw)) != c.BodyOffset+10000 {
			t.Errorf("%s: truncated %q, raw %d bytes, body at %d", path, c.Truncated, len(c.raw), c.BodyOffset)
		}
	}
}

// One connection serves the whole crawl when -c 1 (keep-alive), and the DNS
// cache looks each host up once.
func TestKeepAliveAndDNSCache(t *testing.T) {
	log := &requestLog{}
	srv := newServer(t, log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			var b strings.Builder
			for i := 0; i < 20; i++ {
				fmt.Fprintf(&b, "<img src=i%d.gif>", i)
			}
			html(w, b.String())
			return
		}
		w.Header().Set("Content-Type", "image/gif")
		io.WriteString(w, "GIF89a")
	}))
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	var mu sync.Mutex
	lookups := 0
	cfg := testConfig(fmt.Sprintf("http://www.site.test:%d/", port))
	cfg.Connections = 1
	cfg.Resolve = func(ctx context.Context, host string) ([]net.IP, error) {
		mu.Lock()
		lookups++
		mu.Unlock()
		if host != "www.site.test" {
			return nil, fmt.Errorf("unknown host %s", host)
		}
		return []net.IP{net.ParseIP("127.0.0.1")}, nil
	}
	col := run(t, cfg)
	if len(col.caps) != 22 {
		t.Fatalf("%d captures", len(col.caps))
	}
	if log.conns != 1 {
		t.Errorf("-c 1: %d connections for %d requests", log.conns, len(log.paths))
	}
	if lookups != 1 {
		t.Errorf("%d DNS lookups", lookups)
	}
}

// Cancelling stops the crawl at once; what reached the sink is complete.
func TestCancel(t *testing.T) {
	page := strings.Repeat("x", 50000)
	srv := newServer(t, &requestLog{}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			var b strings.Builder
			for i := 0; i < 200; i++ {
				fmt.Fprintf(&b, "<a href=p%d.html>p</a>", i)
			}
			html(w, b.String())
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, page[:25000])
		w.(http.Flusher).Flush()
		time.Sleep(50 * time.Millisecond)
		io.WriteString(w, page[25000:])
	}))
	col := &collector{}
	cfg := testConfig(srv.URL + "/")
	cfg.Robots = false
	c, err := New(cfg, col)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	err = c.Run(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("cancel took %v", d)
	}
	if len(col.caps) < 2 || len(col.caps) > 150 {
		t.Errorf("%d captures", len(col.caps))
	}
	for _, g := range col.caps[1:] {
		if g.Err != nil || g.Truncated != "" || len(g.body) != 50000 {
			t.Errorf("%s: incomplete capture reached the sink (%d bytes, %v)", g.URL, len(g.body), g.Err)
		}
	}
}

func TestCookiesSent(t *testing.T) {
	log := &requestLog{}
	srv := newServer(t, log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			http.SetCookie(w, &http.Cookie{Name: "visit", Value: "1", Path: "/"})
			html(w, `<a href=/private/next.html>n</a>`)
			return
		}
		html(w, "ok")
	}))
	jar := loadTestCookies(t)
	cfg := testConfig(srv.URL + "/")
	cfg.Robots = false
	cfg.Jar = jar
	run(t, cfg)
	want := []string{"session=abc123", "auth=secret; session=abc123; visit=1"}
	for i, h := range log.headers {
		if got := h.Get("Cookie"); got != want[i] {
			t.Errorf("request %d (%s): Cookie %q, want %q", i, log.paths[i], got, want[i])
		}
	}
}

// Through an HTTP proxy: absolute-form requests; https through CONNECT.
func TestProxy(t *testing.T) {
	tlsLog := &requestLog{}
	tlsSrv := httptest.NewTLSServer(tlsLog.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		html(w, "secure")
	})))
	defer tlsSrv.Close()
	var mu sync.Mutex
	var seen []string
	proxy := newServer(t, &requestLog{}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.RequestURI+" "+r.Header.Get("Proxy-Authorization"))
		mu.Unlock()
		if r.Method == "CONNECT" {
			up, err := net.Dial("tcp", tlsSrv.Listener.Addr().String())
			if err != nil {
				w.WriteHeader(502)
				return
			}
			w.WriteHeader(200)
			c, brw, _ := w.(http.Hijacker).Hijack()
			go func() { io.Copy(up, brw); up.Close() }()
			io.Copy(c, up)
			c.Close()
			return
		}
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		html(w, `<a href="`+tlsSrv.URL+`/s.html">s</a>`)
	}))
	pu, _ := url.Parse(proxy.URL)
	pu.User = url.UserPassword("me", "pw")
	cfg := testConfig("http://site.invalid/")
	cfg.Proxy = pu
	cfg.Scope = ScopeAny
	cfg.Robots = false
	cfg.TLSConfig = tlsSrv.Client().Transport.(*http.Transport).TLSClientConfig
	col := run(t, cfg)
	auth := "Basic bWU6cHc="
	tlsHost := strings.TrimPrefix(tlsSrv.URL, "https://")
	eq(t, "proxy saw", seen, []string{"GET http://site.invalid/ " + auth, "CONNECT " + tlsHost + " " + auth})
	c := col.get(tlsSrv.URL + "/s.html")
	if c == nil || string(c.body) != "secure" || !bytes.HasPrefix(c.raw, []byte("HTTP/1.1 200 OK\r\n")) {
		t.Fatalf("https through the proxy: %+v", c)
	}
	if !bytes.HasPrefix(c.Request, []byte("GET /s.html HTTP/1.1\r\nHost: "+tlsHost+"\r\n")) {
		t.Errorf("request through the tunnel: %q", c.Request)
	}
}

// An update run sends the validators it is given; a 304 is recorded.
func TestConditional(t *testing.T) {
	log := &requestLog{}
	srv := newServer(t, log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(304)
			return
		}
		w.Header().Set("ETag", `"v1"`)
		html(w, "page")
	}))
	cfg := testConfig(srv.URL + "/")
	cfg.Robots = false
	cfg.Validators = func(u string) (string, string) {
		return `"v1"`, "Mon, 02 Jan 2006 15:04:05 GMT"
	}
	col := run(t, cfg)
	if c := col.get(srv.URL + "/"); c.Status() != 304 || len(c.body) != 0 {
		t.Errorf("status %d", c.Status())
	}
	if h := log.headers[0]; h.Get("If-Modified-Since") != "Mon, 02 Jan 2006 15:04:05 GMT" {
		t.Errorf("If-Modified-Since %q", h.Get("If-Modified-Since"))
	}
}

func TestHTTPSAndCrawlDelay(t *testing.T) {
	wire := &wireClock{}
	log := &requestLog{}
	srv := httptest.NewUnstartedServer(log.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			io.WriteString(w, "User-agent: *\nCrawl-delay: 0.3\n")
		case "/":
			html(w, `<a href=a.html>a</a><a href=b.html>b</a><a href=c.html>c</a>`)
		default:
			html(w, "page")
		}
	})))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.Listener = wire.wrap(ln)
	srv.StartTLS()
	defer srv.Close()
	cfg := testConfig(srv.URL + "/")
	cfg.TLSConfig = srv.Client().Transport.(*http.Transport).TLSClientConfig
	col := run(t, cfg)
	eq(t, "captured over https", col.urls(srv.URL), []string{"/", "/a.html", "/b.html", "/c.html", "/robots.txt"})
	c := col.get(srv.URL + "/a.html")
	if !bytes.HasPrefix(c.raw, []byte("HTTP/1.1 200 OK\r\n")) || string(c.body) != "page" {
		t.Errorf("https capture: %q", c.raw)
	}
	// TLS records are not request lines: time the handler starts instead
	ts := log.times
	for i := 2; i < len(ts); i++ {
		if gap := ts[i].Sub(ts[i-1]); gap < 290*time.Millisecond {
			t.Errorf("Crawl-delay 0.3: requests %d and %d %v apart", i-1, i, gap)
		}
	}
}

func BenchmarkCrawl(b *testing.B) {
	const pages = 500
	body := strings.Repeat("<p>lorem ipsum dolor sit amet</p>", 100)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var k int
		fmt.Sscanf(r.URL.Path, "/p/%d.html", &k)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<a href=/p/%d.html>n</a><a href=/p/%d.html>m</a><img src=/i/%d.gif>%s", (k+1)%pages, (k*7)%pages, k%20, body)
	}))
	defer srv.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cfg := testConfig(srv.URL + "/p/0.html")
		cfg.Scope = ScopeHost
		cfg.Robots = false
		n := 0
		c, _ := New(cfg, SinkFunc(func(*Capture) error { n++; return nil }))
		if err := c.Run(context.Background()); err != nil || n != pages+20 {
			b.Fatalf("%d captures, %v", n, err)
		}
	}
	b.ReportMetric(float64(pages+20)*float64(b.N)/b.Elapsed().Seconds(), "fetches/s")
}
