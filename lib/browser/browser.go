package browser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// FetchFunc answers one request of a page: it is the crawler's own HTTP
// client. It must not follow redirects (a 3xx with a Location is handed to
// Chromium, which asks for the next URL itself) and returns the body
// decoded (Content-Encoding removed): what was received as sent is the
// caller's to keep. A non-nil error fails the request in the page.
type FetchFunc func(ctx context.Context, req *http.Request) (status int, header http.Header, body []byte, err error)

// Options configure Start.
type Options struct {
	// Path is the Chromium (or Chrome) binary; "" looks for chromium,
	// chromium-browser, google-chrome on PATH.
	Path string
	// Width and Height are the viewport in CSS pixels, and so the size of
	// the screenshot (1280×800 when zero).
	Width, Height int
	// UserAgent replaces Chromium's User-Agent when not empty.
	UserAgent string
	// Output receives what Chromium prints on stdout and stderr; nil
	// discards it.
	Output io.Writer
}

// The causes of a failed Render, wrapped by its error (see PageOptions
// for the bounds).
var (
	ErrTimeout  = errors.New("page timeout")
	ErrCrashed  = errors.New("tab crashed")
	ErrGone     = errors.New("browser exited")
	ErrTooLarge = errors.New("DOM too large")
)

// Browser is one Chromium process. Render may be called from several
// goroutines at once, one tab each.
type Browser struct {
	opts        Options
	allocCancel context.CancelFunc
	ctx         context.Context // the first tab's context: the browser session
	cancel      context.CancelFunc
	lost        <-chan struct{} // closed when the connection to Chromium is lost
	proc        *os.Process
	// home holds Chromium's profile and its XDG config and cache folders,
	// so every process it starts, its crash handlers too, names it on its
	// command line: Close ends them by it, and removes it.
	home  string
	proxy net.Listener // see deadProxy

	mu     sync.Mutex
	tabs   map[target.ID]*tab   // open tabs by target (= main frame) id
	frames map[cdp.FrameID]*tab // frames and child targets seen, by id
	closed bool
}

// deadProxy listens on loopback and hangs up on every connection: it is
// Chromium's proxy, bypassed for nothing (loopback included), so whatever
// Chromium would ask for itself, beside the interception, fails at once.
func deadProxy() (net.Listener, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return ln, nil
}

// Start starts Chromium headless and turns on request interception. ctx
// bounds the start only; the browser runs until Close.
func Start(ctx context.Context, opts Options) (*Browser, error) {
	if opts.Width <= 0 || opts.Height <= 0 {
		opts.Width, opts.Height = 1280, 800
	}
	path, err := findChromium(opts.Path)
	if err != nil {
		return nil, err
	}
	home, err := os.MkdirTemp("", "arcport-chromium-")
	if err != nil {
		return nil, fmt.Errorf("browser: %w", err)
	}
	proxy, err := deadProxy()
	if err != nil {
		os.RemoveAll(home)
		return nil, fmt.Errorf("browser: %w", err)
	}
	aopts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.UserDataDir(filepath.Join(home, "profile")),
		chromedp.Env("XDG_CONFIG_HOME="+filepath.Join(home, "config"), "XDG_CACHE_HOME="+filepath.Join(home, "cache")),
		chromedp.WindowSize(opts.Width, opts.Height),
		chromedp.Flag("proxy-server", "http://"+proxy.Addr().String()),
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("hide-scrollbars", true),
	)
	if opts.UserAgent != "" {
		aopts = append(aopts, chromedp.UserAgent(opts.UserAgent))
	}
	if opts.Output != nil {
		aopts = append(aopts, chromedp.CombinedOutput(opts.Output))
	}
	actx, acancel := chromedp.NewExecAllocator(context.Background(), aopts...)
	bctx, bcancel := chromedp.NewContext(actx)
	b := &Browser{
		opts: opts, allocCancel: acancel, ctx: bctx, cancel: bcancel, home: home, proxy: proxy,
		tabs: map[target.ID]*tab{}, frames: map[cdp.FrameID]*tab{},
	}
	started := make(chan error, 1)
	go func() { started <- b.start() }()
	select {
	case err = <-started:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("browser: starting %s: %s", path, oneLine(err))
	}
	return b, nil
}

func findChromium(path string) (string, error) {
	if path != "" {
		p, err := exec.LookPath(path)
		if err != nil {
			return "", fmt.Errorf("browser: %s: not found or not executable", path)
		}
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("browser: no chromium on PATH (install it or give its path)")
}

func (b *Browser) start() error {
	if err := chromedp.Do(b.ctx); err != nil {
		return err
	}
	c := chromedp.FromContext(b.ctx)
	b.proc = c.Browser.Process()
	b.lost = c.Browser.LostConnection
	// Subscribe before enabling, so no request is missed.
	paused := chromedp.BrowserEvents(b.ctx, fetch.RequestPaused)
	if _, err := chromedp.CallBrowser(b.ctx, fetch.Enable, fetch.EnableParams{
		Patterns: []*fetch.RequestPattern{{URLPattern: "*", RequestStage: fetch.RequestStageRequest}},
	}); err != nil {
		return err
	}
	if _, err := chromedp.CallBrowser(b.ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorDeny,
	}); err != nil {
		return err
	}
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			go b.paused(&ev)
		}
	}()
	return nil
}

// Close stops Chromium and every process it started, and removes its
// profile directory. It is safe to call more than once.
func (b *Browser) Close() error {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.cancel()
	b.allocCancel() // kills the browser process and waits for it
	b.proxy.Close()
	// Its children can outlive it, or fork as it dies: look until none
	// is seen a few times in a row.
	deadline := time.Now().Add(5 * time.Second)
	for quiet := 0; quiet < 3 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if killUsing(b.home) == 0 {
			quiet++
		} else {
			quiet = 0
		}
	}
	var err error
	for range 50 { // a dying child may still write in it
		if err = os.RemoveAll(b.home); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	return err
}

// oneLine makes an error one line: Chromium's own messages can hold
// several.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
