package replay

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/arcport/arcport/lib/links"
)

const testPrefix = "/w/20200101000000"

func testRewriter(t *testing.T, doc string) *urlRewriter {
	t.Helper()
	u, err := url.Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	return &urlRewriter{prefix: "/w/", ts: "20200101000000", doc: u}
}

// replayDoc is where a rewritten document is served from in these tests.
func replayDoc(t *testing.T, doc string) *url.URL {
	u, err := url.Parse("http://replay.test" + testPrefix + "mp_/" + doc)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// checkStaysInside reads the links of a rewritten document as a browser
// at its replay URL would resolve them: each must be a URL of the replay
// server under /w/TS (none left to another host).
func checkStaysInside(t *testing.T, name string, extract links.Extractor, out []byte, doc string) int {
	t.Helper()
	n := 0
	err := extract(bytes.NewReader(out), replayDoc(t, doc), func(l links.Link) error {
		if l.Syntax == links.SyntaxClass || l.Syntax == links.SyntaxAppletCode {
			return nil
		}
		if l.Tag == "link" && bytes.Contains(out, []byte(`_rel=preconnect href="`+l.Value)) {
			return nil // made inert: no more a link for the browser
		}
		u, err := url.Parse(l.URL)
		if err != nil {
			t.Errorf("%s: %q: %v", name, l.URL, err)
			return nil
		}
		if u.Host != "replay.test" {
			t.Errorf("%s: %s %s=%q leaves the archive: %s", name, l.Tag, l.Attr, l.Value, l.URL)
		}
		if !strings.HasPrefix(u.Path, testPrefix) && l.Syntax != links.SyntaxJSString {
			t.Errorf("%s: %s %s=%q is outside %s: %s", name, l.Tag, l.Attr, l.Value, testPrefix, l.URL)
		}
		n++
		return nil
	})
	if err != nil {
		t.Errorf("%s: %v", name, err)
	}
	return n
}

// TestRewriteSyntaxes: testdata/links/syntaxes.html (every link syntax
// lib/links knows: quoting, entities, srcset, meta refresh, <base>,
// <style>, style=, on*=, javascript:, frames, objects, forms) rewritten:
// every link a browser would resolve stays in the archive, with pywb's
// modifiers, the script's absolute URLs rewritten, preconnect and
// integrity neutralised, the rest of the document byte for byte.
func TestRewriteSyntaxes(t *testing.T) {
	src, err := os.ReadFile("../../testdata/links/syntaxes.html")
	if err != nil {
		t.Fatal(err)
	}
	const doc = "http://www.example.com/dir/page.html"
	rw := testRewriter(t, doc)
	out := rw.rewriteHTML(src)
	n := checkStaysInside(t, "syntaxes.html", links.HTML, out, doc)
	if n < 40 {
		t.Errorf("only %d links found in the rewritten page", n)
	}
	for _, want := range []string{
		`href="/w/20200101000000cs_/http://www.example.com/dir/css/main.css"`,
		`@import "/w/20200101000000cs_/http://www.example.com/dir/css/print.css" print;`,
		`url( "/w/20200101000000im_/http://www.example.com/dir/img/bg.png" )`,
		`var u = "/w/20200101000000mp_/http://other.example.org/abs";`,
		`var a = "js/lib.js";`, // a relative string: left to the browser, as pywb leaves it
		`_rel=preconnect href="https://cdn.example.net"`,
		`<body background="/w/20200101000000im_/http://www.example.com/dir/img/body.jpg">`,
		`<p>The chapter's syntaxes:</p>`,
	} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("rewritten page lacks %s", want)
		}
	}
	// every byte outside the rewritten values is kept: undoing the edits
	// on the tags' text leaves the document's text as it was
	raw := regexp.MustCompile(`(?s)<script.*?</script>|<style.*?</style>`)
	strip := regexp.MustCompile(`<[^>]*>`)
	if a, b := strip.ReplaceAll(raw.ReplaceAll(src, nil), nil), strip.ReplaceAll(raw.ReplaceAll(out, nil), nil); !bytes.Equal(a, b) {
		t.Errorf("the text between the tags changed")
	}
}

// TestRewriteCSSJS: testdata/links/style.css and script.js.
func TestRewriteCSSJS(t *testing.T) {
	css, err := os.ReadFile("../../testdata/links/style.css")
	if err != nil {
		t.Fatal(err)
	}
	const doc = "https://www.example.com/css/site.css"
	rw := testRewriter(t, doc)
	out := rw.rewriteCSS(css)
	if n := checkStaysInside(t, "style.css", links.CSS, out, doc); n < 5 {
		t.Errorf("style.css: %d links", n)
	}
	js, err := os.ReadFile("../../testdata/links/script.js")
	if err != nil {
		t.Fatal(err)
	}
	out = rw.rewriteJS(js)
	// no absolute URL is left but the rewritten ones
	checkJSInside(t, "script.js", out)
	// pywb's cases: JSON-escaped slashes, protocol-relative after a quote,
	// a comment and a word before the scheme left alone
	got := string(rw.rewriteJS([]byte(`a="http:\/\/x.example.com\/p"; b='//cdn.example.com/lib.js'; // http note
c=xhttp://not.example; d = "https://y.example.org:8080/q?z=1"; e="//" + h;`)))
	want := `a="\/w\/20200101000000mp_\/http:\/\/x.example.com\/p"; b='/w/20200101000000mp_/https://cdn.example.com/lib.js'; // http note
c=xhttp://not.example; d = "/w/20200101000000mp_/https://y.example.org:8080/q?z=1"; e="//" + h;`
	if got != want {
		t.Errorf("JS:\n got %s\nwant %s", got, want)
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
		switch kind := rewriteKind("mp_", resp.Header.Get("Content-Type"), fs[2]); kind {
		case kindHTML:
			counts["html"]++
			counts["links"] += checkServed(t, p, links.HTML, body, ts.URL+p)
		case kindCSS:
			counts["css"]++
			counts["links"] += checkServed(t, p, links.CSS, body, ts.URL+p)
		case kindJS:
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

// TestRewriteCharsets: a page in ISO-8859-1 and one in Shift_JIS keep
// every byte that is not a URL (no transcoding); UTF-16 is left as it is.
func TestRewriteCharsets(t *testing.T) {
	rw := testRewriter(t, "http://example.com/")
	// the path in UTF-8, as a browser asks for it after reading the page
	// in its charset
	latin := []byte("<html><head><meta charset=iso-8859-1></head><body>caf\xe9 <a href=\"/r\xe9sum\xe9.html\">r\xe9sum\xe9</a> <img src=x.gif></body></html>")
	out := rw.rewriteHTML(latin)
	want := "<html><head><meta charset=iso-8859-1></head><body>caf\xe9 <a href=\"/w/20200101000000mp_/http://example.com/r%C3%A9sum%C3%A9.html\">r\xe9sum\xe9</a> <img src=/w/20200101000000im_/http://example.com/x.gif></body></html>"
	if string(out) != want {
		t.Errorf("latin-1:\n got %q\nwant %q", out, want)
	}
	sjis := []byte("<p>\x82\xb1\x82\xf1\x82\xc9\x82\xbf\x82\xcd <a href=\"a\\b.html\">\x95\\</a></p>")
	out = rw.rewriteHTML(sjis)
	if !bytes.Contains(out, []byte("\x82\xb1\x82\xf1\x82\xc9\x82\xbf\x82\xcd ")) || !bytes.Contains(out, []byte(">\x95\\</a>")) {
		t.Errorf("shift_jis: %q", out)
	}
	u16 := []byte("\xff\xfe<\x00a\x00 \x00h\x00r\x00e\x00f\x00=\x00x\x00>\x00")
	if out := rw.rewriteHTML(u16); !bytes.Equal(out, u16) {
		t.Errorf("utf-16 changed: %q", out)
	}
}

// TestDecodeContent: gzip, br, deflate and a chain of codings are undone;
// an unknown one or a broken payload is refused.
func TestDecodeContent(t *testing.T) {
	src, err := os.ReadFile("../../testdata/links/syntaxes.html")
	if err != nil {
		t.Fatal(err)
	}
	var gz, br, both bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(src)
	zw.Close()
	bw := brotli.NewWriter(&br)
	bw.Write(src)
	bw.Close()
	bw = brotli.NewWriter(&both)
	bw.Write(gz.Bytes())
	bw.Close()
	for _, c := range []struct {
		coding string
		in     []byte
		ok     bool
	}{
		{"gzip", gz.Bytes(), true}, {"x-gzip", gz.Bytes(), true}, {"br", br.Bytes(), true},
		{"gzip, br", both.Bytes(), true}, {"", src, true}, {"identity", src, true},
		{"compress", gz.Bytes(), false}, {"gzip", src, false},
	} {
		out, ok := decodeContent(c.coding, c.in)
		if ok != c.ok || (ok && !bytes.Equal(out, src)) {
			t.Errorf("%q: ok %v, %d bytes", c.coding, ok, len(out))
		}
	}
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

// TestRewriteKind: what each modifier rewrites a payload as.
func TestRewriteKind(t *testing.T) {
	for _, c := range []struct {
		mod, ctype, u string
		want          docKind
	}{
		{"mp_", "text/html; charset=iso-8859-1", "http://a/", kindHTML},
		{"mp_", "application/xhtml+xml", "http://a/", kindHTML},
		{"mp_", "image/svg+xml", "http://a/x.svg", kindHTML},
		{"im_", "image/svg+xml", "http://a/x.svg", kindNone},
		{"mp_", "text/css", "http://a/", kindCSS},
		{"mp_", "application/x-javascript", "http://a/", kindJS},
		{"mp_", "application/json", "http://a/api", kindJS},
		{"mp_", "", "http://a/x.css", kindCSS},
		{"mp_", "application/octet-stream", "http://a/x.js", kindJS},
		{"mp_", "image/png", "http://a/x.png", kindNone},
		{"js_", "text/html", "http://a/x", kindJS},
		{"js_", "image/png", "http://a/x", kindNone},
		{"cs_", "text/plain", "http://a/x", kindCSS},
		{"im_", "text/html", "http://a/x", kindNone},
		{"oe_", "text/html", "http://a/x", kindNone},
		{"if_", "text/html", "http://a/x", kindHTML},
		{"fr_", "text/css", "http://a/x", kindCSS},
	} {
		if got := rewriteKind(c.mod, c.ctype, c.u); got != c.want {
			t.Errorf("%s %q %s: %d, want %d", c.mod, c.ctype, c.u, got, c.want)
		}
	}
}
