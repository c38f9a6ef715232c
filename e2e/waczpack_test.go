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
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// wzReplayPeers returns the paths the ReplayWeb.page harness needs, skipping
// the test when a peer is missing.
func wzReplayPeers(t *testing.T) (node, nodePath, rwp string) {
	t.Helper()
	root := repoRoot()
	node = needCmd(t, "node", "nodejs")
	chromium := os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	if _, err := os.Stat(chromium); err != nil {
		needPeer(t, "chromium", "no "+chromium)
	}
	nodePath = filepath.Join(root, "scripts/npm/node_modules")
	if _, err := os.Stat(filepath.Join(nodePath, "playwright-core")); err != nil {
		needPeer(t, "playwright-core", "npm playwright-core not in scripts/npm/node_modules")
	}
	rwp = filepath.Join(root, "scripts/npm/rwp/package")
	for _, f := range []string{"ui.js", "sw.js"} {
		if _, err := os.Stat(filepath.Join(rwp, f)); err != nil {
			needPeer(t, "replaywebpage", fmt.Sprintf("ReplayWeb.page %s not unpacked in %s", f, rwp))
		}
	}
	return node, nodePath, rwp
}

// wzReplayTitle serves the WACZ with ReplayWeb.page on loopback and returns
// the title of target as replayed inside the replay iframe.
func wzReplayTitle(t *testing.T, waczPath, target string) string {
	t.Helper()
	node, nodePath, rwp := wzReplayPeers(t)
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

	cmd := exec.Command(node, filepath.Join(repoRoot(), "e2e/replay/replay.cjs"), srv.URL, target, "90000")
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

// wzSiteServer serves testdata/wacz/site with one redirect, /moved.
func wzSiteServer(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.Handle("/moved", http.RedirectHandler("/about.html", http.StatusMovedPermanently))
	mux.Handle("/", http.FileServer(http.Dir(filepath.Join(repoRoot(), "testdata/wacz/site"))))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// wzWgetCrawl crawls the site with wget --warc-file and returns the WARC.
func wzWgetCrawl(t *testing.T, site string) string {
	t.Helper()
	wget := needCmd(t, "wget", "wget")
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

func wzReadPages(t *testing.T, wacz string) []map[string]any {
	t.Helper()
	if _, _, code := run(t, bin(t, "waczpack"), nil, "ls", "--json", wacz); code != 0 {
		t.Fatalf("ls failed")
	}
	cmd := exec.Command("unzip", "-p", wacz, "pages/pages.jsonl")
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("unzip: %v", err)
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
	wzReplayPeers(t)
	site := wzSiteServer(t)
	warcPath := wzWgetCrawl(t, site.URL)
	wacz := filepath.Join(t.TempDir(), "crawl.wacz")
	_, stderr, code := run(t, bin(t, "waczpack"), nil, "create", "-o", wacz, "--frames", "--title", "Forking paths", "--url", site.URL+"/", warcPath)
	if code != 0 {
		t.Fatalf("create: exit %d: %s", code, stderr)
	}
	if out, stderr, code := run(t, bin(t, "waczpack"), nil, "validate", wacz); code != 0 {
		t.Fatalf("validate: exit %d: %s%s", code, out, stderr)
	}
	// The wget WARC is gzip per record: archive/ must hold it byte for byte.
	orig, _ := os.ReadFile(warcPath)
	copied, err := exec.Command("unzip", "-p", wacz, "archive/crawl.warc.gz").Output()
	if err == nil && !bytes.Equal(orig, copied) {
		t.Errorf("archive/crawl.warc.gz differs from wget's WARC (%d vs %d bytes)", len(copied), len(orig))
	}
	// pages: the seed first; about.html found; the redirect and the frame left out
	pages := wzReadPages(t, wacz)
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
		if got := wzReplayTitle(t, wacz, c.url); got != c.title {
			t.Errorf("ReplayWeb.page shows %q for %s, want %q", got, c.url, c.title)
		}
	}
}

func TestReplayARCStdin(t *testing.T) {
	wzReplayPeers(t)
	arc, err := os.ReadFile(sample("example.arc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	wacz := filepath.Join(t.TempDir(), "arc.wacz")
	_, stderr, code := run(t, bin(t, "waczpack"), arc, "-o", wacz)
	if code != 0 {
		t.Fatalf("create from stdin: exit %d: %s", code, stderr)
	}
	if out, stderr, code := run(t, bin(t, "waczpack"), nil, "validate", wacz); code != 0 {
		t.Fatalf("validate: exit %d: %s%s", code, out, stderr)
	}
	if got := wzReplayTitle(t, wacz, "http://example.com/"); got != "Example Domain" {
		t.Errorf("ReplayWeb.page shows %q, want %q", got, "Example Domain")
	}
}

// TestIndexMatchesWarcio: `waczpack index` prints the lines warcio.js
// `cdx-index` prints for the fixture WARCs (the ones warcio.js indexes
// without complaint).
func TestIndexMatchesWarcio(t *testing.T) {
	warcio := warcioCLI(t)
	for _, name := range []string{"example.warc.gz", "example.warc", "example-iana.org-chunked.warc", "example-resource.warc.gz",
		"example-space-in-target-uri.warc.gz", "example-wget-bad-target-uri.warc.gz", "post-test.warc.gz"} {
		path := sample(name)
		want, err := exec.Command(warcio, "cdx-index", path).Output()
		if err != nil {
			t.Fatalf("warcio cdx-index %s: %v", name, err)
		}
		got, stderr, code := run(t, bin(t, "waczpack"), nil, "index", path)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", name, code, stderr)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: waczpack index\n%s\nwarcio.js cdx-index\n%s", name, got, want)
		}
	}
}

// TestIndexInsideWACZMatchesWarcio: the index waczpack puts in a WACZ holds,
// line for line, what warcio.js cdx-index prints for the WARCs it holds
// (sorted), whatever the input was (a wget WARC copied as it is, an ARC
// converted).
func TestIndexInsideWACZMatchesWarcio(t *testing.T) {
	warcio := warcioCLI(t)
	for _, name := range []string{"example.warc.gz", "example.arc.gz", "example-bad-non-chunked.warc.gz", "post-test.warc.gz"} {
		dir := t.TempDir()
		wacz := filepath.Join(dir, "x.wacz")
		if _, se, code := run(t, bin(t, "waczpack"), nil, "-o", wacz, sample(name)); code != 0 {
			t.Fatalf("%s: %s", name, se)
		}
		if err := exec.Command("unzip", "-q", "-d", dir, wacz).Run(); err != nil {
			t.Fatalf("unzip: %v", err)
		}
		warcs, _ := filepath.Glob(filepath.Join(dir, "archive", "*.warc.gz"))
		var want []string
		for _, w := range warcs {
			out, err := exec.Command(warcio, "cdx-index", w).Output()
			if err != nil {
				t.Fatalf("warcio cdx-index %s: %v", w, err)
			}
			want = append(want, strings.Split(strings.TrimSpace(string(out)), "\n")...)
		}
		sort.Strings(want)
		gz, err := os.ReadFile(filepath.Join(dir, "indexes", "index.cdx.gz"))
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			t.Fatal(err)
		}
		plain, _ := io.ReadAll(zr)
		got := strings.Split(strings.TrimSpace(string(plain)), "\n")
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: index in the WACZ\n%s\nwarcio.js on its WARCs\n%s", name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// TestBadInputBinary: the built binary fails cleanly (exit 1, one line, no
// output file) on a truncated WARC, garbage on stdin and a non-zip given to
// validate.
func TestBadInputBinary(t *testing.T) {
	warc, _ := os.ReadFile(sample("example.warc.gz"))
	dir := t.TempDir()
	cut := filepath.Join(dir, "cut.warc.gz")
	os.WriteFile(cut, warc[:len(warc)-100], 0o644)
	out := filepath.Join(dir, "out.wacz")
	cases := []struct {
		name  string
		stdin []byte
		args  []string
		msg   string
	}{
		{"truncated", nil, []string{"-o", out, cut}, cut + ": record at offset 3207: truncated block: 322 of 493 bytes"},
		{"garbage", []byte("\x00\x01garbage\xff"), []string{"-o", out}, "waczpack: -: not a WARC or ARC file"},
		{"non-zip", nil, []string{"validate", cut}, "waczpack: " + cut + ": not a readable zip file"},
	}
	for _, c := range cases {
		_, se, code := run(t, bin(t, "waczpack"), c.stdin, c.args...)
		if code != 1 || !strings.HasPrefix(se, strings.SplitN(c.msg, cut, 2)[0]) || !strings.Contains(se, c.msg) || strings.Count(se, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q", c.name, code, se)
		}
		if files, _ := os.ReadDir(dir); len(files) != 1 {
			t.Errorf("%s: left behind %d files", c.name, len(files)-1)
		}
	}
}
