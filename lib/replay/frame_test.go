package replay

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

func get(t *testing.T, u string, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

// TestFramePage: /COLL/TS/URL redirects to the capture's own time-stamp,
// then answers the top frame: the iframe on TSmp_, the capture time, the
// count of the URL's captures with the previous and next ones, the live
// URL as a plain link (nothing loads it), the Content-Security-Policy.
func TestFramePage(t *testing.T) {
	ts := sampleServer(t)
	resp, _ := get(t, ts.URL+"/pywb/20140126200630/http://www.iana.org/_css/2013.1/screen.css")
	if resp.StatusCode != http.StatusTemporaryRedirect || !strings.HasSuffix(resp.Header.Get("Location"), "/pywb/20140126200625/http://www.iana.org/_css/2013.1/screen.css") {
		t.Fatalf("closest: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, body := get(t, ts.URL+"/pywb/20140126200653/http://www.iana.org/_css/2013.1/screen.css")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Security-Policy") != replayCSP || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("frame: %d %v", resp.StatusCode, resp.Header)
	}
	for _, want := range []string{
		`<iframe id="wb-frame" name="wb-frame" src="/pywb/20140126200653mp_/http://www.iana.org/_css/2013.1/screen.css">`,
		`<time id="wb-time" datetime="2014-01-26T20:06:53Z">2014-01-26 20:06:53 UTC</time>`,
		`<a id="wb-prev" href="/pywb/20140126200625/http://www.iana.org/_css/2013.1/screen.css">`,
		`<a id="wb-next" href="/pywb/20140126200706/http://www.iana.org/_css/2013.1/screen.css">`,
		`<span id="wb-count">17 captures</span>`,
		`<a id="wb-live" href="http://www.iana.org/_css/2013.1/screen.css" target="_blank" rel="noopener noreferrer">`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("frame page lacks %s", want)
		}
	}
	// the latest, without a time-stamp: a redirect to it
	resp, _ = get(t, ts.URL+"/pywb/http://www.iana.org/_css/2013.1/screen.css")
	if resp.StatusCode != http.StatusTemporaryRedirect || !strings.Contains(resp.Header.Get("Location"), "/pywb/2014") {
		t.Errorf("latest: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
}

// TestNotFoundPage: a URL without capture answers a browser an HTML 404
// listing the nearest captures (here: the host's), anyone else pywb's
// JSON message.
func TestNotFoundPage(t *testing.T) {
	ts := sampleServer(t)
	for _, p := range []string{"/pywb/2014/http://www.iana.org/not-there", "/pywb/2014mp_/http://www.iana.org/not-there"} {
		resp, body := get(t, ts.URL+p, "Accept", "text/html,application/xhtml+xml,*/*;q=0.8")
		if resp.StatusCode != 404 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || resp.Header.Get("Content-Security-Policy") != replayCSP {
			t.Fatalf("%s: %d %v", p, resp.StatusCode, resp.Header)
		}
		if !strings.Contains(body, "Nearest captures (host www.iana.org)") || strings.Count(body, `<li><a href="/pywb/2014`) != maxNear {
			t.Errorf("%s: %s", p, body)
		}
	}
	// a query string: the captures of the path
	_, body := get(t, ts.URL+"/pywb/2014/http://www.iana.org/_css/2013.1/?x=1", "Accept", "text/html")
	if !strings.Contains(body, "Nearest captures (URLs under http://www.iana.org/_css/2013.1/)") {
		t.Errorf("query: %s", body)
	}
	resp, body := get(t, ts.URL+"/pywb/2014id_/http://www.iana.org/not-there")
	if resp.StatusCode != 404 || body != `{"message": "No Captures found for: http://www.iana.org/not-there"}` {
		t.Errorf("JSON: %d %s", resp.StatusCode, body)
	}
}

// TestReplayRange: a payload's bytes by Range in id_ and mp_ (206,
// Content-Range), a range past the end 416, the whole payload without.
func TestReplayRange(t *testing.T) {
	ts := sampleServer(t)
	for _, mod := range []string{"id_", "mp_", "im_"} {
		u := ts.URL + "/pywb/20140126200625" + mod + "/http://www.iana.org/_img/2013.1/iana-logo-homepage.png"
		resp, whole := get(t, u)
		if resp.StatusCode != 200 || len(whole) < 1000 {
			t.Fatalf("%s: %d, %d bytes", mod, resp.StatusCode, len(whole))
		}
		n := len(whole)
		resp, part := get(t, u, "Range", "bytes=100-199")
		if resp.StatusCode != 206 || part != whole[100:200] || resp.Header.Get("Content-Range") != "bytes 100-199/"+strconv.Itoa(n) {
			t.Errorf("%s: %d %q, %d bytes", mod, resp.StatusCode, resp.Header.Get("Content-Range"), len(part))
		}
		resp, part = get(t, u, "Range", "bytes=-10")
		if resp.StatusCode != 206 || part != whole[n-10:] {
			t.Errorf("%s suffix: %d %d bytes", mod, resp.StatusCode, len(part))
		}
		resp, _ = get(t, u, "Range", "bytes="+strconv.Itoa(n)+"-")
		if resp.StatusCode != 416 || resp.Header.Get("Content-Range") != "bytes */"+strconv.Itoa(n) {
			t.Errorf("%s past the end: %d %q", mod, resp.StatusCode, resp.Header.Get("Content-Range"))
		}
	}
	// a rewritten page: ranges of the rewritten bytes
	u := ts.URL + "/pywb/20140126200624mp_/http://www.iana.org/"
	_, whole := get(t, u)
	resp, part := get(t, u, "Range", "bytes=0-99")
	if resp.StatusCode != 206 || part != whole[:100] || !strings.Contains(whole, `"/pywb/20140126200624cs_/http://www.iana.org/_css/2013.1/screen.css"`) {
		t.Errorf("rewritten: %d %q", resp.StatusCode, part)
	}
}

// TestRewriteHostile: odd and hostile requests on the framed and
// rewritten routes answer 4xx (or a redirect), never 5xx, and read
// nothing outside the archive.
func TestRewriteHostile(t *testing.T) {
	ts := sampleServer(t)
	long := strings.Repeat("a", 1<<20)
	for _, c := range []struct {
		path string
		code int
	}{
		{"/pywb/2014mp_/../../../etc/passwd", 404},
		{"/pywb/2014/file:///etc/passwd", 404},
		{"/pywb/2014mp_/http://www.iana.org/" + long, 400},
		{"/pywb/2014/http://www.iana.org/" + long, 400},
		{"/pywb/http:/www.iana.org/", 307},
		{"/pywb/mp_/http://www.iana.org/", 307},
		{"/nosuch/2014/http://www.iana.org/", 404},
		{"/pywb/99999999999999/http://www.iana.org/", 307},
	} {
		resp, body := get(t, ts.URL+c.path, "Accept", "text/html")
		if resp.StatusCode != c.code || strings.Contains(body, "root:") {
			t.Errorf("%.80s: %d, want %d", c.path, resp.StatusCode, c.code)
		}
	}
	// a Range that does not parse or overflows is ignored
	u := ts.URL + "/pywb/20140126200625mp_/http://www.iana.org/_img/2013.1/iana-logo-homepage.png"
	for _, rg := range []string{"bytes=99999999999999999999-", "bytes=--1", "bytes=1-2-3", "bytes=" + long[:1000]} {
		if resp, _ := get(t, u, "Range", rg); resp.StatusCode != 200 {
			t.Errorf("Range %.40s: %d", rg, resp.StatusCode)
		}
	}
}
