package links

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"testing"
)

func mustURL(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "links", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// describe renders a link as one line: kind tag attr syntax url+fragment "source span".
func describe(src []byte, l Link) string {
	raw := "?"
	if l.Start >= 0 && l.End <= int64(len(src)) && l.Start <= l.End {
		raw = string(src[l.Start:l.End])
	}
	return fmt.Sprintf("%s %s %s %s %s%s %q", l.Kind, l.Tag, l.Attr, l.Syntax, l.URL, l.Fragment, raw)
}

type extractor func([]byte, *url.URL, Func) error

func viaHTML(b []byte, u *url.URL, f Func) error  { return HTML(bytes.NewReader(b), u, f) }
func viaCSS(b []byte, u *url.URL, f Func) error   { return CSS(bytes.NewReader(b), u, f) }
func viaJS(b []byte, u *url.URL, f Func) error    { return JS(bytes.NewReader(b), u, f) }
func viaClass(b []byte, u *url.URL, f Func) error { return Class(bytes.NewReader(b), u, f) }

func collect(t testing.TB, ex extractor, src []byte, base string) []Link {
	t.Helper()
	var out []Link
	if err := ex(src, mustURL(t, base), func(l Link) error { out = append(out, l); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func checkLines(t *testing.T, src []byte, got []Link, want []string) {
	t.Helper()
	n := max(len(got), len(want))
	for i := 0; i < n; i++ {
		var g, w string
		if i < len(got) {
			g = describe(src, got[i])
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("link %d:\n got  %s\n want %s", i, g, w)
		}
	}
}

// TestHTMLSyntaxes checks every link of a page that holds the chapter's list
// of syntaxes (4.2.1) and every URL-carrying attribute: the exact list, in
// source order, so what must be skipped (mailto:, javascript: itself, data:,
// ftp:, "#local", "", rel=preconnect, a text/template script, a CSS comment,
// @namespace, dir + "x.gif", a param that is not a URL, an object codebase
// naming an ActiveX .cab) is asserted absent.
func TestHTMLSyntaxes(t *testing.T) {
	src := readTestdata(t, "syntaxes.html")
	got := collect(t, viaHTML, src, "http://www.example.com/dir/index.html")
	want := []string{
		`embedded link href attr http://www.example.com/dir/css/main.css "css/main.css"`,
		`embedded link href attr http://www.example.com/favicon.ico "/favicon.ico"`,
		`navigational link href attr http://www.example.com/dir/feed.xml "feed.xml"`,
		`navigational meta content refresh http://www.example.com/dir/refresh.html "refresh.html"`,
		`embedded style import css-string http://www.example.com/dir/css/print.css "css/print.css"`,
		`embedded style import css-url http://www.example.com/dir/css/screen.css "css/screen.css"`,
		`embedded style url css-string http://www.example.com/dir/img/bg.png "img/bg.png"`,
		`embedded style url css-url http://www.example.com/dir/img/h1%20bg.png "img/h1\\ bg.png"`,
		`embedded script string js-string http://www.example.com/dir/js/lib.js "js/lib.js"`,
		`embedded script string js-string http://www.example.com/images/welcome.gif "/images/welcome.gif"`,
		`navigational script string js-string http://www.example.com/docs/welcome.html "/docs/welcome.html"`,
		`navigational script string js-string http://www.example.com/dir/popup.html "popup.html"`,
		`navigational script string js-string http://other.example.org/abs "http://other.example.org/abs"`,
		`embedded body background attr http://www.example.com/dir/img/body.jpg "img/body.jpg"`,
		// the chapter's ten spellings of one link
		`navigational a href attr http://www.example.com/page2.html "http://www.example.com/page2.html"`,
		`navigational a href attr http://www.example.com/page2.html "http://www.example.com/page2.html"`,
		`navigational a href attr http://www.example.com/page2.html "http&#58;//www.example.com/page2.html"`,
		`navigational a href attr http://www.example.com/page2.html "http://www.example.com/page%32.html"`,
		`navigational a href attr http://www.example.com/page2.html "http://www.example.com/page%32.html"`,
		`navigational a href attr http://www.example.com/page2.html "http&#58;//www.example.com/page%32.html"`,
		`navigational a href attr http://www.example.com/page2.html "http://www.example.com/page\n2.html"`,
		`navigational a href attr http://www.example.com/dir/page2.html "http:page2.html"`,
		`navigational a href attr http://www.example.com/page2.html "//www.example.com/page2.html"`,
		`navigational a href attr http://www.example.com/page2.html "http://www.example.com/page2.html"`,
		`navigational a href attr http://www.example.com/up.html#top "  ../up.html#top  "`,
		`navigational a href attr http://www.example.com/dir/search.cgi?q=a&b=c&lang=fr "search.cgi?q=a&amp;b=c&lang=fr"`,
		`navigational a href attr http://www.example.com/dir/r%C3%A9sum%C3%A9.html "r&eacute;sum&#xE9;.html"`,
		`navigational a href attr http://www.example.com/dir/caf%C3%A9.html "caf%c3%a9.html"`,
		`navigational a href attr http://www.example.com/dir/a%20b.html "a b.html"`,
		`navigational a href attr http://www.example.com/windows/path.html "\\windows\\path.html"`,
		`navigational a href js-string http://www.example.com/dir/js-popup.html "js-popup.html"`,
		`navigational a href attr http://www.example.com/Case.html "HTTP://WWW.Example.COM:80/Case.html"`,
		`embedded img src attr http://www.example.com/dir/img/a.gif "img/a.gif"`,
		`embedded img srcset list http://www.example.com/dir/img/a-2x.gif "img/a-2x.gif"`,
		`embedded img srcset list http://www.example.com/dir/img/a-3x.gif "img/a-3x.gif"`,
		`embedded img lowsrc attr http://www.example.com/dir/img/low.gif "img/low.gif"`,
		`embedded img data-src attr http://www.example.com/dir/img/lazy.png "img/lazy.png"`,
		`embedded img src attr http://www.example.com/dir/img/placeholder.gif "img/placeholder.gif"`,
		`embedded img onmouseover js-string http://www.example.com/dir/img/hover.gif "img/hover.gif"`,
		`embedded img style css-string http://www.example.com/dir/img/border.png "img/border.png"`,
		`navigational area href attr http://www.example.com/dir/area.html "area.html"`,
		`embedded frame src attr http://www.example.com/dir/frame1.html "frame1.html"`,
		`embedded frame src attr http://www.example.com/dir/frame2.html "frame2.html"`,
		`navigational frame longdesc attr http://www.example.com/dir/frame2-desc.html "frame2-desc.html"`,
		`embedded iframe src attr http://www.example.com/dir/inner.html "inner.html"`,
		`embedded img src attr http://www.example.com/dir/img/noscript.gif "img/noscript.gif"`,
		`embedded embed src attr http://www.example.com/dir/media/anim.swf "media/anim.swf"`,
		`embedded object data attr http://www.example.com/dir/media/movie.swf "media/movie.swf"`,
		`embedded param value attr http://www.example.com/dir/media/movie.swf "media/movie.swf"`,
		`embedded applet code applet-code http://www.example.com/dir/applets/Clock.class "Clock.class"`,
		`embedded applet archive list http://www.example.com/dir/applets/clock.jar "clock.jar"`,
		`embedded applet archive list http://www.example.com/dir/applets/extra.jar "extra.jar"`,
		`embedded applet code applet-code http://www.example.com/classes/com/example/Ticker.class "com.example.Ticker"`,
		`navigational form action attr http://www.example.com/dir/cgi-bin/post.cgi "cgi-bin/post.cgi"`,
		`embedded input src attr http://www.example.com/dir/img/submit.gif "img/submit.gif"`,
		`embedded input src attr http://www.example.com/dir/img/not-loaded.gif "img/not-loaded.gif"`,
		`navigational button formaction attr http://www.example.com/dir/other.cgi "other.cgi"`,
		`embedded table background attr http://www.example.com/dir/img/table.gif "img/table.gif"`,
		`embedded td background attr http://www.example.com/dir/img/td.gif "img/td.gif"`,
		`embedded video src attr http://www.example.com/dir/media/clip.mp4 "media/clip.mp4"`,
		`embedded video poster attr http://www.example.com/dir/img/poster.jpg "img/poster.jpg"`,
		`embedded source src attr http://www.example.com/dir/media/clip.webm "media/clip.webm"`,
		`embedded track src attr http://www.example.com/dir/media/subs.vtt "media/subs.vtt"`,
		`embedded source srcset list http://www.example.com/dir/media/sound.ogg "media/sound.ogg"`,
		`embedded source srcset list http://www.example.com/dir/img/w1.webp "img/w1.webp"`,
		`embedded source srcset list http://www.example.com/dir/img/w2.webp "img/w2.webp"`,
		`embedded image xlink:href attr http://www.example.com/dir/img/vector.png "img/vector.png"`,
		`navigational a xlink:href attr http://www.example.com/dir/svg-link.html "svg-link.html"`,
	}
	checkLines(t, src, got, want)
}

// TestHTMLBase checks that the first <base href> (itself resolved against the
// page) is reported as Kind Base and governs the links after it, and that a
// second <base> does not.
func TestHTMLBase(t *testing.T) {
	src := []byte(`<html><head><link href="early.css" rel=stylesheet>` +
		`<base href="../other/sub/"><base href="http://ignored.example/">` +
		`</head><body><a href="page.html">p</a><img src="/root.gif"><a href="?q=1">q</a></body></html>`)
	got := collect(t, viaHTML, src, "http://h.example/a/b/index.html")
	checkLines(t, src, got, []string{
		`embedded link href attr http://h.example/a/b/early.css "early.css"`,
		`base base href attr http://h.example/a/other/sub/ "../other/sub/"`,
		`base base href attr http://ignored.example/ "http://ignored.example/"`,
		`navigational a href attr http://h.example/a/other/sub/page.html "page.html"`,
		`embedded img src attr http://h.example/root.gif "/root.gif"`,
		`navigational a href attr http://h.example/a/other/sub/?q=1 "?q=1"`,
	})
}

// TestHTMLTolerance checks markup a browser still understands.
func TestHTMLTolerance(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"upper-case tag and attribute", `<IMG SRC="X.GIF">`,
			[]string{`embedded img src attr http://h/d/X.GIF "X.GIF"`}},
		{"duplicate attribute: first wins", `<a href="one.html" href="two.html">`,
			[]string{`navigational a href attr http://h/d/one.html "one.html"`}},
		{"no space between attributes", `<a href="x.html"class=y>`,
			[]string{`navigational a href attr http://h/d/x.html "x.html"`}},
		{"self-closing unquoted value keeps slash", `<a href=x.html/>`,
			[]string{`navigational a href attr http://h/d/x.html/ "x.html/"`}},
		{"spaces around =", "<a href \t=\n 'sp.html'>",
			[]string{`navigational a href attr http://h/d/sp.html "sp.html"`}},
		{"legacy entity without semicolon", `<a href="x.cgi?a=1&copy=2&amp=3&lt4&gt/">`,
			[]string{`navigational a href attr http://h/d/x.cgi?a=1&copy=2&amp=3&lt4%3E/ "x.cgi?a=1&copy=2&amp=3&lt4&gt/"`}},
		{"tag inside comment ignored", `<!-- <a href="no.html"> --><a href="yes.html">`,
			[]string{`navigational a href attr http://h/d/yes.html "yes.html"`}},
		{"tag inside textarea ignored", `<textarea><img src="no.gif"></textarea><img src="yes.gif">`,
			[]string{`embedded img src attr http://h/d/yes.gif "yes.gif"`}},
		{"unterminated quote runs on", `<a href="x.html>text</a><a href="y.html">`,
			[]string{`navigational a href attr http://h/d/x.html%3Etext%3C/a%3E%3Ca%20href= "x.html>text</a><a href="`}},
		{"script end tag in string", `<script>var a = "</scr" + "ipt>"; b.src = "in.gif";</script><img src="out.gif">`,
			[]string{`embedded script string js-string http://h/d/in.gif "in.gif"`, `embedded img src attr http://h/d/out.gif "out.gif"`}},
		{"language=vbscript not scanned", `<script language="VBScript">x = "no.gif"</script>`, nil},
		{"json-ld not scanned", `<script type="application/ld+json">{"logo": "no.png"}</script>`, nil},
		{"module scanned", `<script type=module>import("./mod.js");</script>`,
			[]string{`embedded script string js-string http://h/d/mod.js "./mod.js"`}},
		{"refresh without url=", `<meta http-equiv=refresh content="0;next.html">`,
			[]string{`navigational meta content refresh http://h/d/next.html "next.html"`}},
		{"refresh with time only", `<meta http-equiv=refresh content="5">`, nil},
		{"style attribute with entity", `<p style="background:url(&quot;a b.png&quot;)">`,
			[]string{`embedded p style css-string http://h/d/a%20b.png "a b.png"`}},
		{"link rel alternate stylesheet", `<link rel="alternate stylesheet" href="alt.css">`,
			[]string{`embedded link href attr http://h/d/alt.css "alt.css"`}},
		{"nested noscript in noframes", `<noframes><noscript><img src="deep.gif"></noscript></noframes>`,
			[]string{`embedded img src attr http://h/d/deep.gif "deep.gif"`}},
		{"https default port and IPv6", `<a href="https://[::1]:443/x"><a href="http://[::1]:8080/y">`,
			[]string{`navigational a href attr https://[::1]/x "https://[::1]:443/x"`, `navigational a href attr http://[::1]:8080/y "http://[::1]:8080/y"`}},
		{"bad port skipped", `<a href="http://h:99999/x"><a href="http://h:x/">`, nil},
		{"truncated document", `<a href="ok.html"><img src="cut`,
			[]string{`navigational a href attr http://h/d/ok.html "ok.html"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := collect(t, viaHTML, []byte(tc.src), "http://h/d/page.html")
			checkLines(t, []byte(tc.src), got, tc.want)
		})
	}
}

// TestCSSFile checks a style sheet with every url()/@import form.
func TestCSSFile(t *testing.T) {
	src := readTestdata(t, "style.css")
	got := collect(t, viaCSS, src, "http://www.example.com/dir/style.css")
	checkLines(t, src, got, []string{
		`embedded css import css-string http://www.example.com/dir/base.css "base.css"`,
		`embedded css import css-string http://www.example.com/dir/print.css "print.css"`,
		`embedded css import css-url http://www.example.com/dir/theme.css "theme.css"`,
		`embedded css import css-string http://www.example.com/dir/fonts.css "fonts.css"`,
		`embedded css url css-url http://www.example.com/dir/img/body.png "img/body.png"`,
		`embedded css url css-string http://www.example.com/dir/img/h1.png "img/h1.png"`,
		`embedded css url css-url http://www.example.com/dir/img/h2.gif "img/h2.gif"`,
		`embedded css url css-url http://www.example.com/dir/img/h3.png "img/h\\33 .png"`,
		`embedded css url css-string http://www.example.com/dir/img/quote%22d.png "img/quote\\\"d.png"`,
		`embedded css url css-url http://www.example.com/dir/img/paren).png "img/paren\\).png"`,
		`embedded css image-set css-string http://www.example.com/dir/img/c1.png "img/c1.png"`,
		`embedded css image-set css-url http://www.example.com/dir/img/c2.png "img/c2.png"`,
		`embedded css image-set css-string http://www.example.com/dir/img/d1.png "img/d1.png"`,
		`embedded css url css-url http://www.example.com/up/e.png "../up/e.png"`,
		`embedded css url css-url http://cdn.example.net/e.png "//cdn.example.net/e.png"`,
		`embedded css url css-url https://other.example.org/e.png#frag "https://other.example.org/e.png#frag"`,
		`embedded css url css-url http://www.example.com/dir/fonts/x.woff2 "fonts/x.woff2"`,
		`embedded css url css-string http://www.example.com/dir/fonts/x.ttf "fonts/x.ttf"`,
		`embedded css url css-url http://www.example.com/dir/img/f.png "img/f.png"`,
	})
}

// TestJSFile checks the chapter's script heuristic (4.2.2) on a script file:
// safe preceding and following characters, expressions left alone.
func TestJSFile(t *testing.T) {
	src := readTestdata(t, "script.js")
	got := collect(t, viaJS, src, "http://www.example.com/dir/script.js")
	checkLines(t, src, got, []string{
		`embedded js string js-string http://www.example.com/images/welcome.gif "/images/welcome.gif"`,
		`navigational js string js-string http://www.example.com/docs/welcome.html "/docs/welcome.html"`,
		`embedded js string js-string http://www.example.com/images/single.png "/images/single.png"`,
		`embedded js string js-string http://www.example.com/dir/img/one.jpg "img/one.jpg"`,
		`embedded js string js-string http://www.example.com/dir/img/two.jpg "img/two.jpg"`,
		`embedded js string js-string http://www.example.com/dir/img/icon.ico "img/icon.ico"`,
		`navigational js string js-string http://www.example.com/dir/pages/p.php?id=1 "pages/p.php?id=1"`,
		`navigational js string js-string http://www.example.com/dir/a.html "a.html"`,
		`navigational js string js-string http://www.example.com/dir/b.html "b.html"`,
		`navigational js string js-string http://www.example.com/dir/compare.html "compare.html"`,
		`navigational js string js-string https://www.example.com/abs/path "https://www.example.com/abs/path"`,
		`navigational js string js-string http://www.example.com/upper "HTTP://www.example.com/upper"`,
		`embedded js string js-string http://www.example.com/dir/img/escaped.gif "img\\/escaped\\x2egif"`,
		`embedded js string js-string http://www.example.com/dir/tpl/static.png "tpl/static.png"`,
		`embedded js string js-string http://www.example.com/dir/after-division.gif "after-division.gif"`,
		`embedded js string js-string http://www.example.com/dir/no-semicolon.css "no-semicolon.css"`,
		`embedded js string js-string http://www.example.com/dir/end-of-file.js "end-of-file.js"`,
	})
}

// TestClass checks the constant-pool walk on class files compiled by javac
// (testdata/links/applet, sources beside them): URL-like strings and
// non-system class names, resolved against the codebase, spans pointing at
// the strings in the file.
func TestClass(t *testing.T) {
	for _, tc := range []struct {
		file string
		want []string
	}{
		{"applet/Clock.class", []string{
			`navigational class string class http://www.example.com/clock/help.html "http://www.example.com/clock/help.html"`,
			`embedded class class class http://www.example.com/dir/applets/Clock.class "Clock"`,
			`embedded class class class http://www.example.com/dir/applets/com/example/Hands.class "com/example/Hands"`,
			`embedded class string class http://www.example.com/tick.au "/tick.au"`,
			`embedded class string class http://www.example.com/dir/applets/images/face.gif "images/face.gif"`,
		}},
		{"applet/com/example/Hands.class", []string{
			`embedded class string class http://www.example.com/images/hands.png "../../images/hands.png"`,
			`embedded class class class http://www.example.com/dir/applets/com/example/Hands.class "com/example/Hands"`,
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			src := readTestdata(t, tc.file)
			got := collect(t, viaClass, src, "http://www.example.com/dir/applets/")
			checkLines(t, src, got, tc.want)
			for _, l := range got {
				if l.Rewritable() {
					t.Errorf("%s: class links must not be rewritable", l.URL)
				}
			}
		})
	}
}

// TestClassErrors checks that broken class files give errors naming the
// offset, and never panic.
func TestClassErrors(t *testing.T) {
	good := readTestdata(t, "applet/Clock.class")
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "class file: offset 0: truncated"},
		{"not a class", []byte("<html><body>not a class</body></html>"), "class file: offset 0: not a Java class file (magic 3c68746d)"},
		{"truncated pool", good[:40], "class file: offset 40: truncated"},
		{"bad tag", append(append([]byte{}, good[:10]...), 99), "class file: constant 1 at offset 10: unknown tag 99"},
		{"class index out of range", append(append([]byte{}, good[:10]...), 7, 0xff, 0xff), "class file: constant 1 at offset 10: class name index 65535 out of range 1..64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Class(bytes.NewReader(tc.data), mustURL(t, "http://h/"), func(Link) error { return nil })
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if tc.name == "not a class" && !errors.Is(err, ErrNotClass) {
				t.Errorf("not ErrNotClass")
			}
		})
	}
}

// TestResolve checks the browser-tolerant resolution on its own.
func TestResolve(t *testing.T) {
	base := mustURL(t, "http://www.example.com/dir/index.html")
	for _, tc := range []struct{ ref, abs, frag string }{
		{"page.html", "http://www.example.com/dir/page.html", ""},
		{"../../../../up.html", "http://www.example.com/up.html", ""},
		{"http:page2.html", "http://www.example.com/dir/page2.html", ""},
		{"http:/slash.html", "http://www.example.com/slash.html", ""},
		{"https:/other.html", "https://other.html/", ""},
		{"https:page.html", "https://page.html/", ""},
		{"//h2.example/p?q#f", "http://h2.example/p?q", "#f"},
		{" \t\nx\r\ny.html \f", "http://www.example.com/dir/xy.html", ""},
		{"x%zz.html", "http://www.example.com/dir/x%25zz.html", ""},
		{"a|b^c{d}.html", "http://www.example.com/dir/a%7Cb%5Ec%7Bd%7D.html", ""},
		{"%7e%41%2f.html", "http://www.example.com/dir/~A%2F.html", ""},
		{"http://h/a/./b/../%2e%2E/c.html", "http://h/c.html", ""},
		{"HTTPS://H.EXAMPLE.:443/", "https://h.example./", ""},
		{"http://h.example:0080/", "http://h.example/", ""},
		{"?q=1", "http://www.example.com/dir/index.html?q=1", ""},
		{"caf\xe9.html", "http://www.example.com/dir/caf%C3%A9.html", ""},
		{"caf\xe9.cgi?q=\xe9t\xe9", "http://www.example.com/dir/caf%C3%A9.cgi?q=%E9t%E9", ""},
		{"caf\u00e9.cgi?q=\u00e9", "http://www.example.com/dir/caf%C3%A9.cgi?q=%C3%A9", ""},
		{"http://user:pw@h/", "http://user:pw@h/", ""},
	} {
		abs, frag, ok := Resolve(base, tc.ref)
		if !ok || abs != tc.abs || frag != tc.frag {
			t.Errorf("Resolve(%q) = %q %q %v, want %q %q", tc.ref, abs, frag, ok, tc.abs, tc.frag)
		}
	}
	for _, ref := range []string{"", "   ", "#top", "mailto:a@b", "javascript:void(0)", "data:,x", "ftp://h/x",
		"file:///etc/passwd", "about:blank", "tel:123", "http://", "http://h:99999/", "http://[::1/"} {
		if abs, _, ok := Resolve(base, ref); ok {
			t.Errorf("Resolve(%q) = %q, want not ok", ref, abs)
		}
	}
	if _, _, ok := Resolve(nil, "relative.html"); ok {
		t.Errorf("relative with nil base must fail")
	}
}

func TestForType(t *testing.T) {
	name := func(e Extractor) string {
		switch fmt.Sprintf("%p", e) {
		case fmt.Sprintf("%p", Extractor(HTML)):
			return "HTML"
		case fmt.Sprintf("%p", Extractor(CSS)):
			return "CSS"
		case fmt.Sprintf("%p", Extractor(JS)):
			return "JS"
		case fmt.Sprintf("%p", Extractor(Class)):
			return "Class"
		case fmt.Sprintf("%p", Extractor(nil)):
			return "nil"
		}
		return "?"
	}
	for _, tc := range []struct{ ct, url, want string }{
		{"text/html; charset=iso-8859-1", "http://h/x.php", "HTML"},
		{"application/xhtml+xml", "http://h/", "HTML"},
		{"TEXT/CSS", "http://h/s", "CSS"},
		{"application/javascript", "http://h/a", "JS"},
		{"text/javascript;charset=utf-8", "http://h/a", "JS"},
		{"application/java-vm", "http://h/A", "Class"},
		{"application/octet-stream", "http://h/A.class", "Class"},
		{"", "http://h/page.htm?x=1", "HTML"},
		{"text/plain", "http://h/app.js", "JS"},
		{"text/plain", "http://h/readme", "nil"},
		{"image/gif", "http://h/x.html", "nil"},
		{"application/pdf", "http://h/x.pdf", "nil"},
	} {
		if got := name(ForType(tc.ct, tc.url)); got != tc.want {
			t.Errorf("ForType(%q, %q) = %s, want %s", tc.ct, tc.url, got, tc.want)
		}
	}
}
