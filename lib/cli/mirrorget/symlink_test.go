package mirrorget

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/crawl"
	"github.com/arcport/arcport/lib/internal/cliutil"
)

// TestMirrorRefusesSymlinks: a symbolic link planted in the -O folder, to
// a file (host/page.html, hts-cache/new.zip) or to a folder (host,
// hts-cache), is never
// written through: the file it points at keeps its bytes, nothing appears
// in the folder it points at, stderr names the refused path, the rest of
// the mirror is written and the exit status is 1.
func TestMirrorRefusesSymlinks(t *testing.T) {
	pages := map[string]string{
		"/index.html": `<a href="page.html">p</a> <a href="other.html">o</a>`,
		"/page.html":  `<a href="index.html">page</a>`,
		"/other.html": `<a href="index.html">other</a>`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(body))
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	host := strings.ReplaceAll(u.Host, ":", "_")
	for _, tc := range []struct {
		name    string
		link    string // planted link, relative to DIR
		toDir   bool   // pointing at the outside folder, else at its file
		refused string // path named on stderr
		written []string
	}{
		{"file", host + "/page.html", false, host + "/page.html",
			[]string{host + "/index.html", host + "/other.html", "hts-cache/new.zip", "index.html"}},
		{"host folder", host, true, host,
			[]string{"hts-cache/new.zip", "index.html"}},
		{"cache folder", "hts-cache", true, "hts-cache",
			[]string{host + "/index.html", host + "/page.html", host + "/other.html", "index.html"}},
		{"cache file", "hts-cache/new.zip", false, "hts-cache/new.zip",
			[]string{host + "/index.html", host + "/page.html", host + "/other.html", "index.html"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			dir := filepath.Join(tmp, "m")
			outside := filepath.Join(tmp, "outside")
			secret := filepath.Join(outside, "secret")
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, tc.link)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(outside, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(secret, []byte("keep me"), 0o644); err != nil {
				t.Fatal(err)
			}
			target := secret
			if tc.toDir {
				target = outside
			}
			if err := os.Symlink(target, filepath.Join(dir, tc.link)); err != nil {
				t.Fatal(err)
			}
			cfg := crawl.DefaultConfig()
			cfg.Seeds = []string{srv.URL + "/index.html"}
			cfg.Robots = false
			o := &Options{Crawl: cfg, Format: "warc", Output: filepath.Join(tmp, "x.warc.gz"), Mirror: dir}
			var stderr strings.Builder
			err := Run(context.Background(), o, nil, &stderr)
			rc := cliutil.Report("mirrorget", err, &stderr)
			t.Logf("stderr:\n%s", stderr.String())
			if rc != 1 {
				t.Errorf("exit status %d, want 1", rc)
			}
			if b, err := os.ReadFile(secret); err != nil || string(b) != "keep me" {
				t.Errorf("outside file: %q %v", b, err)
			}
			if ents, _ := os.ReadDir(outside); len(ents) != 1 {
				t.Errorf("outside folder holds %d files", len(ents))
			}
			if !strings.Contains(stderr.String(), tc.refused+": symbolic link") &&
				!strings.Contains(stderr.String(), tc.refused+" refused") {
				t.Errorf("stderr does not name %s:\n%s", tc.refused, stderr.String())
			}
			for _, w := range tc.written {
				if fi, err := os.Lstat(filepath.Join(dir, w)); err != nil || !fi.Mode().IsRegular() {
					t.Errorf("%s not written: %v", w, err)
				}
			}
			if fi, err := os.Lstat(filepath.Join(dir, tc.link)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the planted link is gone: %v", err)
			}
		})
	}
}
