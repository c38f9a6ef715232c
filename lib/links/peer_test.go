package links

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/internal/peertest"
)

// servePage serves page at /dir/index.html and a one-byte
// application/octet-stream body at every other path, recording the
// canonical URL of each request (robots.txt aside).
func servePage(t *testing.T, page []byte) (*httptest.Server, func() map[string]bool) {
	var mu sync.Mutex
	seen := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/robots.txt" {
			if abs, _, ok := Resolve(nil, "http://"+r.Host+r.URL.RequestURI()); ok {
				mu.Lock()
				seen[abs] = true
				mu.Unlock()
			}
		}
		if r.URL.Path == "/dir/index.html" {
			w.Header().Set("Content-Type", "text/html")
			w.Write(page)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write([]byte("x"))
	}))
	return srv, func() map[string]bool {
		mu.Lock()
		defer mu.Unlock()
		out := make(map[string]bool, len(seen))
		for k := range seen {
			out[k] = true
		}
		return out
	}
}

// peerFetches runs a peer crawler on the test page and returns the URLs the
// server saw it fetch.
func peerFetches(t *testing.T, page []byte, tool string, args func(start, dir string) []string) map[string]bool {
	t.Helper()
	bin := peertest.Need(t, tool, tool)
	srv, fetched := servePage(t, page)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	cmd := exec.CommandContext(ctx, bin, args(srv.URL+"/dir/index.html", dir)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil && ctx.Err() != nil {
		t.Fatalf("%s: %v\n%s", tool, err, out)
	}
	got := fetched()
	for k := range got {
		// the tool's own fetch of the start page
		if strings.HasSuffix(k, "/dir/index.html") {
			delete(got, k)
		}
	}
	return got
}

// TestFindsWhatPeersFind mirrors testdata/links/syntaxes.html with HTTrack
// (httrack -r2, whole host allowed) and wget (-r -l1 -p) from an httptest
// server, and checks that every same-host URL both of them fetched is among
// the links HTML extracts from the page (the issue's target: "finds every
// URL both find"), except the peer bugs listed in the test. What each finds
// alone is logged.
func TestFindsWhatPeersFind(t *testing.T) {
	if testing.Short() {
		t.Skip("runs httrack and wget")
	}
	page := readTestdata(t, "syntaxes.html")
	ht := peerFetches(t, page, "httrack", func(start, dir string) []string {
		host := strings.TrimPrefix(strings.TrimPrefix(start, "http://"), "")
		host = host[:strings.IndexByte(host, '/')]
		return []string{start, "-O", dir, "-r2", "-q", "-%v0", "-s0", "-c8", "-%c50", "-u0", "--disable-security-limits", "+" + host + "/*"}
	})
	wg := peerFetches(t, page, "wget", func(start, dir string) []string {
		return []string{"-q", "-r", "-l1", "-p", "-e", "robots=off", "-P", dir, start}
	})
	// our links, resolved against the same kind of server URL: compare by path
	var ours []Link
	if err := HTML(bytes.NewReader(page), mustURL(t, "http://127.0.0.1/dir/index.html"), func(l Link) error {
		ours = append(ours, l)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	pathOf := func(u string) string {
		i := strings.Index(u[len("http://"):], "/")
		return u[len("http://")+i:]
	}
	mine := map[string]bool{}
	for _, l := range ours {
		if strings.HasPrefix(l.URL, "http://127.0.0.1/") {
			mine[pathOf(l.URL)] = true
		}
	}
	paths := func(m map[string]bool) map[string]bool {
		out := map[string]bool{}
		for u := range m {
			out[pathOf(u)] = true
		}
		return out
	}
	hp, wp := paths(ht), paths(wg)
	var missed, onlyHT, onlyWget, onlyUs []string
	// peer bugs: URLs a browser never requests
	peerErrors := map[string]string{
		"/dir/'refresh.html'": `content="30; URL='refresh.html'": the quotes delimit the URL (HTML "shared declarative refresh steps")`,
	}
	for p := range hp {
		if wp[p] && !mine[p] && peerErrors[p] == "" {
			missed = append(missed, p)
		}
		if !mine[p] {
			onlyHT = append(onlyHT, p)
		}
	}
	for p := range wp {
		if !mine[p] {
			onlyWget = append(onlyWget, p)
		}
	}
	for p := range mine {
		if !hp[p] && !wp[p] {
			onlyUs = append(onlyUs, p)
		}
	}
	for _, s := range [][]string{missed, onlyHT, onlyWget, onlyUs} {
		sort.Strings(s)
	}
	t.Logf("httrack fetched %d, wget %d, we extract %d same-host URLs", len(hp), len(wp), len(mine))
	t.Logf("httrack only (not ours): %q", onlyHT)
	t.Logf("wget only (not ours): %q", onlyWget)
	t.Logf("ours only: %q", onlyUs)
	if len(missed) > 0 {
		t.Errorf("URLs both httrack and wget fetched that HTML misses: %q", missed)
	}
	if len(hp) < 30 || len(wp) < 30 {
		t.Errorf("peers fetched too little (httrack %d, wget %d): did they run?", len(hp), len(wp))
	}
}
