package htcache

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/internal/peertest"
)

// buildTool builds a command of this module into dir.
func buildTool(t *testing.T, dir, name string) string {
	t.Helper()
	out := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-o", out, "./cmd/"+name)
	cmd.Dir = filepath.Join("..", "..", "..")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", name, err, b)
	}
	return out
}

// TestHTTrackToWACZ: the real httrack mirrors a loopback site, then
// `htcache export DIR | waczpack create -o site.wacz` turns the mirror into a
// WACZ that waczpack validates and from which every page comes back as
// served, the redirect with its status.
func TestHTTrackToWACZ(t *testing.T) {
	peertest.Need(t, "httrack", "httrack")
	pages := map[string]string{
		"/":          `<html><body><a href="a.html">a</a> <a href="caf%C3%A9.html">café</a> <a href="moved">m</a> <img src="p.png"></body></html>`,
		"/a.html":    "<html><body>page a</body></html>",
		"/café.html": "<html><body>café ☕</body></html>",
		"/p.png":     "\x89PNG\r\n\x1a\nnot really a png but binary enough\x00\x01\x02",
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, "/a.html", http.StatusFound)
			return
		}
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if strings.HasSuffix(r.URL.Path, ".png") {
			w.Header().Set("Content-Type", "image/png")
		} else {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
		}
		w.Write([]byte(body))
	}))
	defer srv.Close()
	tmp := t.TempDir()
	mirror := filepath.Join(tmp, "mirror")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "httrack", srv.URL+"/", "-O", mirror, "-q", "-%v0", "-c4", "-%!", "-s0").CombinedOutput(); err != nil {
		t.Fatalf("httrack: %v\n%s", err, out)
	}
	htcache := buildTool(t, tmp, "htcache")
	waczpack := buildTool(t, tmp, "waczpack")
	wacz := filepath.Join(tmp, "site.wacz")
	pipe := exec.CommandContext(ctx, "sh", "-c", `"$1" export "$2" | "$3" create -o "$4"`, "sh", htcache, mirror, waczpack, wacz)
	if out, err := pipe.CombinedOutput(); err != nil {
		t.Fatalf("htcache export | waczpack create: %v\n%s", err, out)
	}
	if out, err := exec.Command(waczpack, "validate", wacz).CombinedOutput(); err != nil {
		t.Fatalf("waczpack validate: %v\n%s", err, out)
	}
	for path, body := range pages {
		u := srv.URL + path
		if path == "/café.html" {
			u = srv.URL + "/caf%C3%A9.html"
		}
		out, err := exec.Command(waczpack, "get", wacz, u).Output()
		if err != nil {
			t.Errorf("waczpack get %s: %v", u, err)
			continue
		}
		if !bytes.Equal(out, []byte(body)) {
			t.Errorf("%s: WACZ payload %q, served %q", u, out, body)
		}
	}
	ls, err := exec.Command(waczpack, "ls", "--json", wacz).Output()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(ls, []byte(`"url":"`+srv.URL+`/moved","mime":"text/html","status":"302"`)) {
		t.Errorf("redirect not in the WACZ index:\n%s", ls)
	}
	if fi, err := os.Stat(wacz); err != nil || fi.Size() == 0 {
		t.Errorf("wacz: %v", err)
	}
}
