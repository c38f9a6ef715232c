package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/frontier/redistest"
	"github.com/arcport/arcport/lib/record"
)

// TestMirrorgetBrowserMaxBody: a body over --browser-max-body is fetched
// and recorded whole, and the page's request for it fails; one under it
// reaches the page.
func TestMirrorgetBrowserMaxBody(t *testing.T) {
	chromium := needCmd(t, "chromium", "chromium")
	big := bytes.Repeat([]byte("0123456789abcdef"), 300<<10/16) // 300 KiB
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, `<!doctype html><html><head><title>caps</title></head><body>
<p id="big">big pending</p><p id="small">small pending</p><script>
fetch('/big.txt').then(r => r.text()).then(t => { document.getElementById('big').textContent = 'big read ' + t.length; })
  .catch(() => { document.getElementById('big').textContent = 'big refused'; });
fetch('/small.txt').then(r => r.text()).then(t => { document.getElementById('small').textContent = 'small read ' + t.length; })
  .catch(() => { document.getElementById('small').textContent = 'small refused'; });
</script></body></html>`)
		case "/big.txt":
			w.Header().Set("Content-Type", "text/plain")
			w.Header().Set("Content-Length", strconv.Itoa(len(big)))
			w.Write(big)
		case "/small.txt":
			w.Header().Set("Content-Type", "text/plain")
			w.Write(big[:1000])
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "caps.warc.gz")
	_, stderr, code := run(t, bin(t, "mirrorget"), nil, "-v", "--browser", "--browser-path", chromium,
		"--browser-max-body", "100k", "--format", "warc", "-o", out, srv.URL+"/")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	bb, _, _ := readResponses(t, out, srv.URL)
	if b := bb["/big.txt"]; !bytes.HasSuffix(b, big) {
		t.Errorf("/big.txt record: %d bytes, not the whole %d-byte body", len(b), len(big))
	}
	_, texts := renderResources(t, out)
	var text string
	if rs := texts[srv.URL+"/"]; len(rs) == 1 {
		text = string(rs[0].body)
	}
	if !strings.Contains(text, "big refused") || !strings.Contains(text, "small read 1000") {
		t.Errorf("rendered text %q: want the big body refused to the page, the small one read", text)
	}
	if !strings.Contains(stderr, "(1 failed)") {
		t.Errorf("-v output does not count the refused request:\n%s", stderr)
	}
	t.Logf("--browser-max-body 100k: /big.txt (%d bytes) recorded whole, refused to the page: %q", len(big), text)
}

// TestMirrorgetBrowserWorkers: two workers with browsers on one Redis
// frontier capture the JS site once: every page is rendered by one worker
// only, and together they capture what one --browser crawl captures.
func TestMirrorgetBrowserWorkers(t *testing.T) {
	chromium := needCmd(t, "chromium", "chromium")
	srv := redistest.Start(t, redistest.Options{})
	site := newJSSite(t)
	mg := bin(t, "mirrorget")
	wd := t.TempDir()
	type worker struct {
		cmd    *exec.Cmd
		stderr bytes.Buffer
	}
	var ws []*worker
	for i := range 2 {
		w := &worker{}
		// one URL at a time each, so that both take pages
		w.cmd = exec.Command(mg, "-v", "-c", "1", "--browser", "--browser-path", chromium, "--browser-tabs", "1",
			"--frontier", "redis://"+srv.Addr+"/0", "--crawl-id", "js", "--worker", fmt.Sprintf("w%d", i),
			"--format", "warc", "--warc-dir", wd, site.URL+"/")
		w.cmd.Stderr = &w.stderr
		if err := w.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
	}
	rendered := map[string][]int{} // page -> the workers that rendered it
	for i, w := range ws {
		if err := w.cmd.Wait(); err != nil {
			t.Errorf("worker %d: %v: %s", i, err, w.stderr.String())
		}
		for _, line := range strings.Split(w.stderr.String(), "\n") {
			if u, ok := strings.CutPrefix(line, "rendered "); ok {
				if j := strings.Index(u, ": "); j > 0 {
					rendered[u[:j]] = append(rendered[u[:j]], i)
				}
			}
		}
	}
	files, _ := filepath.Glob(filepath.Join(wd, "*.warc.gz"))
	responses := map[string]int{} // URL -> response and revisit records
	full := map[string]int{}      // URL -> response records
	records, revisits := 0, []string{}
	for _, f := range files {
		for _, c := range readWARC(t, readFile(t, f)) {
			records++
			switch c.rec.Type() {
			case record.Response, record.Revisit:
				responses[strings.TrimPrefix(c.rec.TargetURI(), site.URL)]++
			}
			if c.rec.Type() == record.Response {
				full[strings.TrimPrefix(c.rec.TargetURI(), site.URL)]++
			}
			if c.rec.Type() == record.Revisit {
				revisits = append(revisits, strings.TrimPrefix(c.rec.TargetURI(), site.URL))
			}
		}
	}
	pages := []string{"/", "/about.html", "/item.html?id=1", "/item.html?id=2", "/item.html?id=3"}
	pageDups, dups := 0, 0
	for _, p := range pages {
		if n := len(rendered[site.URL+p]); n != 1 {
			t.Errorf("%s rendered by %d workers %v", p, n, rendered[site.URL+p])
		}
		if responses[p] != 1 {
			t.Errorf("%s: %d response records", p, responses[p])
			pageDups += max(responses[p]-1, 0)
		}
	}
	var again []string
	fullDups := 0
	for u, n := range responses {
		if n > 1 {
			dups += n - 1
			again = append(again, fmt.Sprintf("%s ×%d", u, n))
		}
		fullDups += max(full[u]-1, 0)
	}
	slices.Sort(again)
	served := map[string]bool{}
	for _, u := range site.log() {
		served[u] = true
	}
	captured := 0
	for u := range served {
		if responses[u] > 0 {
			captured++
		}
	}
	if captured < len(served) {
		t.Errorf("the workers captured %d of the %d URLs served", captured, len(served))
	}
	t.Logf("2 workers: %d WARC files, %d records; %d URLs served, %d captured; pages rendered %v; pages fetched twice: %d; URLs fetched more than once: %d %q (revisit records: %q; full responses beyond the first: %d)",
		len(files), records, len(served), captured, rendered, pageDups, dups, again, revisits, fullDups)
	if pageDups > 0 {
		t.Errorf("%d pages fetched twice", pageDups)
	}
}

// browserReplay replays the start page and an item page of the JS site
// from wacz in ReplayWeb.page (headless Chromium; the site must be stopped
// already): the start page scrolled to its end shows the 30 cards with
// their images, the item page its JSON-rendered text and title.
func browserReplay(t *testing.T, wacz, start, item string) {
	node, nodePath, rwp := wzReplayPeers(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/index.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html>
<html><head><meta charset="utf-8"><title>harness</title><script src="./ui.js"></script></head>
<body style="margin:0"><replay-web-page style="height:800px;display:block" source="/collection.wacz" url="%s" replaybase="./replay/"></replay-web-page></body></html>
`, html.EscapeString(r.URL.Query().Get("url")))
	})
	mux.HandleFunc("/collection.wacz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/wacz")
		http.ServeFile(w, r, wacz)
	})
	files := http.FileServer(http.Dir(rwp))
	mux.Handle("/replay/", http.StripPrefix("/replay", files))
	mux.Handle("/", files)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	cmd := exec.Command(node, filepath.Join(repoRoot(), "e2e/browser/rwp.cjs"), srv.URL, "120000", start, item)
	cmd.Env = append(os.Environ(), "NODE_PATH="+nodePath)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Run(); err != nil {
		t.Fatalf("replay failed: %v\n%s", err, se.String())
	}
	var res []struct {
		URL, Title, Text, Frame string
		Cards, Images           int
	}
	if err := json.Unmarshal(so.Bytes(), &res); err != nil || len(res) != 2 {
		t.Fatalf("harness output %q: %v", so.String(), err)
	}
	if r := res[0]; r.Cards != jsCards || r.Images != jsCards || !strings.Contains(r.Text, "Card 30 from JSON") {
		t.Errorf("replayed %s: %d cards, %d images shown (want %d), text %.200q", r.URL, r.Cards, r.Images, jsCards, r.Text)
	}
	if r := res[1]; !strings.Contains(r.Text, "Item 1 is described by JSON") || r.Title != "Item 1" {
		t.Errorf("replayed %s: title %q, text %.200q", r.URL, r.Title, r.Text)
	}
	t.Logf("ReplayWeb.page, offline: %s shows %d cards, %d images; %s shows %q (title %q)",
		res[0].URL, res[0].Cards, res[0].Images, res[1].URL, strings.TrimSpace(res[1].Text), res[1].Title)
}
