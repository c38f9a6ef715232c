// End-to-end tests of waczpack with the peers archivists use: a WARC written
// by wget --warc-file and an ARC file given on stdin are packed with the
// waczpack binary, validated, and opened in ReplayWeb.page (its ui.js and
// sw.js, served on loopback with Range support, in headless Chromium driven by
// playwright-core), which must replay the page and show its title.
package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

var (
	buildOnce sync.Once
	buildBin  string
	buildErr  error
)

// waczpackBin builds cmd/waczpack once per test run.
func waczpackBin(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "waczpack-e2e-")
		if err != nil {
			buildErr = err
			return
		}
		buildBin = filepath.Join(dir, "waczpack")
		cmd := exec.Command("go", "build", "-o", buildBin, "./cmd/waczpack")
		cmd.Dir = repoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildBin
}

// run runs waczpack and returns stdout, stderr and the exit status.
func run(t *testing.T, stdin []byte, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(waczpackBin(t), args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return so.String(), se.String(), code
}

// replayPeers returns the paths the ReplayWeb.page harness needs, skipping
// the test when a peer is missing.
func replayPeers(t *testing.T) (node, nodePath, rwp string) {
	t.Helper()
	root := repoRoot(t)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed (needed for the ReplayWeb.page harness)")
	}
	chromium := os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("chromium not installed at %s", chromium)
	}
	nodePath = filepath.Join(root, "scripts/npm/node_modules")
	if _, err := os.Stat(filepath.Join(nodePath, "playwright-core")); err != nil {
		t.Skip("npm playwright-core not installed (scripts/peers.sh)")
	}
	rwp = filepath.Join(root, "scripts/npm/rwp/package")
	for _, f := range []string{"ui.js", "sw.js"} {
		if _, err := os.Stat(filepath.Join(rwp, f)); err != nil {
			t.Skipf("ReplayWeb.page %s not unpacked in %s (scripts/peers.sh)", f, rwp)
		}
	}
	return node, nodePath, rwp
}

// replayTitle serves the WACZ with ReplayWeb.page on loopback and returns
// the title of target as replayed inside the replay iframe.
func replayTitle(t *testing.T, waczPath, target string) string {
	t.Helper()
	node, nodePath, rwp := replayPeers(t)
	var ranged sync.Map
	mux := http.NewServeMux()
	mux.HandleFunc("/index.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html>
<html><head><meta charset="utf-8"><title>harness</title><script src="./ui.js"></script></head>
<body style="margin:0"><replay-web-page style="height:600px;display:block" source="/collection.wacz" url="%s" replaybase="./replay/"></replay-web-page></body></html>
`, target)
	})
	mux.HandleFunc("/collection.wacz", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Range") != "" {
			ranged.Store(r.Header.Get("Range"), true)
		}
		w.Header().Set("Content-Type", "application/wacz")
		http.ServeFile(w, r, waczPath) // Range requests, Content-Length, Accept-Ranges
	})
	files := http.FileServer(http.Dir(rwp))
	mux.Handle("/replay/", http.StripPrefix("/replay", files))
	mux.Handle("/", files)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	cmd := exec.Command(node, filepath.Join(repoRoot(t), "e2e/replay/replay.cjs"), srv.URL, target, "90000")
	cmd.Env = append(os.Environ(), "NODE_PATH="+nodePath)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Run(); err != nil {
		t.Fatalf("replay of %s failed: %v\n%s", target, err, se.String())
	}
	var res struct{ Title, Frame string }
	if err := json.Unmarshal(so.Bytes(), &res); err != nil {
		t.Fatalf("harness output %q: %v", so.String(), err)
	}
	n := 0
	ranged.Range(func(any, any) bool { n++; return true })
	if n == 0 {
		t.Errorf("ReplayWeb.page made no Range request for the WACZ")
	}
	t.Logf("replayed %s in %s (%d distinct ranges read)", target, res.Frame, n)
	return res.Title
}

// siteServer serves testdata/wacz/site with one redirect, /moved.
func siteServer(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.Handle("/moved", http.RedirectHandler("/about.html", http.StatusMovedPermanently))
	mux.Handle("/", http.FileServer(http.Dir(filepath.Join(repoRoot(t), "testdata/wacz/site"))))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// wgetCrawl crawls the site with wget --warc-file and returns the WARC.
func wgetCrawl(t *testing.T, site string) string {
	t.Helper()
	wget, err := exec.LookPath("wget")
	if err != nil {
		t.Skip("wget not installed")
	}
	dir := t.TempDir()
	cmd := exec.Command(wget, "--recursive", "--level=2", "--page-requisites", "--no-verbose",
		"--no-host-directories", "--directory-prefix="+filepath.Join(dir, "mirror"),
		"--warc-file="+filepath.Join(dir, "crawl"), "--no-warc-keep-log", site+"/")
	if out, err := cmd.CombinedOutput(); err != nil {
		// wget exits 8 on a 404 (e.g. favicon); the WARC is still complete
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 8 {
			t.Fatalf("wget: %v\n%s", err, out)
		}
	}
	return filepath.Join(dir, "crawl.warc.gz")
}

func readPages(t *testing.T, wacz string) []map[string]any {
	t.Helper()
	out, _, code := run(t, nil, "ls", "--json", wacz)
	if code != 0 {
		t.Fatalf("ls failed")
	}
	_ = out
	cmd := exec.Command("unzip", "-p", wacz, "pages/pages.jsonl")
	b, err := cmd.Output()
	if err != nil {
		t.Skipf("unzip: %v", err)
	}
	var pages []map[string]any
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("pages.jsonl line %d: %v", i+1, err)
		}
		if i > 0 {
			pages = append(pages, m)
		}
	}
	return pages
}

func TestReplayWgetWARC(t *testing.T) {
	replayPeers(t)
	site := siteServer(t)
	warcPath := wgetCrawl(t, site.URL)
	wacz := filepath.Join(t.TempDir(), "crawl.wacz")
	_, stderr, code := run(t, nil, "create", "-o", wacz, "--frames", "--title", "Forking paths", "--url", site.URL+"/", warcPath)
	if code != 0 {
		t.Fatalf("create: exit %d: %s", code, stderr)
	}
	if out, stderr, code := run(t, nil, "validate", wacz); code != 0 {
		t.Fatalf("validate: exit %d: %s%s", code, out, stderr)
	}
	// The wget WARC is gzip per record: archive/ must hold it byte for byte.
	orig, _ := os.ReadFile(warcPath)
	copied, err := exec.Command("unzip", "-p", wacz, "archive/crawl.warc.gz").Output()
	if err == nil && !bytes.Equal(orig, copied) {
		t.Errorf("archive/crawl.warc.gz differs from wget's WARC (%d vs %d bytes)", len(copied), len(orig))
	}
	// pages: the seed first; about.html found; the redirect and the frame left out
	pages := readPages(t, wacz)
	var urls []string
	for _, p := range pages {
		urls = append(urls, fmt.Sprint(p["url"]))
	}
	want := []string{site.URL + "/", site.URL + "/about.html"}
	if strings.Join(urls, " ") != strings.Join(want, " ") {
		t.Errorf("pages %v, want %v", urls, want)
	}
	if len(pages) > 0 && pages[0]["title"] != "Forking Paths — Home" {
		t.Errorf("seed page title %q", pages[0]["title"])
	}

	for _, c := range []struct{ url, title string }{
		{site.URL + "/", "Forking Paths — Home"},
		{site.URL + "/about.html", "About the Garden"},
	} {
		if got := replayTitle(t, wacz, c.url); got != c.title {
			t.Errorf("ReplayWeb.page shows %q for %s, want %q", got, c.url, c.title)
		}
	}
}

func TestReplayARCStdin(t *testing.T) {
	replayPeers(t)
	arc, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata/wacz/example.arc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	wacz := filepath.Join(t.TempDir(), "arc.wacz")
	_, stderr, code := run(t, arc, "-o", wacz)
	if code != 0 {
		t.Fatalf("create from stdin: exit %d: %s", code, stderr)
	}
	if out, stderr, code := run(t, nil, "validate", wacz); code != 0 {
		t.Fatalf("validate: exit %d: %s%s", code, out, stderr)
	}
	if got := replayTitle(t, wacz, "http://example.com/"); got != "Example Domain" {
		t.Errorf("ReplayWeb.page shows %q, want %q", got, "Example Domain")
	}
}
