package zimdump

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/arcport/arcport/lib/internal/peertest"
)

// TestKiwixSearchInBrowser: Kiwix in a browser. kiwix-serve serves on
// loopback a ZIM that zimdump create --no-index wrote and zimdump index
// indexed; headless Chromium types in kiwix-serve's search box: a title's
// beginning lists the title among the suggestions (X/title/xapian), a word
// of a page's body and Enter give the full-text results (X/fulltext/xapian),
// and the result opens the page with its text. With ARCPORT_SCREENSHOT=FILE
// the results page (with the suggestions for "clim" open) is saved as a
// PNG: docs/img/kiwix-search.png.
func TestKiwixSearchInBrowser(t *testing.T) {
	chromium := peertest.Chromium(t)
	site := writeSite(t, indexSite)
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.zim")
	zimFile := filepath.Join(dir, "club.zim")
	if r := ours("create", "--no-index", "-o", plain, "--title", "Allotment club", site); r.rc != 0 {
		t.Fatalf("%+v", r)
	}
	if r := ours("index", plain, "-o", zimFile); r.rc != 0 {
		t.Fatalf("%+v", r)
	}
	base := kiwixServe(t, zimFile)

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(900, 300),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("hide-scrollbars", true),
	)
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer acancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, tcancel := context.WithTimeout(ctx, 90*time.Second)
	defer tcancel()

	box := chromedp.ID("kiwixsearchbox")
	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/club/index.html"),
		chromedp.WaitVisible(box),
		// suggestions from the title index as one types
		chromedp.SendKeys(box, "clim"),
		chromedp.WaitVisible(chromedp.CSS("ul.ui-autocomplete li")),
	)
	if err != nil {
		t.Fatalf("suggestions: %v", err)
	}
	suggestions, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("ul.ui-autocomplete")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(suggestions, "Climbing roses") {
		t.Errorf("suggestions for clim: %q", suggestions)
	}
	// a word of a page's body, Enter: the full-text results
	result := chromedp.CSS(`div.results a[href$="/club/roses.html"]`)
	err = chromedp.Do(ctx,
		chromedp.Navigate(base+"/club/index.html"),
		chromedp.WaitVisible(box),
		chromedp.SendKeys(box, "pergola"+kb.Enter),
		chromedp.WaitVisible(result),
	)
	if err != nil {
		t.Fatalf("search: %v", err)
	}
	resultsText, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
	if err != nil {
		t.Fatal(err)
	}
	// the suggestions again over the results, for the screenshot
	if err := chromedp.Do(ctx, chromedp.SendKeys(box, "clim"), chromedp.WaitVisible(chromedp.CSS("ul.ui-autocomplete li"))); err != nil {
		t.Fatalf("suggestions on the results page: %v", err)
	}
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	// the result opens the page
	err = chromedp.Do(ctx,
		chromedp.Click(result),
		chromedp.WaitVisible(chromedp.Search(`//p[contains(., "pergola carries")]`)),
	)
	if err != nil {
		t.Fatalf("opening the result: %v", err)
	}
	pageURL, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	pageText, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(resultsText, "Climbing roses") || !strings.Contains(resultsText, "pergola") {
		t.Errorf("results page: %q", resultsText)
	}
	if !strings.HasSuffix(pageURL, "/club/roses.html") || !strings.Contains(pageText, "The pergola carries three climbing roses.") {
		t.Errorf("result page %s: %q", pageURL, pageText)
	}
	if p := os.Getenv("ARCPORT_SCREENSHOT"); p != "" {
		if err := os.WriteFile(p, shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
