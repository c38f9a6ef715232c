package crawl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/frontier"
)

func TestMIMEPatterns(t *testing.T) {
	for _, tc := range []struct {
		pattern, typ string
		want         bool
	}{
		{"text/html", "text/html", true},
		{"text/html", "text/htmlx", false},
		{"image/*", "image/png", true},
		{"image/*", "image/", true},
		{"image/*", "text/png", false},
		{"*/xml", "application/xml", true},
		{"*/xml", "application/xhtml+xml", false},
		{"application/*+xml", "application/xhtml+xml", true},
		{"application/*+xml", "application/xml", false},
		{"*", "text/plain", true},
		{"*/*", "text/plain", true},
		{"*a*b*c", "xaxbxbxc", true},
		{"*a*b*c", "xaxbxbxcx", false},
	} {
		if got := MatchMIME(tc.pattern, tc.typ); got != tc.want {
			t.Errorf("MatchMIME(%q, %q) = %v", tc.pattern, tc.typ, got)
		}
	}
	for _, p := range []string{"Image/*", " text/html ", "*", "application/vnd.ms-excel"} {
		if _, err := ParseMIMEPattern(p); err != nil {
			t.Errorf("ParseMIMEPattern(%q): %v", p, err)
		}
	}
	for _, p := range []string{"", "image", "a/b/c", "text/html; charset=utf-8", "mime:image/*"} {
		if _, err := ParseMIMEPattern(p); err == nil {
			t.Errorf("ParseMIMEPattern(%q): no error", p)
		}
	}
	// a pattern of many stars against a long type takes no time
	long := strings.Repeat("a", 100000)
	t0 := time.Now()
	if MatchMIME("*a*a*a*a*a*a*a*b", long) {
		t.Error("matched")
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

// runCrawl runs a crawl (with withFrontier's frontier, if any) and returns
// what Run returned, without requiring it to end the crawl.
func runCrawl(t *testing.T, cfg Config) (*collector, *Crawler, frontier.Frontier, error) {
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
	err = c.Run(ctx)
	return col, c, cfg.Frontier, err
}

// skipLog collects OnSkip calls, relative to base.
type skipLog struct {
	mu   sync.Mutex
	base string
	list []string
}

func (s *skipLog) add(u, reason string) {
	s.mu.Lock()
	s.list = append(s.list, strings.TrimPrefix(u, s.base)+" "+reason)
	s.mu.Unlock()
}

func (s *skipLog) sorted() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]string(nil), s.list...)
	sort.Strings(out)
	return out
}

// filterSite serves pages, images, a style sheet, an 8 MiB binary, a
// response without Content-Type, small and large plain text (one chunked),
// a 404 and a redirect.
func filterSite(t *testing.T, log *requestLog) string {
	big := strings.Repeat("0123456789abcdef", 8<<16)
	srv := newServer(t, log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "User-agent: *\nDisallow: /private\n")
		case "/":
			html(w, `<html><head><link rel=stylesheet href=style.css></head><body>`+strings.Repeat(" ", 100)+
				`<a href=a.html>a</a> <img src=img.png> <a href=big.bin>big</a> <a href=noctype>?</a>
<a href=tiny.txt>tiny</a> <a href=chunked.txt>chunked</a> <a href=small-chunked.txt>small chunked</a>
<a href=missing>404</a> <a href=moved>302</a> <a href=small.html>small page</a></body></html>`)
		case "/a.html":
			html(w, `<html><body><a href=b.html>b</a><img src=a.png>`+strings.Repeat(" ", 100)+`</body></html>`)
		case "/b.html":
			html(w, `<html><body>the end of the site`+strings.Repeat(" ", 100)+`</body></html>`)
		case "/small.html":
			html(w, `<a href=x.html>x</a>`)
		case "/x.html":
			html(w, "x")
		case "/img.png", "/a.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write(append([]byte{0x89, 'P', 'N', 'G'}, make([]byte, 200)...))
		case "/style.css":
			w.Header().Set("Content-Type", "text/css")
			io.WriteString(w, "body { color: black }"+strings.Repeat(" ", 100))
		case "/big.bin":
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Header().Set("Content-Length", strconv.Itoa(len(big)))
			io.WriteString(w, big)
		case "/noctype":
			w.Header()["Content-Type"] = nil // no sniffing
			io.WriteString(w, strings.Repeat("?", 150))
		case "/tiny.txt":
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "tiny!")
		case "/chunked.txt", "/small-chunked.txt":
			w.Header().Set("Content-Type", "text/plain")
			w.(http.Flusher).Flush() // no Content-Length: chunked
			n := 3000
			if r.URL.Path == "/small-chunked.txt" {
				n = 50
			}
			for i := 0; i < n; i += 10 {
				io.WriteString(w, "0123456789")
				w.(http.Flusher).Flush()
			}
		case "/moved":
			http.Redirect(w, r, "/b.html", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	return srv.URL
}

// pathsOf lists a collector's captured paths; robots.txt marked.
func pathsOf(col *collector, base string) []string {
	return col.urls(base)
}

// TestMIMEFilters: AcceptMIME and RejectMIME decide on the response's
// Content-Type: a refused response is not captured (OnSkip hears "mime
// TYPE"), its links are not followed, a large one is not read (8 MiB
// offered, little received); redirects, errors and robots.txt are kept
// whatever their type. Refusing text/html stops at the start page.
func TestMIMEFilters(t *testing.T) {
	for _, tc := range []struct {
		name           string
		accept, reject []string
		captured       []string
		skipped        []string
		notRequested   []string
	}{
		{
			name:   "reject image",
			reject: []string{"image/*"},
			captured: []string{"/", "/a.html", "/b.html", "/big.bin", "/chunked.txt", "/missing", "/moved", "/noctype",
				"/robots.txt", "/small-chunked.txt", "/small.html", "/style.css", "/tiny.txt", "/x.html"},
			skipped: []string{"/a.png mime image/png", "/img.png mime image/png"},
		},
		{
			name:     "accept html",
			accept:   []string{"text/html"},
			captured: []string{"/", "/a.html", "/b.html", "/missing", "/moved", "/robots.txt", "/small.html", "/x.html"},
			skipped: []string{"/a.png mime image/png", "/big.bin mime application/octet-stream", "/chunked.txt mime text/plain",
				"/img.png mime image/png", "/noctype mime application/octet-stream", "/small-chunked.txt mime text/plain",
				"/style.css mime text/css", "/tiny.txt mime text/plain"},
		},
		{
			name:   "accept and reject",
			accept: []string{"text/*", "image/*"}, reject: []string{"text/plain", "image/png"},
			captured: []string{"/", "/a.html", "/b.html", "/missing", "/moved", "/robots.txt", "/small.html", "/style.css", "/x.html"},
			skipped: []string{"/a.png mime image/png", "/big.bin mime application/octet-stream", "/chunked.txt mime text/plain",
				"/img.png mime image/png", "/noctype mime application/octet-stream", "/small-chunked.txt mime text/plain",
				"/tiny.txt mime text/plain"},
		},
		{
			name:         "reject html",
			reject:       []string{"text/html"},
			captured:     []string{"/robots.txt"},
			skipped:      []string{"/ mime text/html"},
			notRequested: []string{"/a.html", "/img.png", "/style.css"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := &requestLog{}
			base := filterSite(t, log)
			skips := &skipLog{base: base}
			cfg := testConfig(base + "/")
			cfg.AcceptMIME, cfg.RejectMIME = tc.accept, tc.reject
			cfg.OnSkip = skips.add
			col, c, _, err := runCrawl(t, cfg)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			eq(t, "captured", pathsOf(col, base), tc.captured)
			eq(t, "skipped", skips.sorted(), tc.skipped)
			for _, p := range tc.notRequested {
				if n := log.count(p); n != 0 {
					t.Errorf("%s requested %d times: the refused page's links were followed", p, n)
				}
			}
			if g := col.get(base + "/moved"); g != nil && g.Status() != 302 {
				t.Errorf("/moved: status %d", g.Status())
			}
			st := c.Stats()
			if refusedBig := strings.Contains(strings.Join(tc.skipped, "\n"), "/big.bin"); refusedBig && st.Received > 2<<20 {
				t.Errorf("%d bytes received: the refused 8 MiB body was read", st.Received)
			}
			if st.Skipped != len(tc.skipped) {
				t.Errorf("Stats.Skipped %d, want %d", st.Skipped, len(tc.skipped))
			}
		})
	}
}

// TestSizeLimitsByKind: MaxSizeHTML cuts pages, MaxSizeOther everything
// else, each besides MaxSize (the smaller applies); a cut capture is
// marked Truncated "length", and links past the cut are not seen.
func TestSizeLimitsByKind(t *testing.T) {
	page := `<html><body><a href=early.html>early</a>` + strings.Repeat(" ", 3000) + `<a href=late.html>late</a></body></html>`
	srv := newServer(t, &requestLog{}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			html(w, `<a href=big.html>big</a> <a href=big.bin>bin</a> <a href=small.bin>small</a> <a href=chunked.bin>chunked</a>`)
		case "/big.html":
			html(w, page)
		case "/early.html", "/late.html":
			html(w, "page")
		case "/big.bin", "/small.bin", "/chunked.bin":
			w.Header().Set("Content-Type", "application/octet-stream")
			n := 2000
			if r.URL.Path == "/small.bin" {
				n = 300
			}
			if r.URL.Path == "/chunked.bin" {
				w.(http.Flusher).Flush()
			}
			w.Write(make([]byte, n))
		default:
			http.NotFound(w, r)
		}
	}))
	for _, tc := range []struct {
		name                 string
		maxSize, html, other int64
		htmlCut, binCut      int64 // 0: whole
		captured             []string
	}{
		{"by kind", 1 << 30, 1000, 500, 1000, 500,
			[]string{"/", "/big.bin", "/big.html", "/chunked.bin", "/early.html", "/small.bin"}},
		{"max-size smaller", 800, 1000, 0, 800, 800,
			[]string{"/", "/big.bin", "/big.html", "/chunked.bin", "/early.html", "/small.bin"}},
		{"other only", 0, 0, 500, 0, 500,
			[]string{"/", "/big.bin", "/big.html", "/chunked.bin", "/early.html", "/late.html", "/small.bin"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(srv.URL + "/")
			cfg.Robots = false
			cfg.MaxSize, cfg.MaxSizeHTML, cfg.MaxSizeOther = tc.maxSize, tc.html, tc.other
			col, _, _, err := runCrawl(t, cfg)
			if err != nil {
				t.Fatal(err)
			}
			eq(t, "captured", col.urls(srv.URL), tc.captured)
			check := func(path string, cut int64, whole int) {
				t.Helper()
				g := col.get(srv.URL + path)
				if g == nil {
					t.Fatalf("%s not captured", path)
				}
				got := int64(len(g.raw)) - g.BodyOffset
				if cut > 0 {
					if g.Truncated != "length" || got != cut || g.respRec.Get("WARC-Truncated") != "length" {
						t.Errorf("%s: truncated %q (record %q), body %d bytes, want cut at %d", path, g.Truncated, g.respRec.Get("WARC-Truncated"), got, cut)
					}
				} else if g.Truncated != "" || len(g.body) != whole {
					t.Errorf("%s: truncated %q, body %d bytes, want %d", path, g.Truncated, len(g.body), whole)
				}
			}
			check("/big.html", tc.htmlCut, len(page))
			check("/big.bin", tc.binCut, 2000)
			check("/small.bin", 0, 300)
			if g := col.get(srv.URL + "/chunked.bin"); g == nil || (tc.binCut > 0) != (g.Truncated == "length") {
				t.Errorf("/chunked.bin: %+v", g)
			}
		})
	}
}

// TestMinSize: successful responses smaller than MinSize (as received,
// chunked framing removed) are not captured, with OnSkip's "size N <
// min-size M", and a dropped page's links are not followed; errors,
// redirects and robots.txt are kept.
func TestMinSize(t *testing.T) {
	log := &requestLog{}
	base := filterSite(t, log)
	skips := &skipLog{base: base}
	cfg := testConfig(base + "/")
	cfg.MinSize = 100
	cfg.OnSkip = skips.add
	col, _, _, err := runCrawl(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "captured", col.urls(base), []string{"/", "/a.html", "/a.png", "/b.html", "/big.bin", "/chunked.txt",
		"/img.png", "/missing", "/moved", "/noctype", "/robots.txt", "/style.css"})
	eq(t, "skipped", skips.sorted(), []string{"/small-chunked.txt size 50 < min-size 100",
		"/small.html size 20 < min-size 100", "/tiny.txt size 5 < min-size 100"})
	if n := log.count("/x.html"); n != 0 {
		t.Errorf("/x.html requested %d times: the dropped page's links were followed", n)
	}
}

// pagesSite serves n pages, each after delay, page i linking pages i+1 to
// i+3; the request log counts them. Each page is padded to about size
// bytes.
func pagesSite(t *testing.T, log *requestLog, n int, delay time.Duration, size int) string {
	srv := newServer(t, log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var i int
		if _, err := fmt.Sscanf(r.URL.Path, "/p%d.html", &i); err != nil || i < 0 || i >= n {
			http.NotFound(w, r)
			return
		}
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
		}
		var b strings.Builder
		fmt.Fprintf(&b, "<html><body>page %d", i)
		for j := i + 1; j <= i+3 && j < n; j++ {
			fmt.Fprintf(&b, ` <a href="p%d.html">%d</a>`, j, j)
		}
		if pad := size - b.Len() - len("</body></html>"); pad > 0 {
			b.WriteString(strings.Repeat(" ", pad))
		}
		b.WriteString("</body></html>")
		html(w, b.String())
	}))
	return srv.URL
}

// pageRequests counts the requests for pages (/pN.html).
func (l *requestLog) pageRequests() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, p := range l.paths {
		if strings.HasPrefix(p, "/p") {
			n++
		}
	}
	return n
}

// limitError checks that err is a *LimitError for want.
func limitError(t *testing.T, err error, want Limit) {
	t.Helper()
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != want || !errors.Is(err, ErrLimit) {
		t.Fatalf("Run: %v, want the %s limit", err, want)
	}
}

// frontierLeft checks that a frontier stopped by a limit holds done URLs
// and queued ones, and (when leases are ended) no lease.
func frontierLeft(t *testing.T, f frontier.Frontier, done int64, leased bool) {
	t.Helper()
	if f == nil {
		return
	}
	st, err := f.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if over, _ := f.Over(context.Background()); over || st.Queued == 0 || (done >= 0 && st.Done != done) || (!leased && st.Leased != 0) {
		t.Errorf("frontier after the limit: over %v, %+v (want %d done, URLs queued)", over, st, done)
	}
}

// TestMaxPages: MaxPages 50 gives exactly 50 page captures with 4
// connections (robots.txt not counted), the server sees exactly 50 page
// requests, and Run returns the limit; a site smaller than the limit is
// crawled whole and Run returns nil.
func TestMaxPages(t *testing.T) {
	log := &requestLog{}
	base := pagesSite(t, log, 200, 0, 0)
	cfg := testConfig(base + "/p0.html")
	cfg.Connections = 4
	cfg.MaxPages = 50
	col, c, f, err := runCrawl(t, cfg)
	limitError(t, err, LimitPages)
	pages := 0
	for _, u := range col.urls(base) {
		if u != "/robots.txt" {
			pages++
		}
	}
	if pages != 50 || c.Stats().Pages != 50 || log.pageRequests() != 50 || col.get(base+"/robots.txt") == nil {
		t.Errorf("%d pages captured, Stats.Pages %d, %d page requests; want 50 (and robots.txt)", pages, c.Stats().Pages, log.pageRequests())
	}
	frontierLeft(t, f, 50, false)

	log2 := &requestLog{}
	base2 := pagesSite(t, log2, 30, 0, 0)
	cfg = testConfig(base2 + "/p0.html")
	cfg.MaxPages = 30
	col, c, _, err = runCrawl(t, cfg)
	if err != nil || c.Stats().Pages != 30 || c.Limit() != "" {
		t.Errorf("a site of 30 pages with MaxPages 30: %v, %d pages, limit %q", err, c.Stats().Pages, c.Limit())
	}
}

// TestMaxPagesRefused: URLs refused after their fetch (MIME type) do not
// count, and still exactly MaxPages captures are made.
func TestMaxPagesRefused(t *testing.T) {
	log := &requestLog{}
	srv := newServer(t, log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var i int
		if _, err := fmt.Sscanf(r.URL.Path, "/p%d.html", &i); err == nil {
			html(w, fmt.Sprintf(`<img src=i%d.png><a href=p%d.html>next</a>`, i, i+1))
			return
		}
		w.Header().Set("Content-Type", "image/png")
		io.WriteString(w, "PNG")
	}))
	cfg := testConfig(srv.URL + "/p0.html")
	cfg.Robots = false
	cfg.MaxPages = 10
	cfg.RejectMIME = []string{"image/png"}
	col, c, _, err := runCrawl(t, cfg)
	limitError(t, err, LimitPages)
	if n := len(col.urls(srv.URL)); n != 10 || c.Stats().Skipped < 9 {
		t.Errorf("%d captures, %d skipped; want 10 pages and the images skipped", n, c.Stats().Skipped)
	}
}

// TestMaxBytes: with one connection the crawl stops right after the
// response that reaches the quota (it is kept whole), and Run returns the
// limit; with four, no more than the fetches under way then are added.
func TestMaxBytes(t *testing.T) {
	log := &requestLog{}
	base := pagesSite(t, log, 100, 0, 10000)
	cfg := testConfig(base + "/p0.html")
	cfg.Robots = false
	cfg.Connections = 1
	cfg.MaxBytes = 35000
	col, c, f, err := runCrawl(t, cfg)
	limitError(t, err, LimitBytes)
	st := c.Stats()
	// each response is a little over 10000 bytes: the 4th crosses 35000
	if n := len(col.urls(base)); n != 4 || st.Received < 35000 || st.Received > 45000 || log.pageRequests() != 4 {
		t.Errorf("%d captures, %d bytes received, %d requests; want 4 whole pages", n, st.Received, log.pageRequests())
	}
	for _, u := range col.urls(base) {
		if g := col.get(base + u); g.Truncated != "" || len(g.body) < 10000 {
			t.Errorf("%s: truncated %q, %d bytes", u, g.Truncated, len(g.body))
		}
	}
	frontierLeft(t, f, 4, false)

	log = &requestLog{}
	base = pagesSite(t, log, 100, 20*time.Millisecond, 10000)
	cfg = testConfig(base + "/p0.html")
	cfg.Robots = false
	cfg.Connections = 4
	cfg.MaxBytes = 35000
	col, c, _, err = runCrawl(t, cfg)
	limitError(t, err, LimitBytes)
	if n := len(col.urls(base)); n < 4 || n > 4+3 || log.pageRequests() != n {
		t.Errorf("4 connections: %d captures, %d requests, %d bytes", n, log.pageRequests(), c.Stats().Received)
	}
}

// TestMaxTime: a crawl of a slow site (500 ms a page, 200 pages) with
// MaxTime 2s ends within 3 s of its start, the fetches under way cut and
// dropped, every capture handed over complete; Run returns the limit.
func TestMaxTime(t *testing.T) {
	log := &requestLog{}
	base := pagesSite(t, log, 200, 500*time.Millisecond, 0)
	cfg := testConfig(base + "/p0.html")
	cfg.Connections = 2
	cfg.MaxTime = 2 * time.Second
	t0 := time.Now()
	col, c, f, err := runCrawl(t, cfg)
	elapsed := time.Since(t0)
	t.Logf("MaxTime 2s: Run returned after %v with %d captures", elapsed, c.Stats().Done)
	limitError(t, err, LimitTime)
	if elapsed > 3*time.Second || elapsed < 2*time.Second {
		t.Errorf("Run took %v, want 2-3 s", elapsed)
	}
	n := 0
	for _, u := range col.urls(base) {
		g := col.get(base + u)
		if u == "/robots.txt" {
			continue
		}
		n++
		if g.Err != nil || g.Truncated != "" || !strings.HasSuffix(string(g.body), "</body></html>") {
			t.Errorf("%s: incomplete capture (%v, %q)", u, g.Err, g.Truncated)
		}
	}
	if n < 2 || n > 8 {
		t.Errorf("%d pages in 2 s at 500 ms a page with 2 connections", n)
	}
	frontierLeft(t, f, int64(n), true)
}

// TestLimitResume: a crawl stopped by MaxPages with a Bolt frontier is
// carried on by a second run over the same state: every page is captured
// once over the two runs, none fetched twice.
func TestLimitResume(t *testing.T) {
	log := &requestLog{}
	base := pagesSite(t, log, 60, 0, 0)
	dir := t.TempDir()
	opts := frontier.Options{PerHost: 4, Lease: 5 * time.Second}
	counts := map[string]int{}
	for i, limit := range []int{20, 0} {
		b, err := frontier.OpenBolt(dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		cfg := testConfig(base + "/p0.html")
		cfg.Robots = false
		cfg.MaxPages = limit
		cfg.Frontier = b
		col := &collector{}
		c, err := New(cfg, col)
		if err != nil {
			t.Fatal(err)
		}
		err = c.Run(context.Background())
		if i == 0 {
			limitError(t, err, LimitPages)
		} else if err != nil {
			t.Fatalf("second run: %v", err)
		}
		for _, u := range col.urls(base) {
			counts[u]++
		}
		if i == 0 && len(counts) != 20 {
			t.Errorf("first run: %d captures, want 20", len(counts))
		}
		b.Close()
	}
	for i := 0; i < 60; i++ {
		u := fmt.Sprintf("/p%d.html", i)
		if counts[u] != 1 || log.count(u) != 1 {
			t.Errorf("%s: %d captures, %d requests over the two runs", u, counts[u], log.count(u))
		}
	}
}
