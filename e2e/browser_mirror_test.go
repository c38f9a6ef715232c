package e2e

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestMirrorgetBrowserMirror: -O DIR with --browser saves each rendered
// page as the browser left it (its DOM, links rewritten to the mirror's
// files) with the JSON answers its scripts fetched saved beside it, and
// an update of the mirror renders the pages again; with
// the site stopped, Chromium opening the copy from file:// shows the
// JSON-rendered text and the images loaded on scroll, and an item page its
// text and its script-set title.
func TestMirrorgetBrowserMirror(t *testing.T) {
	chromium := needCmd(t, "chromium", "chromium")
	site := newJSSite(t)
	dir := filepath.Join(t.TempDir(), "mirror")
	_, stderr, code := run(t, bin(t, "mirrorget"), nil, "-q", "--browser", "--browser-path", chromium,
		"--page-timeout", "60s", "-O", dir, site.URL+"/")
	if code != 0 {
		t.Fatalf("mirrorget -O --browser: exit %d: %s", code, stderr)
	}
	// an update of the mirror: the pages are fetched whole and rendered
	// again (their Last-Modified would otherwise get a 304, and the
	// mirror the page as sent)
	_, stderr, code = run(t, bin(t, "mirrorget"), nil, "-q", "--browser", "--browser-path", chromium,
		"--page-timeout", "60s", "-O", dir, site.URL+"/")
	if code != 0 {
		t.Fatalf("mirrorget -O --browser, update: exit %d: %s", code, stderr)
	}
	site.Close() // the copy is read offline
	site.other.Close()

	index, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`href="([^"]+)"`).FindSubmatch(index)
	if m == nil {
		t.Fatalf("index.html links to no page: %s", index)
	}
	start := filepath.Join(dir, string(m[1]))
	saved, err := os.ReadFile(start)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(saved), "Card 30 from JSON") || strings.Contains(string(saved), "<script") {
		t.Errorf("saved start page is not the rendered DOM without scripts: %.400q", saved)
	}
	// the JSON answers beside the page
	var jsonFiles []string
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && strings.Contains(p, "api") {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), `"title":"Card 30 from JSON"`) || strings.Contains(string(b), "described by JSON") {
				jsonFiles = append(jsonFiles, strings.TrimPrefix(p, dir+"/"))
			}
		}
		return nil
	})
	if len(jsonFiles) < 2 {
		t.Errorf("JSON answers saved: %q", jsonFiles)
	}

	ctx := offlineChromium(t, chromium)
	type view struct {
		Title  string
		Text   string
		Images int // <img> of the cards loaded from the copy
		Item   string
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+start), chromedp.Sleep(500*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	v, err := chromedp.Run(ctx, chromedp.Evaluate[view](`({
			Title: document.title,
			Text: document.body.innerText,
			Images: [...document.querySelectorAll('.card img')].filter(i => i.complete && i.naturalWidth > 0).length,
			Item: (document.querySelector('a[href*="item"]') || {}).href || ''
		})`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Card 1 from JSON", "Card 30 from JSON", "loaded 30", "brotli note decoded", "ready from worker"} {
		if !strings.Contains(v.Text, want) {
			t.Errorf("offline copy of the start page lacks %q: %.300q", want, v.Text)
		}
	}
	if v.Images != jsCards {
		t.Errorf("offline copy: %d card images shown, want %d", v.Images, jsCards)
	}
	if !strings.HasPrefix(v.Item, "file://") {
		t.Fatalf("the first item link %q is not local", v.Item)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(v.Item), chromedp.Sleep(300*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	item, err := chromedp.Run(ctx, chromedp.Evaluate[view](`({Title: document.title, Text: document.body.innerText, Images: 0, Item: ''})`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(item.Text, "Item 1 is described by JSON") || item.Title != "Item 1" {
		t.Errorf("offline item page %s: title %q, text %.200q", v.Item, item.Title, item.Text)
	}
	t.Logf("offline copy %s: %d card images, text %d chars; item page %q; JSON saved: %q", strings.TrimPrefix(start, dir+"/"), v.Images, len(v.Text), item.Title, jsonFiles)
}

// offlineChromium starts a headless Chromium of the test's whose proxy is
// a closed port (nothing leaves it but file:// reads and loopback), and
// returns a tab's context.
func offlineChromium(t *testing.T, chromium string) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.NoSandbox,
		chromedp.Flag("proxy-server", "http://127.0.0.1:9"),
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.Flag("allow-file-access-from-files", true),
		chromedp.WindowSize(1280, 800),
	)
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, tcancel := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { tcancel(); cancel(); acancel() })
	return ctx
}
