package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// gardenServer serves the origin files of the bundled HTTrack fixture with
// the fixture's redirect, as the site HTTrack copied did.
func gardenServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/old-page", http.RedirectHandler("/new-page.html", http.StatusMovedPermanently))
	mux.Handle("/", http.FileServer(http.Dir(filepath.Join(repoRoot(), "testdata/htcache/garden-origin"))))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// packAndReplay pipes a stream into waczpack, validates the WACZ and returns
// the titles ReplayWeb.page shows for each url.
func packAndReplay(t *testing.T, stream []byte, urls ...string) []string {
	t.Helper()
	wacz := filepath.Join(t.TempDir(), "x.wacz")
	if _, stderr, code := run(t, bin(t, "waczpack"), stream, "-o", wacz); code != 0 {
		t.Fatalf("waczpack create: exit %d: %s", code, stderr)
	}
	if out, stderr, code := run(t, bin(t, "waczpack"), nil, "validate", wacz); code != 0 {
		t.Fatalf("validate: exit %d: %s%s", code, out, stderr)
	}
	var titles []string
	for _, u := range urls {
		titles = append(titles, wzReplayTitle(t, wacz, u))
	}
	return titles
}

// TestReplayHTCacheGarden migrates the bundled real HTTrack 3.49 mirror:
// htcache export | waczpack, then ReplayWeb.page replays its pages.
func TestReplayHTCacheGarden(t *testing.T) {
	wzReplayPeers(t)
	warc, stderr, code := run(t, bin(t, "htcache"), nil, "export", filepath.Join(repoRoot(), "testdata/htcache/garden"))
	if code != 0 {
		t.Fatalf("htcache export: exit %d: %s", code, stderr)
	}
	got := packAndReplay(t, warc, "http://127.0.0.1:8766/", "http://127.0.0.1:8766/news/2024.html")
	if got[0] != "Garden Club" || got[1] != "News 2024" {
		t.Errorf("ReplayWeb.page shows %q", got)
	}
}

// TestReplayHTTrackLive runs the real httrack on a loopback copy of the
// garden site, then htcache export | waczpack, and replays the start page.
func TestReplayHTTrackLive(t *testing.T) {
	needCmd(t, "httrack", "httrack")
	wzReplayPeers(t)
	srv := gardenServer(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "httrack", srv.URL+"/", "-O", dir, "-q", "-%v0", "-s0", "-c8", "-%c50", "-u0", "--disable-security-limits")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("httrack: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "hts-cache", "new.zip")); err != nil {
		t.Fatalf("httrack left no cache: %v", err)
	}
	warc, stderr, code := run(t, bin(t, "htcache"), nil, "export", dir)
	if code != 0 {
		t.Fatalf("htcache export: exit %d: %s", code, stderr)
	}
	if got := packAndReplay(t, warc, srv.URL+"/"); got[0] != "Garden Club" {
		t.Errorf("ReplayWeb.page shows %q, want Garden Club", got[0])
	}
}

// TestReplayMirrorget crawls the garden site with mirrorget (ARC on stdout),
// packs the stream and replays a page reached through a link.
func TestReplayMirrorget(t *testing.T) {
	wzReplayPeers(t)
	srv := gardenServer(t)
	arc, stderr, code := run(t, bin(t, "mirrorget"), nil, "-q", srv.URL+"/")
	if code != 0 {
		t.Fatalf("mirrorget: exit %d: %s", code, stderr)
	}
	got := packAndReplay(t, arc, srv.URL+"/", srv.URL+"/news/2024.html")
	if got[0] != "Garden Club" || got[1] != "News 2024" {
		t.Errorf("ReplayWeb.page shows %q", got)
	}
}
