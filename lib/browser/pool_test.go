package browser

import (
	"context"
	"net/http"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/arcport/arcport/lib/internal/peertest"
)

// TestPoolRecovers: a page whose browser is killed, or whose tab crashes,
// the first time is rendered again, in a new browser or a new tab; Close
// leaves no process of either browser.
func TestPoolRecovers(t *testing.T) {
	path := peertest.Need(t, "chromium", "chromium")
	s := newSite(t)
	p := NewPool(Options{Path: path, Width: width, Height: height}, 2)
	defer p.Close()
	var homes []string
	for _, fault := range []string{"kill", "crash"} {
		var once sync.Once
		f := newFetcher()
		f.hook = func(r *http.Request) {
			if r.URL.Path != "/item.js" {
				return
			}
			once.Do(func() {
				p.mu.Lock()
				b := p.b
				p.mu.Unlock()
				homes = append(homes, b.home)
				if fault == "kill" {
					b.proc.Signal(syscall.SIGKILL)
					return
				}
				for _, tb := range b.openTabs() {
					go chromedp.Call(tb.ctx, page.Crash, cdp.Empty{})
				}
			})
		}
		t0 := time.Now()
		pg, err := p.Render(context.Background(), s.URL+"/item.html?id=5", f.fetch, quick)
		if err != nil {
			t.Fatalf("%s: %v", fault, err)
		}
		if pg.Title != "Item 5" {
			t.Errorf("%s: title %q", fault, pg.Title)
		}
		t.Logf("%s: rendered again in %v", fault, time.Since(t0))
	}
	if n := p.Restarts(); n != 1 {
		t.Errorf("%d restarts, want 1", n)
	}
	p.Close()
	for _, h := range homes {
		noneLeft(t, h, nil)
		if _, err := os.Stat(h); !os.IsNotExist(err) {
			t.Errorf("%s left: %v", h, err)
		}
	}
	if _, err := p.Render(context.Background(), s.URL+"/", newFetcher().fetch, quick); err == nil {
		t.Error("Render after Close")
	}
}
