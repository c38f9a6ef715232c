package links

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/internal/peertest"
)

// TestEncode checks the escaping of a replacement value for each syntax and
// quoting.
func TestEncode(t *testing.T) {
	for _, tc := range []struct {
		l    Link
		in   string
		want string
	}{
		{Link{Syntax: SyntaxAttr, InAttr: true, AttrQuote: '"'}, `a&b"c'd.html`, `a&amp;b&quot;c'd.html`},
		{Link{Syntax: SyntaxAttr, InAttr: true, AttrQuote: '\''}, `a&b"c'd.html`, `a&amp;b"c&#39;d.html`},
		{Link{Syntax: SyntaxAttr, InAttr: true}, "a b>c\"d'e=f.html", `a&#32;b&#62;c&quot;d&#39;e=f.html`},
		{Link{Syntax: SyntaxAttr, InAttr: true, AttrQuote: '"'}, `../img/plain.gif`, `../img/plain.gif`},
		{Link{Syntax: SyntaxAttr, InAttr: true}, ``, `""`},
		{Link{Syntax: SyntaxAttr, InAttr: true, AttrQuote: '\''}, ``, ``},
		{Link{Syntax: SyntaxList, InAttr: true, AttrQuote: '"'}, `a b,c&d.png`, `a%20b%2cc&amp;d.png`},
		{Link{Syntax: SyntaxRefresh, InAttr: true, AttrQuote: '"'}, `a;b'c.html`, `a%3bb%27c.html`},
		{Link{Syntax: SyntaxCSSURL}, `a b(c)d"e'f\g.png`, `a%20b%28c%29d%22e%27f%5cg.png`},
		{Link{Syntax: SyntaxCSSString, Quote: '"'}, "a\"b'c\\d\ne.png", `a\"b'c\\d\0a e.png`},
		{Link{Syntax: SyntaxCSSString, Quote: '\'', InAttr: true, AttrQuote: '"'}, `a"b'c&d.png`, `a&quot;b\'c&amp;d.png`},
		{Link{Syntax: SyntaxJSString, Quote: '\''}, "a'b\"c\\d\ne\u2028f", `a\'b"c\\d\ne\u2028f`},
		{Link{Syntax: SyntaxJSString, Quote: '`'}, "a`b${c}", "a\\`b\\${c}"},
		{Link{Syntax: SyntaxJSString, Quote: '"', InRawText: true}, "a</script>.gif", `a<\/script>.gif`},
		{Link{Syntax: SyntaxCSSURL, InRawText: true}, "a</style>.png", `a%3C/style>.png`},
	} {
		if got := tc.l.Encode(tc.in); got != tc.want {
			t.Errorf("%v quote %q attr %q: Encode(%q) = %q, want %q", tc.l.Syntax, tc.l.Quote, tc.l.AttrQuote, tc.in, got, tc.want)
		}
	}
}

// replaceAll rewrites src replacing each rewritable link's span by
// Encode(value(link)).
func replaceAll(src []byte, ls []Link, value func(Link) string) []byte {
	var out bytes.Buffer
	pos := int64(0)
	for _, l := range ls {
		if !l.Rewritable() {
			continue
		}
		out.Write(src[pos:l.Start])
		out.WriteString(l.Encode(value(l)))
		pos = l.End
	}
	out.Write(src[pos:])
	return out.Bytes()
}

// TestEncodeRoundTrip replaces every link of the test documents with a value
// full of characters that are special in its syntax, and checks that
// extracting again finds exactly those values at the same places in the
// link list: Encode and the spans agree with the extractors.
func TestEncodeRoundTrip(t *testing.T) {
	values := map[Syntax]string{
		SyntaxAttr:      `new "dir"/it's <b> &amp; x.html?a=1&b=2`,
		SyntaxList:      `new&dir/x'y".png`,
		SyntaxRefresh:   `new&dir/x.html?a=1&b=2`,
		SyntaxCSSURL:    `new&dir/x.png`,
		SyntaxCSSString: `new"dir'\x&amp;.png`,
		SyntaxJSString:  `new&dir/x.gif`,
	}
	for _, tc := range []struct {
		file string
		ex   extractor
	}{
		{"syntaxes.html", viaHTML},
		{"style.css", viaCSS},
		{"script.js", viaJS},
	} {
		t.Run(tc.file, func(t *testing.T) {
			src := readTestdata(t, tc.file)
			base := "http://www.example.com/dir/" + tc.file
			first := collect(t, tc.ex, src, base)
			value := func(l Link) string {
				if l.Kind == Base {
					return "http://new.example/base/"
				}
				return values[l.Syntax]
			}
			out := replaceAll(src, first, value)
			second := collect(t, tc.ex, out, base)
			if len(second) != len(first) {
				t.Fatalf("%d links after rewriting, %d before", len(second), len(first))
			}
			for i := range first {
				want := first[i].Value
				if first[i].Rewritable() {
					want = value(first[i])
				}
				if second[i].Value != want {
					t.Errorf("link %d (%s %s %v): value %q, want %q", i, first[i].Tag, first[i].Attr, first[i].Syntax, second[i].Value, want)
				}
			}
		})
	}
}

// TestResolveMatchesChromium resolves a list of awkward hrefs with Chromium
// (the real browser the chapter's tolerance rules imitate) and with Resolve,
// and compares them once Chromium's result is normalised like ours
// (unreserved escapes decoded, hex upper-cased).
func TestResolveMatchesChromium(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		if chromium, err = exec.LookPath("chromium-browser"); err != nil {
			peertest.Missing(t, "chromium", "chromium not on PATH: cannot compare with a browser")
		}
	}
	refs := []string{
		"page.html", "http:page2.html", "http:/slash.html", "https:/other.html",
		"//www.example.com/page2.html", "http://www.example.com/page%32.html",
		"http&#58;//www.example.com/page%32.html", "http://www.example.com/page\n2.html",
		"  ../up.html  ", "../../../../../top.html", "caf%c3%a9.html", "r&eacute;sum&#xE9;.html",
		"a b.html", `\windows\path.html`, "HTTP://WWW.Example.COM:80/Case.html",
		"a|b^c{d}.html", "http://h.example/a/./b/../c.html", "//www.example.com:8080/p.html",
		"?q=1&amp;r=2", "search.cgi?q=a b", "x.html?q=\"quoted\"", "HTTPS://H.EXAMPLE.:443/",
		"%7e%41.html", "http://h.example/%2e%2E/x", "./a/../b/./c.html",
	}
	var page strings.Builder
	page.WriteString(`<!DOCTYPE html><html><head><meta charset="utf-8"><base href="http://www.example.com/dir/index.html"></head><body>`)
	for _, r := range refs {
		page.WriteString(`<a href="` + strings.ReplaceAll(r, `"`, "&quot;") + `">x</a>`)
	}
	page.WriteString(`<script>document.body.setAttribute('data-out', Array.from(document.links).map(a => a.href).join(' '))</script></body></html>`)
	dir := t.TempDir()
	file := filepath.Join(dir, "page.html")
	if err := os.WriteFile(file, []byte(page.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--dump-dom", "file://"+file)
	out, err := cmd.Output()
	if err != nil {
		peertest.Missing(t, "chromium", fmt.Sprintf("chromium did not run: %v", err))
	}
	i := bytes.Index(out, []byte(`data-out="`))
	if i < 0 {
		t.Fatalf("no data-out in chromium output:\n%s", out)
	}
	rest := out[i+len(`data-out="`):]
	got := strings.Fields(html.UnescapeString(string(rest[:bytes.IndexByte(rest, '"')])))
	if len(got) != len(refs) {
		t.Fatalf("chromium gave %d links for %d hrefs: %q", len(got), len(refs), got)
	}
	base := mustURL(t, "http://www.example.com/dir/index.html")
	for i, r := range refs {
		abs, frag, ok := Resolve(base, html.UnescapeString(r))
		if !ok {
			t.Errorf("%q: not resolved; chromium %q", r, got[i])
			continue
		}
		if want := normalizePct(got[i]); abs+frag != want {
			t.Errorf("%q: Resolve %q, chromium %q (normalised %q)", r, abs+frag, got[i], want)
		}
	}
}
