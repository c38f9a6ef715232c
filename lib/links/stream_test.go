package links

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// extractSmall runs the HTML extractor with a tokenizer buffer of small
// bytes before a token is looked at (smallToken in production).
func extractSmall(data []byte, doc string, small int) ([]Link, error) {
	u, err := url.Parse(doc)
	if err != nil {
		return nil, err
	}
	var ls []Link
	e := &htmlExtractor{doc: u, base: u, f: func(l Link) error { ls = append(ls, l); return nil }, small: small}
	return ls, e.run(bytes.NewReader(data), 0, 0)
}

// smallTokenDocs are documents whose tokens straddle small buffer limits:
// long text runs with a tag at every position, long scripts, styles and
// noscript contents (re-read whole), raw text elements holding markup that
// is not markup, comments, long attribute values.
func smallTokenDocs(t testing.TB) map[string][]byte {
	docs := map[string][]byte{}
	for _, p := range []string{"../../testdata/links/syntaxes.html", "../../testdata/htcache/garden-origin/index.html",
		"../../testdata/htcache/garden-origin/news/2024.html", "../../testdata/htcache/garden-origin/news/2025.html"} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		docs[filepath.Base(p)] = b
	}
	text := strings.Repeat("lorem ipsum <b>dolor</b> & sit < amet <", 7)
	docs["crafted"] = []byte(`<html><head><title>` + text + `<a href=in-title></title>` +
		`<script>var s = "` + strings.Repeat("x", 150) + `"; img.src = "a.gif"; // <a href=in-script></script>` +
		`<style>` + strings.Repeat("p{color:red}", 20) + `body{background:url(bg.png)}</style>` +
		`<!-- ` + strings.Repeat("c", 120) + ` <a href=in-comment> -->` + text +
		`<noscript>` + strings.Repeat("n", 90) + `<img src=ns.gif></noscript>` +
		`<textarea>` + strings.Repeat("t", 100) + `<a href=in-textarea></textarea>` +
		`<img alt="` + strings.Repeat("a", 200) + `" src="long-attr.gif">` + text + `<a href=after.html>x</a>` +
		`<script type=text/template>` + strings.Repeat("<a href=tpl>", 20) + `</script><a href=end.html>`)
	return docs
}

// TestHTMLSmallTokens: reading text in pieces and tokens again whole gives
// exactly the links of one read with a large buffer, whatever the piece
// size: same URLs, spans, syntaxes, in the same order.
func TestHTMLSmallTokens(t *testing.T) {
	for name, data := range smallTokenDocs(t) {
		want, err := extractSmall(data, "http://h.example/d/doc.html", MaxHTMLToken)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 {
			t.Fatalf("%s: no links", name)
		}
		for _, small := range []int{2, 3, 5, 8, 13, 64, 100, 1000} {
			got, err := extractSmall(data, "http://h.example/d/doc.html", small)
			if err != nil {
				t.Errorf("%s, pieces of %d: %v", name, small, err)
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s, pieces of %d: %d links, want %d\n got %s\nwant %s", name, small, len(got), len(want), linkList(got), linkList(want))
			}
		}
	}
	// the crafted document's links, as a browser would load them
	ls, _ := extractSmall(smallTokenDocs(t)["crafted"], "http://h.example/d/doc.html", 5)
	if got, want := linkList(ls), "a.gif bg.png ns.gif long-attr.gif after.html end.html"; got != want {
		t.Errorf("crafted: %s, want %s", got, want)
	}
}

func linkList(ls []Link) string {
	var b []string
	for _, l := range ls {
		b = append(b, strings.TrimPrefix(l.URL, "http://h.example/d/"))
	}
	return strings.Join(b, " ")
}

// TestHTMLLongText: a text run of 40 MiB (more than MaxHTMLToken) between
// two links is read in pieces: both links are found at their offsets, where
// the extractor used to stop with ErrTooLarge (and buffer 32 MiB, 64 MiB of
// tokenizer buffer, to get there).
func TestHTMLLongText(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 40 MiB")
	}
	const n = 40 << 20
	r := ioMulti(strings.NewReader(`<a href=a.html>`), &repeatReader{b: 0, n: n}, strings.NewReader(`<img src=b.gif>`))
	var got []string
	err := HTML(r, mustURL(t, "http://h/"), func(l Link) error {
		got = append(got, fmt.Sprintf("%s %d-%d", l.URL, l.Start, l.End))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("[http://h/a.html 8-14 http://h/b.gif %d-%d]", 15+n+9, 15+n+14); fmt.Sprint(got) != want {
		t.Errorf("links %v, want %s", got, want)
	}
}

// FuzzHTMLSmallTokens checks TestHTMLSmallTokens's property on any input:
// the same links with pieces of any size as in one read.
func FuzzHTMLSmallTokens(f *testing.F) {
	for _, d := range smallTokenDocs(f) {
		f.Add(d, uint8(7))
	}
	f.Add([]byte(`<script><!--<script></script>"x.gif"--></script><a href=y>`), uint8(3))
	f.Add([]byte(`a<!-x<a href=y>`), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, small uint8) {
		want, werr := extractSmall(data, "http://h.example/d/doc.html", MaxHTMLToken)
		got, gerr := extractSmall(data, "http://h.example/d/doc.html", int(small%64)+2)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("errors differ: %v, with pieces %v", werr, gerr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("pieces of %d: links differ\n got %s\nwant %s", int(small%64)+2, linkList(got), linkList(want))
		}
	})
}

// TestHTMLSmallTokensRandom checks the property of FuzzHTMLSmallTokens on
// documents made of random markup fragments (tags, raw text elements,
// comments, quotes, stray < and &), with random piece sizes.
func TestHTMLSmallTokensRandom(t *testing.T) {
	frags := []string{"<", ">", "a", "<a href=x.html>", "<script>", "</script>", "<!--", "-->", "<style>", "</style>",
		"<noscript>", "</noscript>", "<textarea>", "</textarea>", `"`, "'", "=", " ", "<img src=y.gif>", "<!", "</", "xyz",
		"<title>", "<plaintext>", "\x00", "&amp;", "<p", "/>", "<base href=../>", `s="z.gif";`, "url(u.png)", "<SCRIPT>",
		"<script type=x>", "<iframe src=f.html>", "</iframe>", "<xmp>", "</xmp>", "\r\n"}
	r := rand.New(rand.NewPCG(1, 2))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	for i := 0; i < n; i++ {
		var b []byte
		for j := r.IntN(40); j > 0; j-- {
			b = append(b, frags[r.IntN(len(frags))]...)
		}
		small := r.IntN(40) + 2
		want, werr := extractSmall(b, "http://h.example/d/doc.html", MaxHTMLToken)
		got, gerr := extractSmall(b, "http://h.example/d/doc.html", small)
		if (werr == nil) != (gerr == nil) || !reflect.DeepEqual(got, want) {
			t.Fatalf("pieces of %d: %q\n got %s (%v)\nwant %s (%v)", small, b, linkList(got), gerr, linkList(want), werr)
		}
	}
}

// BenchmarkHTMLRepeatedLinks reads a 1 MiB page of one link repeated (the
// hostile page of TestRewriteFromStreams in lib/mirror).
func BenchmarkHTMLRepeatedLinks(b *testing.B) {
	src := []byte(strings.Repeat(`<a href="x.html">x</a><img src=i.gif>`, 1<<20/36))
	u, _ := url.Parse("http://h.example/d/doc.html")
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if err := HTML(bytes.NewReader(src), u, func(Link) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// TestHTMLResolveMemo: values resolved once per document and base are
// resolved again after a <base href> or in an applet's codebase, and stay
// right past the memo's size.
func TestHTMLResolveMemo(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<a href=x><a href=x><applet codebase=cb/ archive=x></applet><base href=/other/><a href=x>`)
	for i := range maxMemo + 10 {
		fmt.Fprintf(&b, `<a href=p%d>`, i)
	}
	b.WriteString(`<a href=p0><a href=x>`)
	var got []string
	if err := HTML(strings.NewReader(b.String()), mustURL(t, "http://h/d/"), func(l Link) error {
		if !strings.HasPrefix(l.Value, "p") || l.Value == "p0" {
			got = append(got, l.URL)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := "[http://h/d/x http://h/d/x http://h/d/cb/x http://h/other/ http://h/other/x http://h/other/p0 http://h/other/p0 http://h/other/x]"
	if fmt.Sprint(got) != want {
		t.Errorf("got  %v\nwant %s", got, want)
	}
}
