package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestZimCreateKiwix copies the garden site with mirrorget (a mirror
// folder and a WARC), writes a ZIM from each with zimdump create, checks
// both with zimcheck -A, serves them with kiwix-serve on loopback and, in
// headless Chromium, opens each main page and follows a link.
func TestZimCreateKiwix(t *testing.T) {
	zimcheck := needCmd(t, "zimcheck", "zim-tools")
	kiwix := needCmd(t, "kiwix-serve", "kiwix-tools")
	node := needCmd(t, "node", "nodejs")
	chromium := os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	if _, err := os.Stat(chromium); err != nil {
		needPeer(t, "chromium", "no "+chromium)
	}
	nodePath := filepath.Join(repoRoot(), "scripts/npm/node_modules")
	if _, err := os.Stat(filepath.Join(nodePath, "playwright-core")); err != nil {
		needPeer(t, "playwright-core", "npm playwright-core not in scripts/npm/node_modules")
	}

	srv := gardenServer(t)
	dir := t.TempDir()
	mirrorDir := filepath.Join(dir, "mirror")
	warcData, stderr, code := run(t, bin(t, "mirrorget"), nil, "-q", "-O", mirrorDir, srv.URL+"/")
	if code != 0 {
		t.Fatalf("mirrorget: exit %d: %s", code, stderr)
	}
	crawl := filepath.Join(dir, "crawl.warc.gz")
	if err := os.WriteFile(crawl, warcData, 0o644); err != nil {
		t.Fatal(err)
	}
	mirrorZIM := filepath.Join(dir, "mirror.zim")
	crawlZIM := filepath.Join(dir, "crawl.zim")
	for _, args := range [][]string{
		{"create", "-o", mirrorZIM, mirrorDir},
		{"create", "-o", crawlZIM, "--main-page", srv.URL + "/", crawl},
	} {
		if out, stderr, code := run(t, bin(t, "zimdump"), nil, args...); code != 0 {
			t.Fatalf("zimdump %v: exit %d: %s%s", args, code, out, stderr)
		}
	}
	for _, z := range []string{mirrorZIM, crawlZIM} {
		out, err := exec.Command(zimcheck, "-A", z).CombinedOutput()
		if err != nil || bytes.Contains(out, []byte("[ERROR]")) {
			t.Fatalf("zimcheck -A %s: %v\n%s", z, err, out)
		}
	}

	// kiwix-serve on a free loopback port, stopped at the end
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	var ksLog bytes.Buffer
	// --nosearchbar: no taskbar laid over the top of the page (it would
	// cover the first line of links)
	ks := exec.Command(kiwix, "--nosearchbar", "--address", "127.0.0.1", "--port", fmt.Sprint(port), mirrorZIM, crawlZIM)
	ks.Stdout, ks.Stderr = &ksLog, &ksLog
	if err := ks.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ks.Process.Kill(); ks.Wait() })
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	ready := false
	for range 100 {
		if resp, err := http.Get(base + "/catalog/v2/entries"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				ready = true
				break
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !ready {
		t.Fatalf("kiwix-serve did not answer on %s:\n%s", base, ksLog.String())
	}

	host := strings.ReplaceAll(strings.TrimPrefix(srv.URL, "http://"), ":", "_")
	for _, tc := range []struct {
		book, link, linkTitle string
	}{
		// the mirror's main page: mirrorget's top index.html lists no page
		// here (the crawl meets a redirect), so the site's own index.html
		{"mirror", "News", "News 2024"},
		// the crawl's main page is the start URL
		{"crawl", "News", "News 2024"},
	} {
		// kiwix-serve redirects /BOOK/ to the main page
		cmd := exec.Command(node, filepath.Join(repoRoot(), "e2e/zim/kiwix.cjs"), base+"/"+tc.book+"/", tc.link, "20000")
		cmd.Env = append(os.Environ(), "NODE_PATH="+nodePath, "CHROMIUM="+chromium)
		var so, se bytes.Buffer
		cmd.Stdout, cmd.Stderr = &so, &se
		if err := cmd.Run(); err != nil {
			page := ""
			if resp, err := http.Get(base + "/" + tc.book + "/"); err == nil {
				var b bytes.Buffer
				b.ReadFrom(resp.Body)
				resp.Body.Close()
				page = b.String()
			}
			t.Fatalf("%s: chromium: %v\n%s\nthe page:\n%s", tc.book, err, se.String(), page)
		}
		var res struct {
			Title, URL, LinkTitle, LinkURL string
			Images                         int
			External                       []string
		}
		if err := json.Unmarshal(so.Bytes(), &res); err != nil {
			t.Fatalf("%s: %q: %v", tc.book, so.String(), err)
		}
		t.Logf("%s: %+v", tc.book, res)
		if res.LinkTitle != tc.linkTitle || !strings.HasPrefix(res.LinkURL, base+"/"+tc.book+"/"+host+"/") {
			t.Errorf("%s: after clicking %q: %q at %s; want %q under /%s/%s/", tc.book, tc.link, res.LinkTitle, res.LinkURL, tc.linkTitle, tc.book, host)
		}
		if res.Title != "Garden Club" || res.Images != 1 {
			t.Errorf("%s: main page %q with %d images loaded; want Garden Club with its rose", tc.book, res.Title, res.Images)
		}
		if len(res.External) > 0 {
			t.Errorf("%s: requests left kiwix-serve: %v", tc.book, res.External)
		}
		// kiwix-serve's title suggestions (from the X/title/xapian index
		// zimdump create writes; libkiwix may list a match once per case
		// variant of the term it tries, hence the set), then, because the
		// ZIM has a full-text index, one "containing 'News'..." entry of
		// kind pattern that starts a full-text search
		resp, err := http.Get(base + "/suggest?content=" + tc.book + "&term=News")
		if err != nil {
			t.Fatal(err)
		}
		var sugg []struct{ Value, Path, Kind string }
		err = json.NewDecoder(resp.Body).Decode(&sugg)
		resp.Body.Close()
		got := map[string]string{}
		patterns := 0
		for _, s := range sugg {
			if s.Kind == "pattern" {
				patterns++
				continue
			}
			got[s.Value] = s.Path
		}
		if err != nil || got["News 2024"] != host+"/news/2024.html" || got["News 2025"] != host+"/news/2025.html" || len(got) != 2 || patterns != 1 {
			t.Errorf("%s: kiwix-serve suggestions for News: %v, %d full-text entries (%v); want the two News pages and one full-text entry", tc.book, got, patterns, err)
		}
	}
}
