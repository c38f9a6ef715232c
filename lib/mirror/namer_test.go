package mirror

import (
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

type nameCase struct{ url, mime, want string }

func runNames(t *testing.T, n *Namer, cases []nameCase) {
	t.Helper()
	for _, c := range cases {
		got, err := n.Name(c.url, c.mime)
		if err != nil {
			t.Errorf("Name(%q): %v", c.url, err)
			continue
		}
		if got != c.want {
			t.Errorf("Name(%q, %q) = %q, want %q", c.url, c.mime, got, c.want)
		}
	}
}

// TestNamerChapterCollisions: the four URLs of chapter 4.4 that would all be
// index_1.html get four files, told apart case-insensitively.
func TestNamerChapterCollisions(t *testing.T) {
	runNames(t, NewNamer(nil), []nameCase{
		{"http://www.example.com/index_1.html", "text/html", "www.example.com/index_1.html"},
		{"http://www.example.com/INDEX_1.HTML", "text/html", "www.example.com/INDEX_1-2.HTML"},
		{"http://www.example.com/index:1.html", "text/html", "www.example.com/index_1-3.html"},
		{"http://www.example.com/index_1.cgi", "text/html", "www.example.com/index_1-4.html"},
		{"http://www.example.com/index_1.html", "image/gif", "www.example.com/index_1.html"}, // kept
	})
}

func TestNamerMIME(t *testing.T) {
	runNames(t, NewNamer(nil), []nameCase{
		{"http://h/", "text/html; charset=utf-8", "h/index.html"},
		{"http://h/dir/", "", "h/dir/index.html"},
		{"http://h/page.php", "text/html", "h/page.html"},
		{"http://h/page.htm", "text/html", "h/page.htm"},
		{"http://h/page.shtml", "text/html", "h/page-2.html"},
		{"http://h/article-1.884291", "text/html", "h/article-1.884291.html"},
		{"http://h/style.php", "text/css", "h/style.css"},
		{"http://h/logo", "image/png", "h/logo.png"},
		{"http://h/photo.jpeg", "image/jpeg", "h/photo.jpeg"},
		{"http://h/photo.jpg", "image/png", "h/photo.png"},
		{"http://h/data.json", "application/json", "h/data.json"},
		{"http://h/README", "text/plain", "h/README.txt"},
		{"http://h/app.js", "text/plain", "h/app.js"},
		{"http://h/report.pdf", "application/octet-stream", "h/report.pdf"},
		{"http://h/download", "application/octet-stream", "h/download"},
		{"http://h/thing.xyz", "application/x-unheard-of", "h/thing.xyz"},
		{"http://h/feed", "application/rss+xml", "h/feed.rss"},
		{"http://h/x.html", "application/xhtml+xml", "h/x.html"},
		{"http://h/Applet.class", "application/java-vm", "h/Applet.class"},
	})
}

func TestNamerHostsAndQueries(t *testing.T) {
	runNames(t, NewNamer(nil), []nameCase{
		{"http://H.Example:8080/", "text/html", "h.example_8080/index.html"},
		{"http://h.example:80/", "text/html", "h.example/index.html"},
		{"https://h.example/", "text/html", "h.example/index-2.html"},
		{"https://h.example:443/", "text/html", "h.example/index-2.html"}, // same URL
		{"http://[::1]:8000/", "text/html", "__1_8000/index.html"},
		{"http://127.0.0.1:8766/members.html?sort=name", "text/html", "127.0.0.1_8766/members099b.html"},
		{"http://127.0.0.1:8766/members.html?sort=age", "text/html", "127.0.0.1_8766/members" + md5hex4("sort=age") + ".html"},
		{"http://h.example/?p=1", "text/html", "h.example/index" + md5hex4("p=1") + ".html"},
		{"http://h.example/list.cgi?a=1&b=2", "text/html", "h.example/list" + md5hex4("a=1&b=2") + ".html"},
		{"http://h.example/img?id=5", "image/gif", "h.example/img" + md5hex4("id=5") + ".gif"},
	})
}

func TestNamerSafeNames(t *testing.T) {
	long := strings.Repeat("a", 300)
	runNames(t, NewNamer(nil), []nameCase{
		{`http://h/a*b?c`, "text/html", "h/a_b" + md5hex4("c") + ".html"},
		{`http://h/q"u<o>t|e.html`, "text/html", "h/q_u_o_t_e.html"},
		{`http://h/~user/x.html`, "text/html", "h/_user/x.html"},
		{`http://h/back%5Cslash.html`, "text/html", "h/back_slash.html"},
		{`http://h/sl%2Fash.html`, "text/html", "h/sl_ash.html"},
		{`http://h/ctl%01%7F.html`, "text/html", "h/ctl__.html"},
		{`http://h/con/aux.html`, "text/html", "h/con_/aux_.html"},
		{`http://h/NUL`, "text/html", "h/NUL_.html"},
		{`http://h/com1.txt`, "text/plain", "h/com1_.txt"},
		{`http://h/console.html`, "text/html", "h/console.html"},
		{`http://h/dots.../end. %20`, "text/html", "h/dots/end.html"},
		{`http://h/r%C3%A9sum%C3%A9.html`, "text/html", "h/résumé.html"},
		{`http://h/latin%E9.html`, "text/html", "h/latin%E9.html"},
		{`http://h/a//b///c.html`, "text/html", "h/a/b/c.html"},
		{`http://h/a/%2e%2e/%2E%2E/up.html`, "text/html", "h/up.html"},
		{`http://h/` + long + `.html`, "text/html", "h/" + strings.Repeat("a", 128-9-5) + "_" + md5hex8(long+".html") + ".html"},
	})
	// a path over MaxPath moves to host/_long
	n := NewNamer(&Options{MaxSegment: 40, MaxPath: 100})
	u := "http://h/" + strings.Repeat("d/", 60) + "deep.gif"
	got, err := n.Name(u, "image/gif")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got, "h/_long/") || !strings.HasSuffix(got, ".gif") || len(got) > 100 {
		t.Errorf("deep path named %q", got)
	}
}

// TestNamerDirFileConflicts: a file and a directory never share a name,
// whichever comes first; directories differing in case are one directory.
func TestNamerDirFileConflicts(t *testing.T) {
	runNames(t, NewNamer(nil), []nameCase{
		{"http://h/foo", "application/octet-stream", "h/foo"},
		{"http://h/foo/bar.gif", "image/gif", "h/foo-2/bar.gif"},
		{"http://h/foo/baz.gif", "image/gif", "h/foo-2/baz.gif"},
		{"http://h/a/b.gif", "image/gif", "h/a/b.gif"},
		{"http://h/a", "application/octet-stream", "h/a-2"},
		{"http://h/Dir/x.html", "text/html", "h/Dir/x.html"},
		{"http://h/dir/x.html", "text/html", "h/Dir/x-2.html"},
		{"http://h/DIR/y.html", "text/html", "h/Dir/y.html"},
	})
}

// TestNamerOnDisk names many colliding URLs and creates every file in a
// temporary directory: no path is a prefix-directory of a file, none repeats
// even ignoring case.
func TestNamerOnDisk(t *testing.T) {
	n := NewNamer(nil)
	var urls []string
	for _, p := range []string{"", "index.html", "INDEX.HTML", "index.cgi", "a", "a/", "a/index.html", "A/b", "a/b/",
		"a/b/c.gif", "con", "con/x", "x:y", "x_y", "x%3Ay", "%7E", "~", "..%2F..%2Fetc", "a%20", "a.", "%E9", "%C3%A9"} {
		for _, q := range []string{"", "?q=1", "?Q=1"} {
			urls = append(urls, "http://h.example/"+p+q)
		}
	}
	dir := t.TempDir()
	seen := map[string]string{}
	for _, u := range urls {
		for _, mt := range []string{"text/html", "application/octet-stream"} {
			p, err := n.Name(u, mt)
			if err != nil {
				t.Fatal(err)
			}
			key, _ := URLKey(u) // %7E and ~ are one URL
			if other, ok := seen[strings.ToLower(p)]; ok && other != key {
				t.Fatalf("%s and %s both named %q (ignoring case)", u, other, p)
			}
			seen[strings.ToLower(p)] = key
			full := filepath.Join(dir, filepath.FromSlash(p))
			if !strings.HasPrefix(full, dir+string(filepath.Separator)) {
				t.Fatalf("%s: %q escapes the mirror", u, p)
			}
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatalf("%s -> %s: %v", u, p, err)
			}
			if err := os.WriteFile(full, []byte(key), 0o644); err != nil {
				t.Fatalf("%s -> %s: %v", u, p, err)
			}
		}
	}
	for p, u := range seen {
		_ = p
		got, ok := n.Lookup(u)
		if !ok {
			t.Fatalf("%s not found", u)
		}
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(got)))
		if err != nil || string(b) != u {
			t.Errorf("%s: file %s holds %q, %v", u, got, b, err)
		}
	}
}

func TestNamerSeedAndAlias(t *testing.T) {
	n := NewNamer(nil)
	for _, s := range [][2]string{
		{"http://h/", "h/index.html"},
		{"http://h/index.html", "h/index-2.html"},
		{"http://h/old.cgi", "h/Old.html"},
	} {
		if err := n.Seed(s[0], s[1]); err != nil {
			t.Fatal(err)
		}
	}
	runNames(t, n, []nameCase{
		{"http://h/index.html", "text/html", "h/index-2.html"},
		{"http://h/INDEX.HTML", "text/html", "h/INDEX-3.HTML"},
		{"http://h/old.html", "text/html", "h/old-2.html"},
		{"http://h/index-2.html", "text/html", "h/index-2-2.html"},
	})
	for _, tc := range []struct {
		url, path string
		conflict  bool
	}{
		{"http://h/", "h/index.html", false}, // same again: fine
		{"http://h/", "h/other.html", true},
		{"http://h/x", "H/INDEX.HTML", true},
		{"http://h/y", "h", true},              // a directory
		{"http://h/z", "h/index.html/z", true}, // under a file
		{"http://h/w", "../w", false},
		{"http://h/w", "/abs", false},
		{"http://h/w", `h\w`, false},
		{"mailto:a@b", "h/m", false},
	} {
		err := n.Seed(tc.url, tc.path)
		switch {
		case tc.url == "http://h/" && tc.path == "h/index.html":
			if err != nil {
				t.Errorf("Seed(%q, %q): %v", tc.url, tc.path, err)
			}
		case err == nil:
			t.Errorf("Seed(%q, %q) succeeded", tc.url, tc.path)
		case errors.Is(err, ErrConflict) != tc.conflict:
			t.Errorf("Seed(%q, %q): %v (conflict %v)", tc.url, tc.path, err, tc.conflict)
		}
	}
	if err := n.Alias("http://h/moved", "http://h/old.cgi"); err != nil {
		t.Fatal(err)
	}
	if err := n.Alias("http://h/moved-twice", "http://h/moved"); err != nil {
		t.Fatal(err)
	}
	if p, ok := n.Lookup("http://h/moved-twice#frag"); !ok || p != "h/Old.html" {
		t.Errorf("Lookup through aliases = %q %v", p, ok)
	}
	if _, ok := n.Lookup("http://h/never"); ok {
		t.Errorf("Lookup of an unnamed URL succeeded")
	}
	if got := len(n.Entries()); got != 6 || n.Len() != 6 {
		t.Errorf("%d entries, want 6", got)
	}
}

// TestNamerConcurrent names the same URLs from many goroutines: each URL gets
// one path and no two URLs share one.
func TestNamerConcurrent(t *testing.T) {
	n := NewNamer(nil)
	var wg sync.WaitGroup
	results := make([]map[string]string, 8)
	for g := range results {
		results[g] = map[string]string{}
		wg.Add(1)
		go func(m map[string]string) {
			defer wg.Done()
			for i := range 300 {
				u := fmt.Sprintf("http://h/p%d/INDEX.html?x=%d", i%7, i%50)
				if i%2 == 0 {
					u = strings.ToLower(u)
				}
				p, err := n.Name(u, "text/html")
				if err != nil {
					t.Error(err)
					return
				}
				m[u] = p
			}
		}(results[g])
	}
	wg.Wait()
	owner := map[string]string{}
	for _, m := range results {
		for u, p := range m {
			if results[0][u] != p {
				t.Fatalf("%s named %q and %q", u, results[0][u], p)
			}
			if o, ok := owner[strings.ToLower(p)]; ok && o != u {
				t.Fatalf("%q given to %s and %s", p, o, u)
			}
			owner[strings.ToLower(p)] = u
		}
	}
}

func TestRelURL(t *testing.T) {
	for _, tc := range []struct{ from, to, want string }{
		{"h/index.html", "h/style.css", "style.css"},
		{"h/news/2024.html", "h/index-2.html", "../index-2.html"},
		{"h/a/b/c.html", "h/a/x/y.gif", "../x/y.gif"},
		{"h/index.html", "h/a/b/c.gif", "a/b/c.gif"},
		{"h/a/index.html", "g_8080/index.html", "../../g_8080/index.html"},
		{"h/a/index.html", "h/a/index.html", "index.html"},
		{"h/index.html", "h/résumé.html", "r%c3%a9sum%c3%a9.html"},
		{"h/index.html", "h/a b#c%d?e.html", "a%20b%23c%25d%3fe.html"},
		{"h/index.html", "h/x_y:z.html", "x_y%3az.html"},
		{"top.html", "h/x.html", "h/x.html"},
		{"h/Dir/a.html", "h/dir/b.html", "../dir/b.html"},
	} {
		if got := RelURL(tc.from, tc.to); got != tc.want {
			t.Errorf("RelURL(%q, %q) = %q, want %q", tc.from, tc.to, got, tc.want)
		}
	}
}

func TestFileName(t *testing.T) {
	for _, tc := range []struct{ name, ct, want string }{
		{"index.cgi", "text/html", "index.html"},
		{"x.HTM", "text/html", "x.HTM"},
		{"x.PHP", "text/html", "x.html"},
		{"v1.2", "text/html", "v1.2.html"},
		{"pic.gif", "image/GIF", "pic.gif"},
		{"pic.gif", "image/png", "pic.png"},
		{".htaccess", "text/plain", ".htaccess.txt"},
		{"noext", "", "noext"},
		{"x.bin", "application/octet-stream; charset=binary", "x.bin"},
		{"x.svg", "image/svg+xml", "x.svg"},
		{"x", "bogus type", "x"},
	} {
		if got := FileName(tc.name, tc.ct); got != tc.want {
			t.Errorf("FileName(%q, %q) = %q, want %q", tc.name, tc.ct, got, tc.want)
		}
	}
}

func md5hex4(q string) string { s := md5.Sum([]byte(q)); return hex.EncodeToString(s[:2]) }
func md5hex8(q string) string { s := md5.Sum([]byte(q)); return hex.EncodeToString(s[:4]) }
