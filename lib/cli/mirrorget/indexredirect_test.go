package mirrorget

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIndexRedirect: a site served by http.FileServer answers /index.html
// with a redirect to /, and its pages link home as "index.html". The
// redirect makes index.html an alias of the start page; that must not take
// the start page's file away: the top index lists it and the home links
// of the other pages stay local.
func TestIndexRedirect(t *testing.T) {
	site := t.TempDir()
	os.WriteFile(filepath.Join(site, "index.html"), []byte(`<html><body><a href="about.html">About</a></body></html>`), 0o644)
	os.WriteFile(filepath.Join(site, "about.html"), []byte(`<html><body><a href="index.html">Home</a></body></html>`), 0o644)
	srv := httptest.NewServer(http.FileServer(http.Dir(site)))
	defer srv.Close()
	mg := buildMirrorget(t)
	dir := filepath.Join(t.TempDir(), "m")
	if _, stderr, code := runBin(t, mg, "-q", "-O", dir, srv.URL+"/"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	top, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	host := strings.ReplaceAll(strings.TrimPrefix(srv.URL, "http://"), ":", "_")
	if !strings.Contains(string(top), `href="`+host+`/index.html"`) {
		t.Errorf("top index does not list the start page:\n%s", top)
	}
	about, err := os.ReadFile(filepath.Join(dir, host, "about.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(about), `href="index.html"`) {
		t.Errorf("about.html's home link is not local:\n%s", about)
	}
}
