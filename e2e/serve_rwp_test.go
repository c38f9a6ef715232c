package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/arcport/arcport/lib/replay"
)

// TestServeWACZToReplayWebPage: ReplayWeb.page (the npm bundle, in
// headless Chromium) loads a WACZ by URL from waczpack serve's file route
// (/COLL/file/NAME.wacz), from another origin (so through CORS), reads
// it by ranges and replays its page.
func TestServeWACZToReplayWebPage(t *testing.T) {
	node, nodePath, rwp := wzReplayPeers(t)
	arc, err := os.ReadFile(sample("example.arc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	wacz := filepath.Join(t.TempDir(), "arc.wacz")
	if _, stderr, code := run(t, bin(t, "waczpack"), arc, "-o", wacz); code != 0 {
		t.Fatalf("create: exit %d: %s", code, stderr)
	}
	c, err := replay.Open(context.Background(), "w", wacz, replay.Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := replay.NewServer(c)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	methods := map[string]int{}
	ranges := map[string]bool{}
	serve := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		methods[r.Method]++
		if rg := r.Header.Get("Range"); rg != "" {
			ranges[rg] = true
		}
		mu.Unlock()
		s.ServeHTTP(w, r)
	}))
	defer serve.Close()
	source := serve.URL + c.FileURL()

	const target = "http://example.com/"
	mux := http.NewServeMux()
	mux.HandleFunc("/index.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html>
<html><head><meta charset="utf-8"><title>harness</title><script src="./ui.js"></script></head>
<body style="margin:0"><replay-web-page style="height:600px;display:block" source="%s" url="%s" replaybase="./replay/"></replay-web-page></body></html>
`, source, target)
	})
	files := http.FileServer(http.Dir(rwp))
	mux.Handle("/replay/", http.StripPrefix("/replay", files))
	mux.Handle("/", files)
	page := httptest.NewServer(mux) // another port: another origin
	defer page.Close()

	cmd := exec.Command(node, filepath.Join(repoRoot(), "e2e/replay/replay.cjs"), page.URL, target, "90000")
	cmd.Env = append(os.Environ(), "NODE_PATH="+nodePath)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Run(); err != nil {
		t.Fatalf("replay from %s failed: %v\n%s", source, err, se.String())
	}
	var res struct{ Title, Frame string }
	if err := json.Unmarshal(so.Bytes(), &res); err != nil {
		t.Fatalf("harness output %q: %v", so.String(), err)
	}
	if res.Title != "Example Domain" {
		t.Errorf("ReplayWeb.page shows %q, want %q", res.Title, "Example Domain")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(ranges) == 0 {
		t.Errorf("ReplayWeb.page made no Range request to serve")
	}
	t.Logf("replayed %s from %s in %s; requests to serve: %v, %d distinct ranges", target, source, res.Frame, methods, len(ranges))
}
