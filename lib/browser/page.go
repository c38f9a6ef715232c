package browser

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// PageOptions configure Render; zero fields take the defaults.
type PageOptions struct {
	// Timeout bounds the whole page: load, idle, scroll and capture (90 s).
	Timeout time.Duration
	// Idle is how long no request may be pending for the network to count
	// as idle (2 s).
	Idle time.Duration
	// ScrollMax bounds the scroll steps, one viewport each (40; -1: none).
	ScrollMax int
	// MaxBody refuses to the browser the bodies longer than it (the
	// request fails in the page); 0: no limit.
	MaxBody int
	// MaxDOM bounds the characters of DOM and text read from all the
	// frames (64 Mi); a page over it fails with ErrTooLarge.
	MaxDOM int
}

func (o *PageOptions) defaults() {
	if o.Timeout <= 0 {
		o.Timeout = 90 * time.Second
	}
	if o.Idle <= 0 {
		o.Idle = 2 * time.Second
	}
	if o.MaxDOM <= 0 {
		o.MaxDOM = 64 << 20
	}
	if o.ScrollMax == 0 {
		o.ScrollMax = 40
	}
}

// Page is a rendered page.
type Page struct {
	URL    string  // the main frame's URL once loaded (after redirects)
	Title  string  // the main frame's title
	Text   string  // the main frame's text as shown (innerText)
	Frames []Frame // every frame's rendered DOM, the main frame first
	Links  []Link  // the links of every frame, each URL once
	// Screenshot is a PNG of the viewport (Options.Width × Height), taken
	// at the top of the page after scrolling.
	Screenshot []byte
	Requests   int // requests answered from the FetchFunc
	Failed     int // requests that failed in the page (fetch error, MaxBody)
	Scrolls    int // scroll steps taken
	Dialogs    int // dialogs dismissed
	// Settled is false when the network was never idle or the scrolling
	// did not end within three quarters of the timeout; Pending requests
	// were still waiting for their answer when the page was taken.
	Settled bool
	Pending int
}

// Frame is one frame's document as rendered.
type Frame struct {
	URL   string
	Title string
	HTML  string // the serialized DOM, doctype first when there is one
	Text  string // innerText of its body
}

// Link is a URL found in the rendered DOM, absolute as the document
// resolved it.
type Link struct {
	URL string
	// Tag says where it was found: a, area, iframe, frame, or popup for a
	// page that a script tried to open (it is not opened).
	Tag string
}

// tab is one page being rendered.
type tab struct {
	b     *Browser
	id    target.ID
	ctx   context.Context // the tab's chromedp context
	rctx  context.Context // the requests' context: ends when Render ends
	fetch FetchFunc
	opts  PageOptions

	crashed   chan struct{}
	crashOnce sync.Once
	wg        sync.WaitGroup // requests being answered

	start time.Time

	mu       sync.Mutex
	doing    string         // the stage, for a timeout's message
	pending  map[string]int // the URLs being fetched
	last     time.Time      // when a request last started or ended
	requests int
	failed   int
	dialogs  int
	popups   []string
}

// Render opens url in a new tab, answering every request the page makes
// from fetch, and returns the page once the network is idle and scrolling
// is done. The tab is closed when it returns; no call of fetch is still
// running then. An error is one line naming url, wrapping ErrTimeout,
// ErrCrashed, ErrGone or ErrTooLarge when one of them is the cause.
func (b *Browser) Render(ctx context.Context, url string, fetch FetchFunc, opts PageOptions) (*Page, error) {
	opts.defaults()
	now := time.Now()
	t := &tab{b: b, fetch: fetch, opts: opts, crashed: make(chan struct{}), start: now, last: now, pending: map[string]int{}}
	p, err := t.render(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("browser: %s: %w", url, errLine(err))
	}
	return p, nil
}

// errLine keeps the wrapped cause of err while making it one line.
type lineError struct {
	msg   string
	cause error
}

func (e *lineError) Error() string { return e.msg }
func (e *lineError) Unwrap() error { return e.cause }

func errLine(err error) error {
	return &lineError{msg: oneLine(err), cause: err}
}

func (t *tab) render(ctx context.Context, url string) (*Page, error) {
	b := t.b
	b.mu.Lock()
	closed := b.closed
	b.mu.Unlock()
	if closed {
		return nil, ErrGone
	}
	tctx, tcancel := chromedp.NewContext(b.ctx, chromedp.WithListener(t.listen))
	defer tcancel()
	// The page's context ends with its timeout, a crash, the browser's
	// end or the caller's.
	pctx, pcancel := context.WithCancelCause(tctx)
	defer pcancel(nil)
	timer := time.AfterFunc(t.opts.Timeout, func() { pcancel(fmt.Errorf("%w after %v (%s)", ErrTimeout, t.opts.Timeout, t.state())) })
	defer timer.Stop()
	stop := context.AfterFunc(ctx, func() { pcancel(context.Cause(ctx)) })
	defer stop()
	go func() {
		select {
		case <-t.crashed:
			pcancel(ErrCrashed)
		case <-b.lost:
			pcancel(ErrGone)
		case <-pctx.Done():
		}
	}()
	rctx, rcancel := context.WithCancel(pctx)
	t.ctx, t.rctx = tctx, rctx
	defer func() {
		rcancel()
		t.wg.Wait()
		b.removeTab(t)
	}()

	p, err := t.steps(pctx, url)
	if err != nil {
		// Say why the page ended rather than how its last call did.
		select {
		case <-b.lost:
			return nil, ErrGone
		default:
		}
		if cause := context.Cause(pctx); cause != nil {
			err = cause
		}
	}
	return p, err
}

func (t *tab) steps(ctx context.Context, url string) (*Page, error) {
	b := t.b
	t.stage("opening a tab")
	if err := chromedp.Do(ctx); err != nil { // the first call makes the tab
		return nil, err
	}
	t.id = chromedp.FromContext(ctx).Target.TargetID
	b.addTab(t)
	if _, err := chromedp.Call(ctx, network.SetBypassServiceWorker, network.SetBypassServiceWorkerParams{Bypass: true}); err != nil {
		return nil, err
	}
	if _, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: int64(b.opts.Width), Height: int64(b.opts.Height), DeviceScaleFactor: 1,
	}); err != nil {
		return nil, err
	}
	t.stage("loading")
	nav, err := chromedp.Call(ctx, page.Navigate, page.NavigateParams{URL: url})
	if err != nil {
		return nil, err
	}
	if nav.ErrorText != "" {
		return nil, errors.New(nav.ErrorText)
	}
	// The network settles and the page scrolls for three quarters of the
	// timeout at most; then the page is taken as it stands, and what is
	// still pending is left out of it.
	settle, cancel := context.WithDeadline(ctx, t.start.Add(t.opts.Timeout*3/4))
	defer cancel()
	t.stage("waiting for the network")
	settled := t.waitIdle(settle, t.opts.Idle) == nil
	scrolls := 0
	if settled {
		t.stage("scrolling")
		scrolls, err = t.scroll(settle)
		settled = err == nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	t.stage("reading the frames")
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](`window.scrollTo(0, 0)`)); err != nil {
		return nil, err
	}
	frames, links, err := t.frames(ctx)
	if err != nil {
		return nil, err
	}
	t.stage("taking the screenshot")
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		return nil, err
	}
	p := &Page{Frames: frames, Screenshot: shot, Scrolls: scrolls, Settled: settled}
	if len(frames) > 0 {
		p.URL = frames[0].URL
		p.Title = frames[0].Title
		p.Text = frames[0].Text
	}
	t.mu.Lock()
	p.Requests, p.Failed, p.Dialogs, p.Pending = t.requests, t.failed, t.dialogs, len(t.pending)
	seen := map[string]bool{}
	for _, l := range links {
		if !seen[l.URL] {
			seen[l.URL] = true
			p.Links = append(p.Links, l)
		}
	}
	for _, u := range t.popups {
		if !seen[u] {
			seen[u] = true
			p.Links = append(p.Links, Link{URL: u, Tag: "popup"})
		}
	}
	t.mu.Unlock()
	return p, nil
}

// listen runs in the tab's event loop: it must not send commands itself.
func (t *tab) listen(ev any) {
	switch ev := ev.(type) {
	case *page.EventJavascriptDialogOpening:
		t.mu.Lock()
		t.dialogs++
		t.mu.Unlock()
		// Dismiss it; a page about to leave is let go.
		accept := ev.Type == page.DialogTypeBeforeunload
		go chromedp.Call(t.ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: accept})
	case *inspector.EventTargetCrashed:
		t.crashOnce.Do(func() { close(t.crashed) })
	}
}

func (t *tab) stage(s string) {
	t.mu.Lock()
	t.doing = s
	t.mu.Unlock()
}

// state says what the tab was doing: the stage, and the requests pending.
func (t *tab) state() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.doing
	if n := len(t.pending); n > 0 {
		urls := slices.Sorted(maps.Keys(t.pending))
		s += fmt.Sprintf(", %d pending: %s", n, urls[0])
		if n > 1 {
			s += " …"
		}
	}
	return s
}

//go:embed scroll.js
var scrollJS string

// scroll scrolls a viewport at a time until the bottom stays the bottom:
// the height must be the same two steps in a row with the network idle in
// between, so that what a scroll makes load is in the page.
func (t *tab) scroll(ctx context.Context) (int, error) {
	type pos struct{ Y, H, VH float64 }
	var last float64 = -1
	stable, n := 0, 0
	step := min(t.opts.Idle/4, 500*time.Millisecond)
	for n < t.opts.ScrollMax && stable < 2 {
		p, err := chromedp.Run(ctx, chromedp.Evaluate[pos](scrollJS, chromedp.EvalAwaitPromise))
		if err != nil {
			return n, err
		}
		n++
		// Give observers and timers a frame or two to ask for more.
		select {
		case <-ctx.Done():
			return n, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if err := t.waitIdle(ctx, step); err != nil {
			return n, err
		}
		if p.Y+p.VH >= p.H-1 && p.H == last {
			stable++
		} else {
			stable = 0
		}
		last = p.H
	}
	return n, nil
}
