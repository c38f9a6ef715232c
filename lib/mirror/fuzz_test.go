package mirror

import (
	"bytes"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/links"
)

// FuzzNamer names the URLs of each input line (a MIME type may follow a
// space) and checks the naming invariants: safe relative paths, no
// forbidden character, bounded lengths, one path per URL, no two URLs on one
// path (ignoring case), no file used as a directory.
func FuzzNamer(f *testing.F) {
	f.Add("http://www.example.com/index_1.html text/html\nhttp://www.example.com/INDEX_1.HTML text/html\nhttp://www.example.com/index_1.cgi text/html")
	f.Add("http://h/foo application/octet-stream\nhttp://h/foo/bar.gif image/gif\nhttp://h/Foo/x")
	f.Add("http://h/con/aux.txt\nhttp://h/a%2F..%2Fb?x=1\nhttp://[::1]:8080/~x/ text/html")
	f.Add("http://h/" + strings.Repeat("%C3%A9", 100) + "/x.html?q text/html")
	const maxSeg, maxPath = 40, 120
	f.Fuzz(func(t *testing.T, in string) {
		n := NewNamer(&Options{MaxSegment: maxSeg, MaxPath: maxPath})
		owner := map[string]string{}
		var files []string
		lines := strings.Split(in, "\n")
		if len(lines) > 64 {
			lines = lines[:64] // the checks below are quadratic
		}
		for _, line := range lines {
			u, mt, _ := strings.Cut(line, " ")
			key, err := URLKey(u)
			p, err2 := n.Name(u, mt)
			if (err == nil) != (err2 == nil) {
				t.Fatalf("%q: URLKey error %v, Name error %v", u, err, err2)
			}
			if err != nil {
				continue
			}
			if err := checkRelPath(p, "windows"); err != nil {
				t.Fatalf("%q: %v", u, err)
			}
			if len(p) > maxPath+24 {
				t.Fatalf("%q: path %q is %d bytes", u, p, len(p))
			}
			for _, s := range strings.Split(p, "/") {
				if len(s) > maxSeg+12 {
					t.Fatalf("%q: segment %q is %d bytes", u, s, len(s))
				}
				if strings.ContainsAny(s, "\\:*?\"<>|~\x00\x7f") || strings.HasSuffix(s, ".") || strings.HasSuffix(s, " ") {
					t.Fatalf("%q: unsafe segment %q in %q", u, s, p)
				}
				for _, c := range []byte(s) {
					if c < 32 {
						t.Fatalf("%q: control character in %q", u, p)
					}
				}
				if windowsReserved(s) || !WindowsSafe(s) {
					t.Fatalf("%q: reserved name %q", u, s)
				}
			}
			if o, ok := owner[fold(p)]; ok && o != key {
				t.Fatalf("%q and %q share %q", o, key, p)
			}
			if q, _ := n.Name(u, "text/html"); q != p {
				t.Fatalf("%q renamed %q -> %q", u, p, q)
			}
			if q, ok := n.Lookup(u); !ok || q != p {
				t.Fatalf("Lookup(%q) = %q %v, want %q", u, q, ok, p)
			}
			owner[fold(p)] = key
			files = append(files, p)
		}
		for _, a := range files {
			for _, b := range files {
				if strings.HasPrefix(fold(b), fold(a)+"/") {
					t.Fatalf("file %q is a directory of %q", a, b)
				}
			}
		}
	})
}

// FuzzRewrite rewrites arbitrary HTML with every link local or not and
// checks that the output parses to as many links as the input had (<base>
// aside, emptied).
func FuzzRewrite(f *testing.F) {
	if b, err := os.ReadFile(testdata("garden-origin", "index.html")); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`<base href="/x/"><a href="a b.html#f">x</a><img srcset="i.png 1x, j.png 2x" style='background:url("k.png")'>`))
	f.Fuzz(func(t *testing.T, src []byte) {
		doc, _ := url.Parse("http://h.example/d/page.html")
		var ls []links.Link
		if err := links.HTML(bytes.NewReader(src), doc, func(l links.Link) error { ls = append(ls, l); return nil }); err != nil {
			return
		}
		n := NewNamer(nil)
		for i, l := range ls {
			if i%2 == 0 {
				if _, err := n.Name(l.URL, ""); err != nil {
					t.Fatal(err)
				}
			}
		}
		rw := &Rewriter{Files: n, KeepQuery: true}
		var out bytes.Buffer
		if _, err := rw.Rewrite(&out, bytes.NewReader(src), "h.example/d/page.html", ls); err != nil {
			t.Fatal(err)
		}
		var again []links.Link
		if err := links.HTML(bytes.NewReader(out.Bytes()), doc, func(l links.Link) error { again = append(again, l); return nil }); err != nil {
			t.Fatal(err)
		}
		count := func(ls []links.Link) int {
			n := 0
			for _, l := range ls {
				if l.Kind != links.Base { // a rewritten <base href=""> is no link
					n++
				}
			}
			return n
		}
		if count(again) != count(ls) {
			t.Fatalf("%d links after rewriting, %d before:\n%s\n=>\n%s", len(again), len(ls), src, out.Bytes())
		}
	})
}

func BenchmarkNamer(b *testing.B) {
	urls := make([]string, 1000)
	for i := range urls {
		urls[i] = "http://www.example.com/section" + strings.Repeat("x", i%7) + "/page" + string(rune('a'+i%26)) + ".php?id=" + strings.Repeat("9", i%5)
	}
	b.ResetTimer()
	for range b.N {
		n := NewNamer(nil)
		for _, u := range urls {
			if _, err := n.Name(u, "text/html"); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkRewrite(b *testing.B) {
	src, err := os.ReadFile("../../testdata/links/syntaxes.html")
	if err != nil {
		b.Fatal(err)
	}
	doc, _ := url.Parse("http://www.example.com/dir/index.html")
	var ls []links.Link
	links.HTML(bytes.NewReader(src), doc, func(l links.Link) error { ls = append(ls, l); return nil })
	n := NewNamer(nil)
	for _, l := range ls {
		n.Name(l.URL, "")
	}
	rw := &Rewriter{Files: n}
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for range b.N {
		if _, err := rw.Rewrite(discard{}, bytes.NewReader(src), "www.example.com/dir/index.html", ls); err != nil {
			b.Fatal(err)
		}
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
