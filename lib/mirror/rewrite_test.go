package mirror

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/arcport/arcport/lib/links"
)

func extractHTML(t *testing.T, src []byte, docURL string) []links.Link {
	t.Helper()
	u, err := url.Parse(docURL)
	if err != nil {
		t.Fatal(err)
	}
	var ls []links.Link
	if err := links.HTML(bytes.NewReader(src), u, func(l links.Link) error { ls = append(ls, l); return nil }); err != nil {
		t.Fatal(err)
	}
	return ls
}

// TestRewriteDocument checks each kind of replacement on one page: local
// links relative with fragment kept, links outside the mirror absolute,
// <base href> emptied, CSS and JS links rewritten with their escaping,
// javascript:/mailto: links and all other bytes untouched.
func TestRewriteDocument(t *testing.T) {
	n := NewNamer(nil)
	for _, u := range [][2]string{
		{"http://h.example/dir/page.html", "text/html"},
		{"http://h.example/dir/img/a b.gif", "image/gif"},
		{"http://h.example/style.cgi", "text/css"},
		{"http://h.example/dir/list.php?x=1&y=2", "text/html"},
		{"http://h.example/dir/js/app.js", "text/javascript"},
		{"http://h.example/dir/it's.html", "text/html"},
	} {
		if _, err := n.Name(u[0], u[1]); err != nil {
			t.Fatal(err)
		}
	}
	src := []byte(`<html><head><base href="http://h.example/dir/"><link rel=stylesheet href=../style.cgi>` +
		`<script>img.src = "img/a%20b.gif"; go("http://elsewhere.example/x.html");</script></head>` +
		`<body style='background:url("img/a b.gif")'>` +
		`<a href="page.html#sec-2">p</a> <a href="list.php?x=1&amp;y=2">l</a> <a href="missing.html#m">m</a>` +
		`<a href=page.html>u</a> <a href="it's.html">q</a> <a href='it&#39;s.html'>q2</a>` +
		`<a href="mailto:me@h.example">mail</a> <a href="javascript:void(0)">js</a>` +
		`<img src="//cdn.example.net/i.png" srcset="img/a%20b.gif 1x, big.gif 2x"></body></html>`)
	ls := extractHTML(t, src, "http://h.example/dir/page.html")
	var out bytes.Buffer
	rw := &Rewriter{Files: n}
	if _, err := rw.Rewrite(&out, bytes.NewReader(src), "h.example/dir/page.html", ls); err != nil {
		t.Fatal(err)
	}
	want := `<html><head><base href=""><link rel=stylesheet href=../style.css>` +
		`<script>img.src = "img/a%20b.gif"; go("http://elsewhere.example/x.html");</script></head>` +
		`<body style='background:url("img/a%20b.gif")'>` +
		`<a href="page.html#sec-2">p</a> <a href="list` + md5hex4("x=1&y=2") + `.html">l</a> <a href="http://h.example/dir/missing.html#m">m</a>` +
		`<a href=page.html>u</a> <a href="it's.html">q</a> <a href='it&#39;s.html'>q2</a>` +
		`<a href="mailto:me@h.example">mail</a> <a href="javascript:void(0)">js</a>` +
		`<img src="http://cdn.example.net/i.png" srcset="img/a%20b.gif 1x, http://h.example/dir/big.gif 2x"></body></html>`
	if out.String() != want {
		t.Errorf("rewritten:\n%s\nwant:\n%s", out.String(), want)
	}
	// with KeepQuery the query string follows the local name
	rw.KeepQuery = true
	out.Reset()
	if _, err := rw.Rewrite(&out, bytes.NewReader(src), "h.example/dir/page.html", ls); err != nil {
		t.Fatal(err)
	}
	if w := `href="list` + md5hex4("x=1&y=2") + `.html?x=1&amp;y=2"`; !strings.Contains(out.String(), w) {
		t.Errorf("KeepQuery: %s not in\n%s", w, out.String())
	}
}

// TestRewriteErrors: links out of order or past the end of the source are
// errors naming the document and offset; read errors pass through.
func TestRewriteErrors(t *testing.T) {
	rw := &Rewriter{Files: NewNamer(nil)}
	l := func(s, e int64) links.Link {
		return links.Link{URL: "http://h/x", Start: s, End: e, Syntax: links.SyntaxAttr, InAttr: true, AttrQuote: '"'}
	}
	for _, tc := range []struct {
		name string
		src  io.Reader
		ls   []links.Link
		want string
	}{
		{"overlap", strings.NewReader("0123456789"), []links.Link{l(2, 6), l(4, 8)}, "mirror: doc.html: link 1 at offset 4 overlaps the previous one (ends at 6)"},
		{"past end", strings.NewReader("0123"), []links.Link{l(2, 9)}, "mirror: doc.html: link 0 at offset 2: unexpected EOF"},
		{"start past end", strings.NewReader("0123"), []links.Link{l(7, 9)}, "mirror: doc.html: link 0 at offset 7: unexpected EOF"},
		{"read error", iotest.TimeoutReader(strings.NewReader("0123456789")), []links.Link{l(8, 9)}, "mirror: doc.html: link 0 at offset 8: timeout"},
	} {
		_, err := rw.Rewrite(io.Discard, tc.src, "doc.html", tc.ls)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := rw.Rewrite(io.Discard, strings.NewReader("x"), "doc.html", nil); err != nil {
		t.Errorf("no links: %v", err)
	}
}

// TestMirrorLinksResolve mirrors a small site served by httptest with a
// deliberately naive crawler (fetch every link of the start page and of the
// pages and style sheets it reaches, on the same host), then re-reads every
// saved HTML and CSS file and checks that each relative link in it names a
// file that exists in the mirror, and each absolute one points off-site or
// to a URL that was not saved (404).
func TestMirrorLinksResolve(t *testing.T) {
	origin := testdata("garden-origin")
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if p == "/" {
			p = "/index.html"
		}
		switch p {
		case "/old-page":
			http.Redirect(w, r, "/new-page.html", http.StatusMovedPermanently)
			return
		case "/img/rose.gif", "/img/leaf.gif":
			w.Header().Set("Content-Type", "image/gif")
			w.Write([]byte("GIF89a"))
			return
		case "/files/report.pdf":
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write([]byte("%PDF-1.4"))
			return
		case "/members.html":
			if r.URL.RawQuery != "sort=name" {
				http.NotFound(w, r)
				return
			}
		}
		b, err := os.ReadFile(filepath.Join(origin, filepath.FromSlash(strings.TrimPrefix(p, "/"))))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		if strings.HasSuffix(p, ".css") {
			w.Header().Set("Content-Type", "text/css")
		} else {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
		}
		w.Write(b)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	dir := t.TempDir()
	n := NewNamer(nil)
	type saved struct {
		url, path, ctype string
		body             []byte
		links            []links.Link
	}
	var pages []saved
	queue := []string{srv.URL + "/"}
	seen := map[string]bool{srv.URL + "/": true}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		resp, err := client.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusMovedPermanently {
			loc, _ := resp.Location()
			if err := n.Alias(u, loc.String()); err != nil {
				t.Fatal(err)
			}
			if !seen[loc.String()] {
				seen[loc.String()] = true
				queue = append(queue, loc.String())
			}
			continue
		}
		if resp.StatusCode != http.StatusOK {
			continue
		}
		ct := resp.Header.Get("Content-Type")
		p, err := n.Name(u, ct)
		if err != nil {
			t.Fatal(err)
		}
		s := saved{url: u, path: p, ctype: ct, body: body}
		base, _ := url.Parse(u)
		collect := func(l links.Link) error { s.links = append(s.links, l); return nil }
		switch MediaType(ct) {
		case "text/html":
			err = links.HTML(bytes.NewReader(body), base, collect)
		case "text/css":
			err = links.CSS(bytes.NewReader(body), base, collect)
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range s.links {
			if strings.HasPrefix(l.URL, srv.URL+"/") && !seen[l.URL] {
				seen[l.URL] = true
				queue = append(queue, l.URL)
			}
		}
		pages = append(pages, s)
	}
	// links are rewritten once every name is known
	rw := &Rewriter{Files: n, KeepQuery: true}
	for _, s := range pages {
		full := filepath.Join(dir, filepath.FromSlash(s.path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(full)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rw.Rewrite(f, bytes.NewReader(s.body), s.path, s.links); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if len(pages) != 11 {
		t.Errorf("saved %d files, want 11 (the garden site without gone.html)", len(pages))
	}
	// check the mirror as a browser would open it
	checked := 0
	for _, s := range pages {
		kind := MediaType(s.ctype)
		if kind != "text/html" && kind != "text/css" {
			continue
		}
		body, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(s.path)))
		if err != nil {
			t.Fatal(err)
		}
		local := &url.URL{Scheme: "http", Host: "local.mirror", Path: "/" + s.path}
		var ls []links.Link
		collect := func(l links.Link) error { ls = append(ls, l); return nil }
		if kind == "text/html" {
			err = links.HTML(bytes.NewReader(body), local, collect)
		} else {
			err = links.CSS(bytes.NewReader(body), local, collect)
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range ls {
			lu, _ := url.Parse(l.URL)
			if lu.Host != "local.mirror" {
				if _, ok := n.Lookup(l.URL); ok {
					t.Errorf("%s: %s left absolute though saved", s.path, l.URL)
				}
				continue
			}
			target := strings.TrimPrefix(path.Clean(lu.Path), "/")
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(target))); err != nil {
				t.Errorf("%s: local link %q: %v", s.path, l.Value, err)
			}
			checked++
		}
	}
	if checked < 12 {
		t.Errorf("only %d local links checked", checked)
	}
}

// TestLocatorFunc: a crawler can keep named-but-unsaved URLs absolute.
func TestLocatorFunc(t *testing.T) {
	n := NewNamer(nil)
	n.Name("http://h/a.html", "text/html")
	n.Name("http://h/failed.html", "text/html")
	rw := &Rewriter{Files: LocatorFunc(func(u string) (string, bool) {
		if strings.HasSuffix(u, "/failed.html") {
			return "", false
		}
		return n.Lookup(u)
	})}
	src := []byte(`<a href="a.html">a</a><a href="failed.html">f</a>`)
	var out bytes.Buffer
	if _, err := rw.Rewrite(&out, bytes.NewReader(src), "h/index.html", extractHTML(t, src, "http://h/index.html")); err != nil {
		t.Fatal(err)
	}
	if want := `<a href="a.html">a</a><a href="http://h/failed.html">f</a>`; out.String() != want {
		t.Errorf("got %s, want %s", out.String(), want)
	}
}
