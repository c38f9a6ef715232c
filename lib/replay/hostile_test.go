package replay

import (
	"context"
	"fmt"
	"io"
	"math/rand"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestBadParams: bad parameters answer 400 (or pywb's 500) with pywb's
// JSON body, as pywb 2.10.0 answers them (TestCDXAgainstPywb compares
// these with a running pywb; here they are written out).
func TestBadParams(t *testing.T) {
	ts := sampleServer(t)
	for _, tc := range []struct {
		q    string
		code int
		body string
	}{
		{"/pywb/cdx", 400, `{"message": "The \"url\" param is required"}`},
		{"/pywb/cdx?url=", 400, `{"message": "The \"url\" param is required"}`},
		{"/pywb/cdx?url=x&output=foo", 400, `{"message": "output=foo not supported"}`},
		{"/pywb/cdx?output=foo", 400, `{"message": "output=foo not supported"}`},
		{"/pywb/cdx?url=x&matchType=foo", 400, `{"message": "Invalid match_type: foo"}`},
		{"/pywb/cdx?url=x&matchType=%00%ff", 400, `{"message": "Invalid match_type: \u0000\ufffd"}`},
		{"/zip/cdx?url=iana.org&matchType=domain&page=x", 400, `{"message": "Invalid value for page= param: x"}`},
		{"/zip/cdx?url=iana.org&matchType=domain&pageSize=x", 400, `{"message": "Invalid value for pageSize= param: x"}`},
		{"/zip/cdx?url=iana.org&matchType=domain&page=99", 400, `{"message": "Page 99 invalid: First Page is 0, Last Page is 3"}`},
		{"/zip/cdx?url=iana.org&matchType=domain&page=-1", 400, `{"message": "Page -1 invalid: First Page is 0, Last Page is 3"}`},
		{"/zip/cdx?url=iana.org&matchType=domain&pageSize=0", 500, `{"message": "Internal Error: division by zero"}`},
		{"/pywb/cdx?url=x&limit=x", 500, `{"message": "Internal Error: invalid literal for int() with base 10: 'x'"}`},
		{"/pywb/cdx?url=iana.org&collapseTime=it's", 500, `{"message": "Internal Error: invalid literal for int() with base 10: \"it's\""}`},
		{"/nosuch/cdx?url=x", 404, `{"message": "No such collection: nosuch"}`},
	} {
		a := fetch(t, ts.URL+tc.q)
		if a.code != tc.code || a.body != tc.body || a.ct != "application/json; charset=utf-8" {
			t.Errorf("%s: %d %s %q, want %d %q", tc.q, a.code, a.ct, a.body, tc.code, tc.body)
		}
	}
}

// TestTraversal: paths and URLs that climb out of the collection answer
// 4xx or an ordinary (empty) CDX answer, never a file's bytes.
func TestTraversal(t *testing.T) {
	ts := sampleServer(t)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, p := range []string{
		"/../../../../etc/passwd", "/pywb/../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/pywb/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
		"/..%2f..%2fetc%2fpasswd/cdx?url=x", "/pywb/cdx/../../../etc/passwd", "/./pywb/cdx?url=x", "//etc/passwd",
		"/pywb/cdx?url=../../../../etc/passwd", "/pywb/cdx?url=file:///etc/passwd&matchType=prefix",
		"/pywb/cdx?url=http://example.com/../../../etc/passwd", "/pywb/20140126200624id_/file:///etc/passwd",
		"/pywb/cdx?url=%2e%2e%2f%2e%2e%2fetc%2fpasswd&output=text", "/%00/cdx?url=x", "/pywb%00/cdx?url=x",
		"/pywb/cdx?url=x&filter=filename:../../etc/passwd", "/C:%5cwindows/cdx?url=x", "/all/cdx?url=/etc/passwd",
	} {
		req, err := http.NewRequest("GET", ts.URL+p, nil)
		if err != nil {
			// not even a request: fine
			continue
		}
		req.URL.Opaque = p[:strings.IndexByte(p+"?", '?')]
		resp, err := client.Do(req)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(b), "root:") || strings.Contains(string(b), "/bin/") {
			t.Errorf("%s: %d: a file's bytes: %.200q", p, resp.StatusCode, b)
		}
		if resp.StatusCode >= 500 {
			t.Errorf("%s: %d %.200q", p, resp.StatusCode, b)
		}
		t.Logf("%s: %d", p, resp.StatusCode)
	}
}

// TestHugeQuery: a 1 MB query string through a real listener with the
// server's limits (HTTPServer): answered (200 or 400), not refused, no
// panic, and a 3 MB one refused with 431.
func TestHugeQuery(t *testing.T) {
	sa := sampleArchive(t)
	c, err := Open(context.Background(), "pywb", sa+"/cdx", Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewServer(c)
	if err != nil {
		t.Fatal(err)
	}
	hs := s.HTTPServer()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go hs.Serve(ln)
	defer hs.Close()
	base := "http://" + ln.Addr().String()
	mb := 1 << 20
	for _, tc := range []struct {
		name string
		q    string
		code int
	}{
		{"1 MB url", "url=" + strings.Repeat("a", mb), 400},
		{"64 KiB url", "url=" + strings.Repeat("a", MaxURL), 200},
		{"1 MB url prefix", "url=http://www.iana.org/" + strings.Repeat("%2F", mb/3) + "*&output=json", 400},
		{"1 MB of filters", "url=iana.org&matchType=domain&" + strings.Repeat("filter=~a*&", mb/11), 400},
		{"1000 filters", "url=iana.org&matchType=domain&" + strings.Repeat("filter=~a*&", MaxFilters), 200},
		{"1 MB of parameters", "url=iana.org&" + strings.Repeat("x=y&", mb/4), 200},
		{"1 MB output", "url=x&output=" + strings.Repeat("z", mb), 400},
		{"1 MB closest", "url=iana.org&matchType=domain&closest=" + strings.Repeat("9", mb), 200},
		{"1 MB regex", "url=iana.org&matchType=domain&filter=~" + strings.Repeat("(a|b)*", mb/6), 400},
		{"16 KiB regex", "url=iana.org&matchType=domain&filter=~" + strings.Repeat("(a|b)*", (MaxFilterRegex-1)/6), 200},
	} {
		start := time.Now()
		resp, err := http.Get(base + "/pywb/cdx?" + tc.q)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.code {
			t.Errorf("%s: %d, want %d", tc.name, resp.StatusCode, tc.code)
		}
		t.Logf("%s: %d, %d bytes, %v", tc.name, resp.StatusCode, n, time.Since(start).Round(time.Millisecond))
	}
	resp, err := http.Get(base + "/pywb/cdx?url=" + strings.Repeat("a", 3*mb))
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
			t.Errorf("3 MB query: %d, want 431", resp.StatusCode)
		}
	}
}

// TestRandomParams: 3000 requests of random parameters and values
// (valid, invalid, binary, very long) over every collection: never a
// panic (the server's recover would answer 500 "Internal Error" alone),
// every body either CDX lines or a JSON message.
func TestRandomParams(t *testing.T) {
	ts := sampleServer(t)
	names := []string{"url", "matchType", "limit", "from", "to", "filter", "fl", "fields", "output", "sort", "closest", "reverse",
		"resolveRevisits", "collapseTime", "allowFuzzy", "nosource", "content_type", "page", "pageSize", "showNumPages", "showPagedIndex", "memento_format", "from_ts"}
	values := []string{"", "0", "1", "-1", "x", "true", "false", "exact", "prefix", "host", "domain", "json", "text", "link", "cdxj",
		"reverse", "closest", "2014", "20140126200624", "99999999999999999999", "*.iana.org", "iana.org*", "http://www.iana.org/",
		"=status:200", "!~url:.*", "~(", "urlkey,timestamp", "orig.length", "\x00", "\xff\xfe", "%", "%zz", "*", "*.", ".", "/",
		"{url}", "{", strings.Repeat("9", 300), "1_0", " 5 ", "+3", "http://[::1]/", "http://user@x/", "urn:x", "mailto:a@b"}
	rng := rand.New(rand.NewSource(25))
	colls := []string{"pywb", "cdxj", "zip", "all"}
	var wg sync.WaitGroup
	jobs := make(chan string)
	var mu sync.Mutex
	var fails []string
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for q := range jobs {
				resp, err := http.Get(ts.URL + q)
				if err != nil {
					mu.Lock()
					fails = append(fails, fmt.Sprintf("%s: %v", q, err))
					mu.Unlock()
					continue
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if string(b) == `{"message": "Internal Error"}` || (resp.StatusCode >= 400 && !strings.HasPrefix(string(b), `{"message": `)) {
					mu.Lock()
					fails = append(fails, fmt.Sprintf("%s: %d %.200q", q, resp.StatusCode, b))
					mu.Unlock()
				}
			}
		}()
	}
	for range 3000 {
		v := url.Values{}
		for range 1 + rng.Intn(6) {
			v.Add(names[rng.Intn(len(names))], values[rng.Intn(len(values))])
		}
		if rng.Intn(4) > 0 {
			v.Set("url", values[rng.Intn(len(values))])
		}
		jobs <- "/" + colls[rng.Intn(len(colls))] + "/cdx?" + v.Encode()
	}
	close(jobs)
	wg.Wait()
	for i, f := range fails {
		if i < 20 {
			t.Error(f)
		}
	}
}

// FuzzCDXQuery: any query string on any collection: no panic.
func FuzzCDXQuery(f *testing.F) {
	for _, s := range []string{"url=iana.org&matchType=domain", "url=*.iana.org&page=1&pageSize=2", "url=x&filter=~(", "url=iana.org*&closest=2014&limit=2&output=link",
		"url=http://www.iana.org/&resolveRevisits=1&collapseTime=-3&fl=urlkey,orig.length", "url=iana.org&showPagedIndex=1&output=json", "url=%ff%00&sort=reverse"} {
		f.Add("zip", s)
		f.Add("pywb", s)
	}
	sa := sampleArchive(f)
	var colls []*Collection
	for _, c := range []struct{ n, s string }{{"pywb", sa + "/cdx"}, {"cdxj", sa + "/cdxj"}, {"zip", sa + "/zipcdx/zipnum-sample.idx"}} {
		coll, err := Open(context.Background(), c.n, c.s, Options{})
		if err != nil {
			f.Fatal(err)
		}
		colls = append(colls, coll)
	}
	s, err := NewServer(colls...)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, coll, q string) {
		req := httptest.NewRequest("GET", "/x", nil)
		req.URL.Path = "/" + coll + "/cdx"
		req.URL.RawQuery = q
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if w.Body.String() == `{"message": "Internal Error"}` {
			t.Fatalf("panic on /%s/cdx?%s", coll, q)
		}
	})
}

// FuzzParseCDXObj: any index line: an object or an error, no panic, and
// every output form made.
func FuzzParseCDXObj(f *testing.F) {
	for _, s := range []string{
		`org,iana)/ 20140126200624 {"url": "http://www.iana.org/", "status": 200, "x": [1, {"a": null}], "é": "\u00e9"}`,
		"org,iana)/ 20140126200624 http://www.iana.org/ text/html 200 OSSAPWJ23L56IYVRW3GFEAR4MCJMGPTB - - 2258 334 iana.warc.gz",
		"a b c", " CDX N b a m s k r M S V g", "", "{", "a {", "a b {\"url\": \"\xff\"}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		c, err := parseCDXObj(line)
		if err != nil {
			return
		}
		c.toJSON(nil, nil)
		c.toCDXJ(nil, []string{"url", "nosuch"})
		c.toText(nil, nil)
		_ = c.String()
		c.set("source", str("x"))
		c.toText(nil, nil)
		appendMementoLink(nil, c, "{url} {timestamp}", true)
	})
}

// newLoopback listens on a free loopback port.
func newLoopback(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// TestConcurrentConnections: 1000 connections at once, each asking a CDX
// query and a replay: every answer is whole, none fails, and the heap
// after is not far from before.
func TestConcurrentConnections(t *testing.T) {
	sa := sampleArchive(t)
	var colls []*Collection
	for _, c := range []struct{ n, s string }{{"pywb", sa + "/cdx"}, {"zip", sa + "/zipcdx/zipnum-sample.idx"}} {
		coll, err := Open(context.Background(), c.n, c.s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		colls = append(colls, coll)
	}
	s, err := NewServer(colls...)
	if err != nil {
		t.Fatal(err)
	}
	hs := s.HTTPServer()
	ln := newLoopback(t)
	go hs.Serve(ln)
	defer hs.Close()
	base := "http://" + ln.Addr().String()
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	const n = 1000
	start := make(chan struct{})
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 60 * time.Second,
				CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			<-start
			for _, p := range []string{"/zip/cdx?url=*.iana.org&output=json", "/pywb/20140126200624id_/http://www.iana.org/"} {
				if i%2 == 1 {
					p = "/pywb/cdx?url=www.iana.org/_css/*&resolveRevisits=1"
				}
				resp, err := c.Get(base + p)
				if err != nil {
					errs <- err
					return
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != 200 || len(b) == 0 {
					errs <- fmt.Errorf("%s: %d, %d bytes, %v", p, resp.StatusCode, len(b), err)
					return
				}
			}
		}()
	}
	t0 := time.Now()
	close(start)
	wg.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		if failed < 5 {
			t.Error(err)
		}
		failed++
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	t.Logf("%d connections x 2 requests in %v, %d failed; heap in use %d KiB before, %d KiB after", n, time.Since(t0).Round(time.Millisecond), failed, before.HeapInuse>>10, after.HeapInuse>>10)
	if after.HeapInuse > before.HeapInuse+64<<20 {
		t.Errorf("heap grew by %d MiB", (after.HeapInuse-before.HeapInuse)>>20)
	}
}
