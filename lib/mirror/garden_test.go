package mirror

import (
	"bufio"
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/links"
)

const gardenSite = "http://127.0.0.1:8766/"

// testdata names a file of the HTTrack fixture under testdata/htcache:
// garden-origin (the pages as the server sent them) or garden (HTTrack's
// mirror of them, with its hts-cache/new.txt log).
func testdata(parts ...string) string {
	return filepath.Join(append([]string{"..", "..", "testdata", "htcache"}, parts...)...)
}

// gardenFetch is one line of HTTrack's hts-cache/new.txt.
type gardenFetch struct {
	status, mime, url, local string
}

func readNewTxt(t *testing.T) []gardenFetch {
	t.Helper()
	f, err := os.Open(testdata("garden", "hts-cache", "new.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []gardenFetch
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		fs := strings.Split(sc.Text(), "\t")
		if len(fs) < 9 {
			t.Fatalf("new.txt: short line %q", sc.Text())
		}
		local, err := url.PathUnescape(fs[8]) // the log escapes the name: r%c3%a9sum%c3%a9.html is résumé.html on disk
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, gardenFetch{status: fs[3], mime: fs[5], url: fs[7], local: local})
	}
	return out
}

// nameGarden replays HTTrack's crawl of the garden site through a Namer, in
// the order of new.txt: each saved URL is named with the MIME type the
// server sent; the 301 /old-page becomes an alias of /new-page.html (its
// Location), as HTTrack rewrote links to it.
func nameGarden(t *testing.T, fetches []gardenFetch) (*Namer, map[string]string) {
	t.Helper()
	n := NewNamer(nil)
	got := map[string]string{}
	for _, f := range fetches {
		switch {
		case strings.HasSuffix(f.url, "/robots.txt"):
			continue // HTTrack keeps robots.txt out of the mirror
		case f.status == "301":
			if err := n.Alias(f.url, gardenSite+"new-page.html"); err != nil {
				t.Fatal(err)
			}
			continue
		}
		p, err := n.Name(f.url, f.mime)
		if err != nil {
			t.Fatal(err)
		}
		got[f.url] = p
	}
	return n, got
}

// TestGardenNames checks that the Namer gives every file of the real HTTrack
// mirror the name HTTrack gave it: index.html for "/", index-2.html for
// "/index.html" (collision), members099b.html for members.html?sort=name
// (query MD5), résumé.html for r%c3%a9sum%c3%a9.html (decoded), report.pdf
// kept for application/octet-stream, and the 404 page gone.html.
func TestGardenNames(t *testing.T) {
	fetches := readNewTxt(t)
	_, got := nameGarden(t, fetches)
	want := map[string]string{}
	for _, f := range fetches {
		if f.local == "" || f.status == "301" {
			continue
		}
		if strings.HasSuffix(f.local, ".delayed") {
			// new.txt logs the 404 under its temporary name; the tree holds gone.html
			f.local = "127.0.0.1_8766/gone.html"
		}
		want[f.url] = f.local
	}
	if len(want) != 12 {
		t.Fatalf("new.txt gave %d saved URLs, want 12", len(want))
	}
	for u, w := range want {
		if got[u] != w {
			t.Errorf("%s: named %q, HTTrack %q", u, got[u], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("named %d URLs, want %d", len(got), len(want))
	}
	// and every name is a file of the real mirror
	for u, p := range got {
		if _, err := os.Stat(testdata("garden", filepath.FromSlash(p))); err != nil {
			t.Errorf("%s: %s not in HTTrack's mirror: %v", u, p, err)
		}
	}
}

// httrackAdditions matches the comments and meta tag HTTrack adds to the
// pages it saves ("Mirrored from ..."), which mirrorget does not add.
var httrackAdditions = regexp.MustCompile("\n<!-- Mirrored from [^\n]*-->\n(<!-- Added by HTTrack -->[^\n]*<!-- /Added by HTTrack -->\n)?")

// TestGardenRewrite rewrites the original pages and style sheet of the garden
// site and compares them byte for byte with HTTrack's rewritten files (minus
// HTTrack's "Mirrored from" comments): relative links, members099b.html?sort=name,
// the redirect followed to new-page.html, ../index-2.html, lower-case escapes.
func TestGardenRewrite(t *testing.T) {
	n, names := nameGarden(t, readNewTxt(t))
	rw := &Rewriter{Files: n, KeepQuery: true}
	for _, tc := range []struct{ url, origin string }{
		{gardenSite, "index.html"},
		{gardenSite + "index.html", "index.html"},
		{gardenSite + "style.css", "style.css"},
		{gardenSite + "news/2024.html", "news/2024.html"},
		{gardenSite + "news/2025.html", "news/2025.html"},
		{gardenSite + "members.html?sort=name", "members.html"},
		{gardenSite + "new-page.html", "new-page.html"},
		{gardenSite + "r%c3%a9sum%c3%a9.html", "résumé.html"},
	} {
		local := names[tc.url]
		t.Run(local, func(t *testing.T) {
			src, err := os.ReadFile(testdata("garden-origin", filepath.FromSlash(tc.origin)))
			if err != nil {
				t.Fatal(err)
			}
			doc, _ := url.Parse(tc.url)
			var ls []links.Link
			collect := func(l links.Link) error { ls = append(ls, l); return nil }
			if strings.HasSuffix(tc.origin, ".css") {
				err = links.CSS(bytes.NewReader(src), doc, collect)
			} else {
				err = links.HTML(bytes.NewReader(src), doc, collect)
			}
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			w, err := rw.Rewrite(&out, bytes.NewReader(src), local, ls)
			if err != nil {
				t.Fatal(err)
			}
			if w != int64(out.Len()) {
				t.Errorf("Rewrite reported %d bytes, wrote %d", w, out.Len())
			}
			want, err := os.ReadFile(testdata("garden", filepath.FromSlash(local)))
			if err != nil {
				t.Fatal(err)
			}
			want = httrackAdditions.ReplaceAll(want, nil)
			if !bytes.Equal(out.Bytes(), want) {
				t.Errorf("rewritten %s:\n%s\nHTTrack:\n%s", local, out.Bytes(), want)
			}
		})
	}
}
