package links

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkInvariants asserts what the mirror relies on for any input: spans
// inside the source, in order and not overlapping, absolute http(s) URLs
// without fragment, already in canonical form (Resolve is idempotent).
func checkInvariants(t *testing.T, src []byte, ls []Link) {
	t.Helper()
	last := int64(0)
	for i, l := range ls {
		if l.Start < 0 || l.End < l.Start || l.End > int64(len(src)) {
			t.Fatalf("link %d: span [%d,%d) outside [0,%d)", i, l.Start, l.End, len(src))
		}
		if l.Rewritable() {
			if l.Start < last {
				t.Fatalf("link %d: span [%d,%d) overlaps or precedes the previous one ending at %d", i, l.Start, l.End, last)
			}
			last = l.End
		}
		if !strings.HasPrefix(l.URL, "http://") && !strings.HasPrefix(l.URL, "https://") {
			t.Fatalf("link %d: URL %q not http(s)", i, l.URL)
		}
		if strings.Contains(l.URL, "#") {
			t.Fatalf("link %d: URL %q keeps a fragment", i, l.URL)
		}
		if again, _, ok := Resolve(nil, l.URL); !ok || again != l.URL {
			t.Fatalf("link %d: Resolve not idempotent: %q -> %q %v", i, l.URL, again, ok)
		}
	}
}

func fuzzExtractor(f *testing.F, ex extractor, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var ls []Link
		err := ex(data, mustURL(t, "http://h.example/d/doc"), func(l Link) error { ls = append(ls, l); return nil })
		if err != nil && !errors.Is(err, ErrNotClass) && !strings.HasPrefix(err.Error(), "class file:") {
			t.Fatalf("unexpected error %v", err)
		}
		checkInvariants(t, data, ls)
		// rewriting every link with Encode must give a document that parses
		// to as many links (text formats only)
		if err == nil && !bytes.HasPrefix(data, []byte{0xca, 0xfe}) {
			out := replaceAll(data, ls, func(l Link) string { return "r/x.gif" })
			var again []Link
			if err := ex(out, mustURL(t, "http://h.example/d/doc"), func(l Link) error { again = append(again, l); return nil }); err != nil {
				t.Fatalf("rewritten document: %v", err)
			}
			checkInvariants(t, out, again)
		}
	})
}

func seedFiles(f *testing.F, names ...string) []string {
	var out []string
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "links", n))
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

func FuzzHTML(f *testing.F) {
	seeds := append(seedFiles(f, "syntaxes.html"),
		`<a href=x>`, `<base href=../><img src=y srcset="a 1x, b 2x">`, `<p style="background:url(&quot;x&quot;)">`,
		`<meta http-equiv=refresh content="0;url='z.html'">`, `<script>a="b.gif";</script>`, `<noscript><img src=n.gif></noscript>`)
	if b, err := os.ReadFile("../../testdata/htcache/garden-origin/index.html"); err == nil {
		seeds = append(seeds, string(b))
	}
	fuzzExtractor(f, viaHTML, seeds...)
}

func FuzzCSS(f *testing.F) {
	fuzzExtractor(f, viaCSS, append(seedFiles(f, "style.css"),
		`a{b:url(c)}`, `@import "x";`, `x{y:image-set("a" 1x)}`, `url(\`, `u\rl(x)`)...)
}

func FuzzJS(f *testing.F) {
	fuzzExtractor(f, viaJS, append(seedFiles(f, "script.js"),
		`a="b.gif";`, `x(/re"/, 'c.html')`, "`t${x}.png`", `a = b / "c.gif"`)...)
}

func FuzzClass(f *testing.F) {
	fuzzExtractor(f, viaClass, seedFiles(f, "applet/Clock.class", "applet/com/example/Hands.class")...)
}

// TestHTMLTokenTooLarge checks that a token past MaxHTMLToken is an error
// naming its offset, not an unbounded allocation.
func TestHTMLTokenTooLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 32 MiB")
	}
	prefix := `<a href="ok.html"><script>`
	r := ioMulti(strings.NewReader(prefix), &repeatReader{b: 'x', n: MaxHTMLToken + 1})
	var n int
	err := HTML(r, mustURL(t, "http://h/"), func(Link) error { n++; return nil })
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("error %v, want ErrTooLarge", err)
	}
	if want := "offset 26: token too large (over 33554432 bytes)"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	if n != 1 {
		t.Errorf("%d links before the error, want 1", n)
	}
}

type repeatReader struct {
	b byte
	n int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, errEOF
	}
	k := min(len(p), r.n)
	for i := range p[:k] {
		p[i] = r.b
	}
	r.n -= k
	return k, nil
}

func BenchmarkHTML(b *testing.B) {
	src := seedFilesB(b, "syntaxes.html")
	doc := bytes.Repeat(src, (1<<20)/len(src)+1)
	u := mustURL(b, "http://www.example.com/dir/index.html")
	b.SetBytes(int64(len(doc)))
	b.ResetTimer()
	for range b.N {
		n := 0
		if err := HTML(bytes.NewReader(doc), u, func(Link) error { n++; return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCSS(b *testing.B) {
	src := seedFilesB(b, "style.css")
	doc := bytes.Repeat(src, (1<<20)/len(src)+1)
	u := mustURL(b, "http://www.example.com/dir/style.css")
	b.SetBytes(int64(len(doc)))
	b.ResetTimer()
	for range b.N {
		if err := CSS(bytes.NewReader(doc), u, func(Link) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkJS(b *testing.B) {
	src := seedFilesB(b, "script.js")
	doc := bytes.Repeat(src, (1<<20)/len(src)+1)
	u := mustURL(b, "http://www.example.com/dir/script.js")
	b.SetBytes(int64(len(doc)))
	b.ResetTimer()
	for range b.N {
		if err := JS(bytes.NewReader(doc), u, func(Link) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

func seedFilesB(b *testing.B, name string) []byte {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "links", name))
	if err != nil {
		b.Fatal(err)
	}
	return data
}

var errEOF = io.EOF

func ioMulti(rs ...io.Reader) io.Reader { return io.MultiReader(rs...) }
