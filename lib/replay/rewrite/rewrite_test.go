package rewrite

import (
	"bytes"
	"compress/gzip"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/arcport/arcport/lib/links"
)

const testPrefix = "/w/20200101000000"

func testRewriter(t *testing.T, doc string) *Rewriter {
	t.Helper()
	u, err := url.Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	return &Rewriter{Prefix: "/w/", TS: "20200101000000", Doc: u}
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
	src, err := os.ReadFile("../../../testdata/links/syntaxes.html")
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
	css, err := os.ReadFile("../../../testdata/links/style.css")
	if err != nil {
		t.Fatal(err)
	}
	const doc = "https://www.example.com/css/site.css"
	rw := testRewriter(t, doc)
	out := rw.rewriteCSS(css)
	if n := checkStaysInside(t, "style.css", links.CSS, out, doc); n < 5 {
		t.Errorf("style.css: %d links", n)
	}
	js, err := os.ReadFile("../../../testdata/links/script.js")
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
	src, err := os.ReadFile("../../../testdata/links/syntaxes.html")
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
		out, ok := Decode(c.coding, c.in)
		if ok != c.ok || (ok && !bytes.Equal(out, src)) {
			t.Errorf("%q: ok %v, %d bytes", c.coding, ok, len(out))
		}
	}
}

// TestRewriteKind: what each modifier rewrites a payload as.
func TestRewriteKind(t *testing.T) {
	for _, c := range []struct {
		mod, ctype, u string
		want          Kind
	}{
		{"mp_", "text/html; charset=iso-8859-1", "http://a/", HTML},
		{"mp_", "application/xhtml+xml", "http://a/", HTML},
		{"mp_", "image/svg+xml", "http://a/x.svg", HTML},
		{"im_", "image/svg+xml", "http://a/x.svg", None},
		{"mp_", "text/css", "http://a/", CSS},
		{"mp_", "application/x-javascript", "http://a/", JS},
		{"mp_", "application/json", "http://a/api", JS},
		{"mp_", "", "http://a/x.css", CSS},
		{"mp_", "application/octet-stream", "http://a/x.js", JS},
		{"mp_", "image/png", "http://a/x.png", None},
		{"js_", "text/html", "http://a/x", JS},
		{"js_", "image/png", "http://a/x", None},
		{"cs_", "text/plain", "http://a/x", CSS},
		{"im_", "text/html", "http://a/x", None},
		{"oe_", "text/html", "http://a/x", None},
		{"if_", "text/html", "http://a/x", HTML},
		{"fr_", "text/css", "http://a/x", CSS},
	} {
		if got := KindOf(c.mod, c.ctype, c.u); got != c.want {
			t.Errorf("%s %q %s: %d, want %d", c.mod, c.ctype, c.u, got, c.want)
		}
	}
}

// FuzzRewrite: the rewriters never panic; a script without "//" is kept
// as it is.
func FuzzRewrite(f *testing.F) {
	for _, p := range []string{"../../../testdata/links/syntaxes.html", "../../../testdata/links/style.css", "../../../testdata/links/script.js"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`<a href="http://x.example/"><script>"http:\/\/y.example" '//z.example/a'</script>`))
	f.Add([]byte("\xff\xfe<\x00a\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		u, _ := url.Parse("http://www.example.com/dir/page.html")
		rw := &Rewriter{Prefix: "/w/", TS: "20200101000000", Doc: u}
		rw.Body(HTML, b)
		rw.Body(CSS, b)
		// a script is changed only where two slashes follow each other
		if out := rw.Body(JS, b); !bytes.Equal(out, b) && !bytes.Contains(bytes.ReplaceAll(b, []byte(`\/`), []byte("/")), []byte("//")) {
			t.Errorf("a script without \"//\" changed: %q", out)
		}
	})
}
