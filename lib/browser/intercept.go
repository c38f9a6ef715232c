package browser

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// Interception: every request Chromium pauses is given to the tab it
// belongs to, which answers it from its FetchFunc and counts it for the
// network-idle wait.

// paused answers one intercepted request: from the fetch function of the
// tab it belongs to, or with an error when it belongs to no open tab.
func (b *Browser) paused(ev *fetch.EventRequestPaused) {
	t, popup := b.owner(ev.FrameID)
	switch {
	case t == nil:
		b.fail(ev.RequestID, network.ErrorReasonBlockedByClient)
	case popup:
		t.popup(ev.Request.URL)
		b.fail(ev.RequestID, network.ErrorReasonBlockedByClient)
	default:
		t.serve(ev)
	}
}

func (b *Browser) fail(id fetch.RequestID, why network.ErrorReason) {
	ctx, cancel := context.WithTimeout(b.ctx, answerTimeout)
	defer cancel()
	chromedp.CallBrowser(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: id, ErrorReason: why})
}

// owner finds the open tab a frame belongs to: the tab itself (its main
// frame has the tab's id), a frame in its frame tree, or a child target
// (a cross-site frame, a worker) whose parent frame belongs to it. popup
// reports a page that a tab opened.
func (b *Browser) owner(id cdp.FrameID) (t *tab, popup bool) {
	var infos []*target.Info
	treesRead := false
	for range 8 {
		if t = b.known(id); t != nil {
			return t, false
		}
		if !treesRead {
			treesRead = true
			b.readFrameTrees()
			if t = b.known(id); t != nil {
				return t, false
			}
		}
		if infos == nil {
			var err error
			ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
			infos, err = chromedp.Targets(ctx)
			cancel()
			if err != nil {
				return nil, false
			}
		}
		i := slices.IndexFunc(infos, func(in *target.Info) bool { return cdp.FrameID(in.TargetID) == id })
		if i < 0 {
			return b.single(), false
		}
		in := infos[i]
		switch {
		case in.ParentFrameID != "":
			id = in.ParentFrameID
		case in.Type == "page" && in.OpenerID != "":
			if t = b.known(cdp.FrameID(in.OpenerID)); t != nil {
				go chromedp.CallBrowser(b.ctx, target.CloseTarget, target.CloseTargetParams{TargetID: in.TargetID})
				return t, true
			}
			return nil, false
		default:
			return nil, false
		}
	}
	return nil, false
}

func (b *Browser) known(id cdp.FrameID) *tab {
	b.mu.Lock()
	defer b.mu.Unlock()
	if t := b.tabs[target.ID(id)]; t != nil {
		return t
	}
	return b.frames[id]
}

// single is the one open tab, if there is exactly one: a frame nested in a
// cross-site frame is in no tree read here, and with one tab open it can
// only be that tab's.
func (b *Browser) single() *tab {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.tabs) != 1 {
		return nil
	}
	for _, t := range b.tabs {
		return t
	}
	return nil
}

// readFrameTrees learns the frames of every open tab.
func (b *Browser) readFrameTrees() {
	b.mu.Lock()
	tabs := make([]*tab, 0, len(b.tabs))
	for _, t := range b.tabs {
		tabs = append(tabs, t)
	}
	b.mu.Unlock()
	for _, t := range tabs {
		ctx, cancel := context.WithTimeout(t.ctx, 2*time.Second)
		res, err := chromedp.Call(ctx, page.GetFrameTree, cdp.Empty{})
		cancel()
		if err != nil {
			continue
		}
		b.mu.Lock()
		walkFrames(res.FrameTree, func(f *cdp.Frame) { b.frames[f.ID] = t })
		b.mu.Unlock()
	}
}

func walkFrames(ft *page.FrameTree, fn func(*cdp.Frame)) {
	if ft == nil {
		return
	}
	fn(ft.Frame)
	for _, c := range ft.ChildFrames {
		walkFrames(c, fn)
	}
}

func (b *Browser) addTab(t *tab) {
	b.mu.Lock()
	b.tabs[t.id] = t
	b.mu.Unlock()
}

func (b *Browser) removeTab(t *tab) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.tabs, t.id)
	for id, o := range b.frames {
		if o == t {
			delete(b.frames, id)
		}
	}
}

// answerTimeout bounds the handing of an answer to Chromium, so a request
// it forgot cannot keep a page from being idle.
const answerTimeout = 30 * time.Second

// fulfill hands a fetched answer to Chromium. The body is decoded already,
// so the headers that describe the bytes on the wire are left out:
// Chromium would decode a gzip body a second time, or cut it to a length
// that is no longer its length.
func (b *Browser) fulfill(id fetch.RequestID, status int, h http.Header, body []byte) error {
	var hs []*fetch.HeaderEntry
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		switch http.CanonicalHeaderKey(k) {
		case "Content-Encoding", "Content-Length", "Transfer-Encoding", "Connection", "Keep-Alive":
			continue
		}
		for _, v := range h[k] {
			hs = append(hs, &fetch.HeaderEntry{Name: k, Value: v})
		}
	}
	ctx, cancel := context.WithTimeout(b.ctx, answerTimeout)
	defer cancel()
	_, err := chromedp.CallBrowser(ctx, fetch.FulfillRequest, fetch.FulfillRequestParams{
		RequestID: id, ResponseCode: int64(status), ResponseHeaders: hs, Body: body,
	})
	return err
}

// request makes the http.Request Chromium asked for.
func request(ctx context.Context, r *network.Request) (*http.Request, error) {
	var body io.Reader
	if len(r.PostDataEntries) > 0 {
		var buf bytes.Buffer
		for _, e := range r.PostDataEntries {
			buf.Write(e.Bytes)
		}
		body = &buf
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, r.URL, body)
	if err != nil {
		return nil, err
	}
	for k, v := range r.Headers {
		if s, ok := v.(string); ok {
			req.Header[k] = strings.Split(s, "\n")
		} else {
			req.Header[k] = []string{fmt.Sprint(v)}
		}
	}
	return req, nil
}

// serve answers one request of the page from the fetch function.
func (t *tab) serve(ev *fetch.EventRequestPaused) {
	t.wg.Add(1)
	defer t.wg.Done()
	u := ev.Request.URL
	t.begin(u)
	ok := false
	defer func() { t.end(u, ok) }()
	req, err := request(t.rctx, ev.Request)
	if err != nil {
		t.b.fail(ev.RequestID, network.ErrorReasonFailed)
		return
	}
	status, h, body, err := t.fetch(t.rctx, req)
	switch {
	case err != nil || status < 100 || status > 999:
		t.b.fail(ev.RequestID, network.ErrorReasonFailed)
	case t.opts.MaxBody > 0 && len(body) > t.opts.MaxBody:
		t.b.fail(ev.RequestID, network.ErrorReasonBlockedByClient)
	default:
		ok = t.b.fulfill(ev.RequestID, status, h, body) == nil
	}
}

func (t *tab) begin(u string) {
	t.mu.Lock()
	t.pending[u]++
	t.last = time.Now()
	t.mu.Unlock()
}

func (t *tab) end(u string, ok bool) {
	t.mu.Lock()
	if t.pending[u]--; t.pending[u] == 0 {
		delete(t.pending, u)
	}
	t.last = time.Now()
	if ok {
		t.requests++
	} else {
		t.failed++
	}
	t.mu.Unlock()
}

func (t *tab) popup(url string) {
	t.mu.Lock()
	t.popups = append(t.popups, url)
	t.mu.Unlock()
}

// waitIdle waits until no request of the page has been pending for quiet.
func (t *tab) waitIdle(ctx context.Context, quiet time.Duration) error {
	tick := time.NewTicker(quiet / 10)
	defer tick.Stop()
	for {
		t.mu.Lock()
		idle := len(t.pending) == 0 && time.Since(t.last) >= quiet
		t.mu.Unlock()
		if idle {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}
