package browser

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/arcport/arcport/lib/internal/peertest"
)

const width, height = 800, 600

func start(t testing.TB) *Browser {
	t.Helper()
	path := peertest.Need(t, "chromium", "chromium")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b, err := Start(ctx, Options{Path: path, Width: width, Height: height})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

var quick = PageOptions{Timeout: 60 * time.Second, Idle: 500 * time.Millisecond}

// TestRenderJSSite renders a site built by JavaScript and checks that every
// request went through the fetch function and that the page is whole.
func TestRenderJSSite(t *testing.T) {
	b := start(t)
	s := newSite(t)
	f := newFetcher()
	p, err := b.Render(context.Background(), s.URL+"/", f.fetch, quick)
	if err != nil {
		t.Fatal(err)
	}
	host := strings.TrimPrefix(s.URL, "http://")
	other := strings.TrimPrefix(s.otherURL(), "http://")
	got, served := f.log(), s.log()
	t.Logf("%d requests through fetch, %d served, %d scroll steps, %d frames, %d links", len(got), len(served), p.Scrolls, len(p.Frames), len(p.Links))

	// Every request the server saw came through fetch, and nothing else:
	// the browser has no way to the network of its own. The server sees
	// 127.0.0.1 for both origins, the fetch function the name asked for.
	norm := func(l []string) []string {
		l = slices.Clone(l)
		for i := range l {
			l[i] = strings.Replace(l[i], "localhost:", "127.0.0.1:", 1)
		}
		slices.Sort(l)
		return l
	}
	if !slices.Equal(norm(got), norm(served)) {
		t.Errorf("fetched != served:\nfetched %q\nserved  %q", norm(got), norm(served))
	}
	if p.Requests != len(got) {
		t.Errorf("Page.Requests = %d, fetch called %d times", p.Requests, len(got))
	}
	want := []string{host + "/", host + "/app.js", host + "/api/v1/items?n=30", host + "/worker.js",
		host + "/api/v1/status", host + "/logo", host + "/img/logo.png", other + "/frame.html"}
	for i := 1; i <= cards; i++ {
		want = append(want, fmt.Sprintf("%s/img/%d.png", host, i))
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("%s not fetched", w)
		}
	}
	if slices.Contains(got, host+"/popup.html") {
		t.Errorf("the pop-up was opened")
	}
	if !slices.Equal(f.gzip, []string{"/app.js"}) {
		t.Errorf("gzip-encoded answers: %q, want [/app.js]", f.gzip)
	}
	if p.Failed != 0 {
		t.Errorf("%d requests failed", p.Failed)
	}

	// The DOM holds what JSON and the worker made.
	if p.URL != s.URL+"/" || p.Title != "Shop" {
		t.Errorf("URL %q title %q", p.URL, p.Title)
	}
	main := p.Frames[0].HTML
	for _, w := range []string{"<!DOCTYPE html>", "<h2>Card 1 from JSON</h2>", "<h2>Card 30 from JSON</h2>", `src="/img/30.png"`, "ready from worker"} {
		if !strings.Contains(main, w) {
			t.Errorf("rendered DOM lacks %q", w)
		}
	}
	if !strings.Contains(p.Text, "Card 17 from JSON") || strings.Contains(p.Text, "<h2>") {
		t.Errorf("text: %.200q", p.Text)
	}
	if len(p.Frames) != 2 || p.Frames[1].URL != s.otherURL()+"/frame.html" || !strings.Contains(p.Frames[1].HTML, "in the frame") {
		t.Errorf("frames: %d, %+v", len(p.Frames), p.Frames[1:])
	}

	// Links from every frame, the pop-up as a link.
	links := map[string]string{}
	for _, l := range p.Links {
		links[l.URL] = l.Tag
	}
	wantLinks := map[string]string{
		s.URL + "/about.html":             "a",
		s.URL + "/item.html?id=1":         "a",
		s.URL + "/item.html?id=30":        "a",
		s.otherURL() + "/frame.html":      "iframe",
		s.otherURL() + "/from-frame.html": "a",
		s.URL + "/popup.html":             "popup",
	}
	for u, tag := range wantLinks {
		if links[u] != tag {
			t.Errorf("link %s: tag %q, want %q", u, links[u], tag)
		}
	}
	if n := len(p.Links); n != cards+4 {
		t.Errorf("%d links, want %d: %+v", n, cards+4, p.Links)
	}

	// A screenshot of the viewport.
	img, err := png.Decode(bytes.NewReader(p.Screenshot))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if r := img.Bounds(); r.Dx() != width || r.Dy() != height {
		t.Errorf("screenshot %v, want %dx%d", r, width, height)
	}

	// An item page rendered from JSON, in the same browser.
	f2 := newFetcher()
	p2, err := b.Render(context.Background(), s.URL+"/item.html?id=7", f2.fetch, quick)
	if err != nil {
		t.Fatal(err)
	}
	if p2.Title != "Item 7" || !strings.Contains(p2.Frames[0].HTML, "<p>Item 7 is described by JSON</p>") {
		t.Errorf("item page: title %q, DOM %q", p2.Title, p2.Frames[0].HTML)
	}
	if g := f2.log(); !slices.Contains(g, host+"/api/v1/item/7") {
		t.Errorf("item page fetched %q", g)
	}
}

// TestRenderTwoTabs renders two pages at once: each request goes to the
// fetch function of its own page.
// TestRenderVideoRange: Chromium reads a video by Range requests; the
// fetch function is asked with the Range field (the caller decides: a
// crawler fetches the resource whole and answers 200 with all of it), and
// the page takes that answer.
func TestRenderVideoRange(t *testing.T) {
	b := start(t)
	s := newSite(t)
	f := newFetcher()
	var mu sync.Mutex
	var ranges []string
	f.hook = func(req *http.Request) {
		if rg := req.Header.Get("Range"); rg != "" {
			mu.Lock()
			ranges = append(ranges, req.URL.Path+" "+rg)
			mu.Unlock()
		}
		req.Header.Del("Range") // fetched whole, as mirrorget fetches it
	}
	p, err := b.Render(context.Background(), s.URL+"/video.html", f.fetch, quick)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("requests %q; Range fields %q; %d failed", f.log(), ranges, p.Failed)
	if !slices.ContainsFunc(ranges, func(r string) bool { return strings.HasPrefix(r, "/media/clip.webm bytes=") }) {
		t.Errorf("the video was not asked for by range: %q", ranges)
	}
	if p.Failed != 0 {
		t.Errorf("%d requests failed in the page", p.Failed)
	}
}

func TestRenderTwoTabs(t *testing.T) {
	b := start(t)
	s := newSite(t)
	type out struct {
		f   *fetcher
		err error
	}
	res := make(chan out, 2)
	for _, id := range []string{"3", "4"} {
		go func() {
			f := newFetcher()
			_, err := b.Render(context.Background(), s.URL+"/item.html?id="+id, f.fetch, quick)
			res <- out{f, err}
		}()
	}
	for range 2 {
		o := <-res
		if o.err != nil {
			t.Fatal(o.err)
		}
		got := o.f.log()
		var id string
		for _, g := range got {
			if after, ok := strings.CutPrefix(g, strings.TrimPrefix(s.URL, "http://")+"/api/v1/item/"); ok {
				if id != "" {
					t.Errorf("two items in one page: %q", got)
				}
				id = after
			}
		}
		if id == "" || !slices.Contains(got, strings.TrimPrefix(s.URL, "http://")+"/item.html?id="+id) {
			t.Errorf("a page's requests went elsewhere: %q", got)
		}
	}
}

// TestRenderDialogs: alert and confirm are dismissed and the page goes on.
func TestRenderDialogs(t *testing.T) {
	b := start(t)
	s := newSite(t)
	p, err := b.Render(context.Background(), s.URL+"/dialogs.html", newFetcher().fetch, quick)
	if err != nil {
		t.Fatal(err)
	}
	if p.Dialogs != 2 || p.Title != "no" || !strings.Contains(p.Text, "after") {
		t.Errorf("dialogs %d, title %q, text %q", p.Dialogs, p.Title, p.Text)
	}
}

// TestRenderPostAndCookies: a script's POST reaches fetch with its body
// (300 KB), and a cookie set by a script is in the requests' Cookie field.
func TestRenderPostAndCookies(t *testing.T) {
	b := start(t)
	s := newSite(t)
	f := newFetcher()
	var mu sync.Mutex
	var post *http.Request
	f.hook = func(r *http.Request) {
		if r.URL.Path == "/api/echo" {
			mu.Lock()
			post = r
			mu.Unlock()
		}
	}
	p, err := b.Render(context.Background(), s.URL+"/post.html", f.fetch, quick)
	if err != nil {
		t.Fatal(err)
	}
	if want := `POST 300000 bytes, cookie "fromjs=yes"`; p.Text != want {
		t.Errorf("text %q, want %q", p.Text, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if post == nil || post.Method != "POST" || post.Header.Get("Content-Type") != "text/plain" || post.Header.Get("Referer") != s.URL+"/post.html" {
		t.Errorf("request: %+v", post)
	}
}

// TestRenderTooLarge: a DOM past MaxDOM is one line, and not read.
func TestRenderTooLarge(t *testing.T) {
	b := start(t)
	s := newSite(t)
	opts := quick
	opts.MaxDOM = 1 << 20
	_, err := b.Render(context.Background(), s.URL+"/big.html", newFetcher().fetch, opts)
	if !errors.Is(err, ErrTooLarge) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err = %v, want one line wrapping ErrTooLarge", err)
	}
	t.Log(err)
	opts.MaxDOM = 8 << 20
	p, err := b.Render(context.Background(), s.URL+"/big.html", newFetcher().fetch, opts)
	if err != nil || len(p.Frames[0].HTML) < 2<<20 {
		t.Fatalf("with MaxDOM 8 MiB: %v", err)
	}
}

// TestRenderHang: a page that never yields ends with its timeout, in one
// line, and the browser renders the next page.
func TestRenderHang(t *testing.T) {
	b := start(t)
	s := newSite(t)
	t0 := time.Now()
	_, err := b.Render(context.Background(), s.URL+"/hang.html", newFetcher().fetch, PageOptions{Timeout: 5 * time.Second, Idle: 500 * time.Millisecond})
	t.Logf("%v after %v", err, time.Since(t0))
	if !errors.Is(err, ErrTimeout) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err = %v, want one line wrapping ErrTimeout", err)
	}
	if time.Since(t0) > 20*time.Second {
		t.Errorf("took %v", time.Since(t0))
	}
	if _, err := b.Render(context.Background(), s.URL+"/item.html?id=1", newFetcher().fetch, quick); err != nil {
		t.Errorf("after a hung tab: %v", err)
	}
}

// TestRenderCrash: a tab whose renderer crashes is reported in one line, and
// the browser renders the next page.
func TestRenderCrash(t *testing.T) {
	b := start(t)
	s := newSite(t)
	f := newFetcher()
	f.hook = func(r *http.Request) {
		if r.URL.Path == "/slow" {
			for _, tb := range b.openTabs() {
				go chromedp.Call(tb.ctx, page.Crash, cdp.Empty{})
			}
		}
	}
	_, err := b.Render(context.Background(), s.URL+"/wait.html", f.fetch, quick)
	if !errors.Is(err, ErrCrashed) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err = %v, want one line wrapping ErrCrashed", err)
	}
	t.Log(err)
	if _, err := b.Render(context.Background(), s.URL+"/item.html?id=1", newFetcher().fetch, quick); err != nil {
		t.Errorf("after a crashed tab: %v", err)
	}
}

// TestKillChromium kills the browser process in the middle of a page: the
// page ends at once with one line, and Close leaves no process behind.
func TestKillChromium(t *testing.T) {
	b := start(t)
	s := newSite(t)
	procs := processesUsing(b.home)
	f := newFetcher()
	f.hook = func(r *http.Request) {
		if r.URL.Path == "/slow" {
			procs = processesUsing(b.home)
			b.proc.Signal(syscall.SIGKILL)
		}
	}
	t0 := time.Now()
	_, err := b.Render(context.Background(), s.URL+"/wait.html", f.fetch, quick)
	t.Logf("%v after %v; %d processes before", err, time.Since(t0), len(procs))
	if !errors.Is(err, ErrGone) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err = %v, want one line wrapping ErrGone", err)
	}
	if time.Since(t0) > 20*time.Second {
		t.Errorf("took %v", time.Since(t0))
	}
	b.Close()
	noneLeft(t, b.home, procs)
	if _, err := b.Render(context.Background(), s.URL+"/", f.fetch, quick); !errors.Is(err, ErrGone) {
		t.Errorf("Render after Close: %v", err)
	}
}

// TestCloseKillsAll: Close ends Chromium and every process it started.
func TestCloseKillsAll(t *testing.T) {
	b := start(t)
	s := newSite(t)
	if _, err := b.Render(context.Background(), s.URL+"/item.html?id=2", newFetcher().fetch, quick); err != nil {
		t.Fatal(err)
	}
	procs := processesUsing(b.home)
	if len(procs) < 2 || !slices.Contains(procs, b.proc.Pid) {
		t.Fatalf("processes of the browser: %v (main %d)", procs, b.proc.Pid)
	}
	b.Close()
	noneLeft(t, b.home, procs)
	if _, err := os.Stat(b.home); !os.IsNotExist(err) {
		t.Errorf("profile %s left: %v", b.home, err)
	}
}

// noneLeft checks that none of procs runs any more, zombies aside (a
// container's init may be slow to reap them), and that nothing uses the
// profile directory.
func noneLeft(t *testing.T, dir string, procs []int) {
	t.Helper()
	if dir == "" {
		t.Fatal("no profile directory")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		var alive []int
		for _, pid := range procs {
			stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			if err == nil && !isZombie(stat) {
				alive = append(alive, pid)
			}
		}
		left := processesUsing(dir)
		if len(alive) == 0 && len(left) == 0 {
			t.Logf("%d processes ended", len(procs))
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("left running: %v of %v; using the profile: %v", alive, procs, left)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// isZombie reads the state in /proc/PID/stat: "pid (comm) S ...".
func isZombie(stat []byte) bool {
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}

func (b *Browser) openTabs() []*tab {
	b.mu.Lock()
	defer b.mu.Unlock()
	var ts []*tab
	for _, t := range b.tabs {
		ts = append(ts, t)
	}
	return ts
}

// TestNoNetworkOfItsOwn: with interception off, Chromium reaches no server:
// its proxy answers nothing, for loopback too. So a request the Fetch
// domain would ever miss fails in the page instead of leaving a second way
// to the network.
func TestNoNetworkOfItsOwn(t *testing.T) {
	b := start(t)
	s := newSite(t)
	if _, err := chromedp.CallBrowser(b.ctx, fetch.Disable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := chromedp.NewContext(b.ctx)
	defer cancel()
	tctx, tcancel := context.WithTimeout(ctx, 30*time.Second)
	defer tcancel()
	if err := chromedp.Do(ctx); err != nil {
		t.Fatal(err)
	}
	nav, err := chromedp.Call(tctx, page.Navigate, page.NavigateParams{URL: s.URL + "/"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("navigation without interception: %q", nav.ErrorText)
	if nav.ErrorText == "" {
		t.Error("the page loaded")
	}
	if got := s.log(); len(got) != 0 {
		t.Errorf("the server was reached: %q", got)
	}
}

// TestStartBadPath: a missing binary is one line naming it.
func TestStartBadPath(t *testing.T) {
	_, err := Start(context.Background(), Options{Path: "/nonexistent/chromium"})
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "/nonexistent/chromium") {
		t.Fatalf("err = %v", err)
	}
	t.Log(err)
}
