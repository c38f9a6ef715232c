package e2e

import (
	"archive/zip"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestStorageFlagFiles: the files that flags name are inputs like any
// other, so s3:// and http(s):// work there too: waczpack create --pages
// from s3:// and from an http:// URL, mirrorget --cookies from s3:// and
// --netrc from an http:// URL (versitygw on loopback, through the counting
// proxy). A missing one fails with exit 1 and one line naming the URL,
// without the password of a user:password@ in it.
func TestStorageFlagFiles(t *testing.T) {
	e := newS3(t, "coll")
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/pages.jsonl":
			io.WriteString(w, `{"url":"http://example.com/","title":"Pages from http"}`+"\n")
		case "/netrc":
			io.WriteString(w, "machine 127.0.0.1 login alice password s3cr3t-netrc\n")
		default:
			http.NotFound(w, r)
		}
	}))
	defer files.Close()
	e.put(t, "coll", "lists/pages.jsonl", []byte(`{"url":"http://example.com/","title":"Pages from s3"}`+"\n"))
	e.put(t, "coll", "lists/cookies.txt", []byte("# Netscape HTTP Cookie File\n127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\tfrom-s3\n"))

	t.Run("waczpack --pages", func(t *testing.T) {
		warc := filepath.Join(repoRoot(), "testdata/warc/example.warc.gz")
		for _, c := range []struct{ pages, title string }{
			{"s3://coll/lists/pages.jsonl", "Pages from s3"},
			{files.URL + "/pages.jsonl", "Pages from http"},
		} {
			out := filepath.Join(t.TempDir(), "site.wacz")
			e.proxy.Reset()
			if _, se, code := e.run(t, "waczpack", nil, "create", "-q", "--pages", c.pages, "-o", out, warc); code != 0 {
				t.Fatalf("--pages %s: exit %d: %s", c.pages, code, se)
			}
			zr, err := zip.OpenReader(out)
			if err != nil {
				t.Fatal(err)
			}
			var pages string
			for _, f := range zr.File {
				if f.Name == "pages/pages.jsonl" {
					r, _ := f.Open()
					b, _ := io.ReadAll(r)
					pages = string(b)
				}
			}
			zr.Close()
			if !strings.Contains(pages, `"title":"`+c.title+`"`) {
				t.Errorf("--pages %s: pages.jsonl is %q", c.pages, pages)
			}
			if strings.HasPrefix(c.pages, "s3://") && e.proxy.Stats().Gets != 1 {
				t.Errorf("--pages %s: %+v through the proxy", c.pages, e.proxy.Stats())
			}
		}
		// missing
		missing := strings.Replace(files.URL, "://", "://bob:hunter2-secret@", 1) + "/none.jsonl"
		for _, c := range []struct{ arg, named, why string }{
			{"s3://coll/lists/none.jsonl", "s3://coll/lists/none.jsonl", "not found"},
			{missing, files.URL + "/none.jsonl", "not found"},
		} {
			_, se, code := e.run(t, "waczpack", nil, "create", "-q", "--pages", c.arg, "-o", filepath.Join(t.TempDir(), "x.wacz"), warc)
			t.Logf("--pages %s: exit %d: %s", c.arg, code, strings.TrimSpace(se))
			if code != 1 || !strings.Contains(se, c.named) || !strings.Contains(se, c.why) || strings.Contains(se, "hunter2") || strings.Count(strings.TrimSpace(se), "\n") != 0 {
				t.Errorf("--pages %s: exit %d, stderr %q", c.arg, code, se)
			}
		}
	})

	t.Run("mirrorget --cookies --netrc", func(t *testing.T) {
		var mu sync.Mutex
		var cookies, users []string
		site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			if c, err := r.Cookie("session"); err == nil {
				cookies = append(cookies, c.Value)
			}
			if u, p, ok := r.BasicAuth(); ok && p == "s3cr3t-netrc" {
				users = append(users, u)
			}
			mu.Unlock()
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<html>hello</html>")
		}))
		defer site.Close()
		_, se, code := e.run(t, "mirrorget", nil, "-q", "--format", "warc", "-r", "0",
			"--cookies", "s3://coll/lists/cookies.txt", "--netrc", files.URL+"/netrc", site.URL+"/")
		if code != 0 {
			t.Fatalf("mirrorget: exit %d: %s", code, se)
		}
		mu.Lock()
		t.Logf("the site saw cookies %q and netrc logins %q", cookies, users)
		if len(cookies) == 0 || cookies[0] != "from-s3" || len(users) == 0 || users[0] != "alice" {
			t.Errorf("cookies %q, logins %q", cookies, users)
		}
		mu.Unlock()
		for _, args := range [][]string{
			{"--cookies", "s3://coll/lists/none.txt"},
			{"--netrc", strings.Replace(files.URL, "://", "://bob:hunter2-secret@", 1) + "/none"},
		} {
			_, se, code := e.run(t, "mirrorget", nil, append([]string{"-q", "--format", "warc"}, append(args, site.URL+"/")...)...)
			t.Logf("%s %s: exit %d: %s", args[0], args[1], code, strings.TrimSpace(se))
			named := strings.Replace(args[1], "bob:hunter2-secret@", "", 1)
			if code != 1 || !strings.Contains(se, named) || !strings.Contains(se, "not found") || strings.Contains(se, "hunter2") {
				t.Errorf("%s %s: exit %d, stderr %q", args[0], args[1], code, se)
			}
		}
	})
}
