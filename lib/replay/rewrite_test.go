package replay

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/links"
	"github.com/arcport/arcport/lib/replay/rewrite"
)

// The rewriting through the server; the rewriter's own tests are in
// package rewrite.

// TestRewriteSampleArchive: every HTML, CSS and JavaScript capture of
// pywb's sample archive (iana.org, example.com: real pages) replayed in
// mp_ mode through the server: every link of the answer stays in the
// archive, the answer carries the Content-Security-Policy, Memento
// headers and its true length; Location headers are rewritten, a gzip
// payload is decoded and rewritten.
func TestRewriteSampleArchive(t *testing.T) {
	sa := sampleArchive(t)
	ts := sampleServer(t)
	files, _ := filepath.Glob(filepath.Join(sa, "cdx", "*.cdx"))
	var lines []string
	for _, p := range files {
		if strings.HasSuffix(p, "bad.cdx") {
			continue
		}
		b, _ := os.ReadFile(p)
		lines = append(lines, strings.Split(string(b), "\n")...)
	}
	counts := map[string]int{}
	seen := map[string]bool{}
	for _, line := range lines {
		fs := strings.Fields(line)
		if len(fs) < 11 || len(fs[1]) != 14 || strings.Contains(fs[0], "__wb_method") {
			continue
		}
		p := "/pywb/" + fs[1] + "mp_/" + fs[2]
		if seen[p] {
			continue
		}
		seen[p] = true
		resp, err := noRedirect.Get(ts.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusTemporaryRedirect {
			continue // another capture of the URL at this second
		}
		if resp.Header.Get("Content-Security-Policy") != replayCSP || resp.Header.Get("Memento-Datetime") == "" {
			t.Errorf("%s: CSP %q, Memento-Datetime %q", p, resp.Header.Get("Content-Security-Policy"), resp.Header.Get("Memento-Datetime"))
		}
		if cl := resp.Header.Get("Content-Length"); cl != "" && cl != strconv.Itoa(len(body)) {
			t.Errorf("%s: Content-Length %s, %d bytes", p, cl, len(body))
		}
		if loc := resp.Header.Get("Location"); loc != "" {
			counts["location"]++
			if !strings.HasPrefix(loc, "/pywb/"+fs[1]+"mp_/http") {
				t.Errorf("%s: Location %s", p, loc)
			}
		}
		if resp.Header.Get("X-Archive-Orig-Content-Encoding") != "" {
			counts["decoded"]++
		}
		switch kind := rewrite.KindOf("mp_", resp.Header.Get("Content-Type"), fs[2]); kind {
		case rewrite.HTML:
			counts["html"]++
			counts["links"] += checkServed(t, p, links.HTML, body, ts.URL+p)
		case rewrite.CSS:
			counts["css"]++
			counts["links"] += checkServed(t, p, links.CSS, body, ts.URL+p)
		case rewrite.JS:
			counts["js"]++
			checkJSInside(t, p, body)
		}
	}
	// example2.warc.gz's http://example.com/ is gzip-encoded: served
	// decoded, rewritten, its coding named X-Archive-Orig-Content-Encoding
	warcs := serveOne(t, "warcs", makeWACZ(t, "example2.warc.gz"))
	resp, err := noRedirect.Get(warcs.URL + "/warcs/20160225042329mp_/http://example.com/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "" || resp.Header.Get("X-Archive-Orig-Content-Encoding") != "gzip" ||
		!bytes.Contains(body, []byte(`<a href="/warcs/20160225042329mp_/http://www.iana.org/domains/example">`)) {
		t.Errorf("gzip page: %d %v\n%.300s", resp.StatusCode, resp.Header, body)
	} else {
		counts["decoded"]++
	}
	t.Logf("%v", counts)
	if counts["html"] < 10 || counts["css"] < 2 || counts["js"] < 2 || counts["location"] < 3 || counts["decoded"] < 1 {
		t.Errorf("too few documents checked: %v", counts)
	}
}

// checkServed: every link of a served document resolves to the server.
func checkServed(t *testing.T, name string, extract links.Extractor, body []byte, at string) int {
	t.Helper()
	base, _ := url.Parse(at)
	n := 0
	extract(bytes.NewReader(body), base, func(l links.Link) error {
		if l.Syntax == links.SyntaxClass || l.Syntax == links.SyntaxAppletCode {
			return nil
		}
		u, _ := url.Parse(l.URL)
		if u == nil || u.Host != base.Host {
			t.Errorf("%s: %s %s=%q leaves the archive: %s", name, l.Tag, l.Attr, l.Value, l.URL)
		}
		n++
		return nil
	})
	return n
}

// TestParseRange: RFC 9110's byte ranges, one at a time.
func TestParseRange(t *testing.T) {
	for _, c := range []struct {
		h        string
		start, n int64
		st       int
	}{
		{"bytes=0-9", 0, 10, rangeOK}, {"bytes=10-", 10, 90, rangeOK}, {"bytes=-5", 95, 5, rangeOK},
		{"bytes=90-200", 90, 10, rangeOK}, {"bytes=-500", 0, 100, rangeOK}, {"bytes=100-", 0, 0, rangeUnsatisfiable},
		{"bytes=-0", 0, 0, rangeUnsatisfiable}, {"bytes=5-1", 0, 0, rangeIgnored}, {"bytes=0-1,5-6", 0, 0, rangeIgnored},
		{"items=0-1", 0, 0, rangeIgnored}, {"bytes=x-1", 0, 0, rangeIgnored}, {"bytes= 3-4", 3, 2, rangeOK},
	} {
		s, n, st := parseRange(c.h, 100)
		if s != c.start || n != c.n || st != c.st {
			t.Errorf("%q: %d %d %d, want %d %d %d", c.h, s, n, st, c.start, c.n, c.st)
		}
	}
}

// absURL finds an absolute URL not made a replay URL.
var absURL = regexp.MustCompile(`(?i)(?:^|[^/_a-z])(https?:\\?/\\?/[a-z0-9][a-z0-9.-]*)`)

func checkJSInside(t *testing.T, name string, out []byte) {
	t.Helper()
	for _, m := range absURL.FindAllSubmatch(out, -1) {
		if !bytes.Contains(m[1], []byte(".")) {
			continue
		}
		t.Errorf("%s: %s left as it was", name, m[1])
	}
}
