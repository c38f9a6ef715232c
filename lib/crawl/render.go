package crawl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/arcport/arcport/lib/record"
)

// PageFetch answers one request of a page being rendered (see
// Config.Render): it sends the request through the crawler and returns the
// response with its body decoded (transfer and content codings removed).
// It never follows a redirect: a 3xx is returned as it is. GET and POST
// are sent (a POST with its body, once, never retried); other methods
// are refused. A non-nil error means the request is to fail in the page
// (refused by robots.txt, the scope, a scan rule, a limit or a MIME
// filter, or a network error).
// It has the shape of lib/browser's FetchFunc.
type PageFetch func(ctx context.Context, req *http.Request) (status int, header http.Header, body []byte, err error)

// RenderFunc renders an HTML page (a successful capture whose body is
// HTML) with every request of the page sent to fetch, and returns the
// links found in the rendered page: navigational ones, and frames as
// Embedded. See Config.Render.
type RenderFunc func(ctx context.Context, page *Capture, fetch PageFetch) ([]Link, error)

// maxPostBody bounds the body of a page's POST request.
const maxPostBody = 64 << 20

// ErrNotFetched is wrapped by the errors PageFetch returns for requests the
// crawl's rules refuse.
var ErrNotFetched = errors.New("not fetched")

// render renders the page of cp through Config.Render and returns the
// links it found.
//
// Each request of the page goes through the crawler as an embedded
// resource of the page would: scan rules and traps, the scope rule for
// requisites (in scope, or on the page's own host, or within --ext-depth
// hops), robots.txt (fetched and recorded first when the host is new),
// the host's pacing (Rate, Crawl-delay), the cookie jar, credentials of
// Auth, size caps and MIME filters, retries, MaxPages and MaxBytes. Each
// exchange becomes a Capture of its own (Embedded, Via the page) handed
// to the sink as received (content coding kept), and the decoded body
// goes to the renderer. The page's own document is answered from cp, not
// fetched again. At most Connections of these requests are under way at
// once for the whole crawl.
//
// A GET for a URL the pages' requests captured already in this crawl is
// answered from that capture (see renderCache): nothing is fetched or
// recorded again. With a Frontier, the requisites the page's HTML links
// to that the pages' requests captured are not queued (mergeLinks):
// without one, the crawl's seen set makes them duplicates.
func (c *Crawler) render(ctx context.Context, it *item, cp *Capture) ([]Link, error) {
	rc := c.renderCache()
	fetch := func(rctx context.Context, req *http.Request) (int, http.Header, []byte, error) {
		key := ""
		if req.Method == http.MethodGet {
			if u, err := CanonicalURL(req.URL.String()); err == nil && u.String() != cp.URL {
				key = u.String()
			}
		}
		if key != "" {
			if a := rc.get(key); a != nil {
				return a.status, a.header.Clone(), a.body, nil
			}
		}
		status, h, body, err := c.pageFetch(rctx, it, cp, req)
		if key != "" && err == nil {
			rc.put(key, status, h, body)
		}
		return status, h, body, err
	}
	links, err := c.cfg.Render(ctx, cp, fetch)
	if c.cfg.Frontier != nil {
		links = append(links, rc.mark())
	}
	return links, err
}

// renderable reports whether cp is a page for Config.Render: a complete
// successful HTML response.
func (c *Crawler) renderable(cp *Capture) bool {
	st := cp.Status()
	return c.cfg.Render != nil && st >= 200 && st < 300 && st != 204 && cp.Err == nil &&
		cp.Response != nil && docKind(cp.MIME(), cp.URL) == "html"
}

func (c *Crawler) pageFetch(ctx context.Context, page *item, cp *Capture, req *http.Request) (int, http.Header, []byte, error) {
	u, err := CanonicalURL(req.URL.String())
	if err != nil {
		return 0, nil, nil, err
	}
	key := u.String()
	if key == cp.URL && req.Method == http.MethodGet {
		// the page's own document: the capture already made
		body, err := decodedBody(cp, c.cfg.ParseLimit())
		if err != nil {
			return 0, nil, nil, err
		}
		return cp.Status(), httpHeader(cp.Head.Header), body, nil
	}
	var reqBody []byte
	switch req.Method {
	case http.MethodGet:
	case http.MethodPost:
		// a script's POST (XHR, fetch, a form): sent once, never retried
		reqBody = []byte{}
		if req.Body != nil {
			b, err := io.ReadAll(io.LimitReader(req.Body, maxPostBody+1))
			if err != nil {
				return 0, nil, nil, err
			}
			if len(b) > maxPostBody {
				return 0, nil, nil, fmt.Errorf("POST %s: %w (body over %d bytes)", key, ErrNotFetched, maxPostBody)
			}
			reqBody = b
		}
	default:
		return 0, nil, nil, fmt.Errorf("%s %s: %w (the crawler sends GET and POST only)", req.Method, key, ErrNotFetched)
	}
	if r := c.embedRefusal(page, u, key); r != "" {
		return 0, nil, nil, fmt.Errorf("%s: %w (%s)", key, ErrNotFetched, r)
	}
	h := c.renderHost(u.Scheme + "://" + u.Host)
	if err := c.ensureRobots(ctx, h); err != nil {
		return 0, nil, nil, err
	}
	c.mu.Lock()
	robots := h.robots
	c.mu.Unlock()
	if robots != nil && !robots.Test(u.RequestURI()) {
		c.skip(key, "robots.txt")
		return 0, nil, nil, fmt.Errorf("%s: %w (robots.txt)", key, ErrNotFetched)
	}

	select {
	case c.rsem <- struct{}{}:
	case <-ctx.Done():
		return 0, nil, nil, ctx.Err()
	}
	defer func() { <-c.rsem }()

	c.mu.Lock()
	if c.stopped || c.limit != "" || c.limitLocked() != "" || c.pagesFullLocked() {
		c.mu.Unlock()
		return 0, nil, nil, fmt.Errorf("%s: %w (crawl limit)", key, ErrNotFetched)
	}
	if c.cfg.MaxPages > 0 {
		c.inPages++
		defer func() {
			c.mu.Lock()
			c.inPages--
			c.mu.Unlock()
		}()
	}
	c.mu.Unlock()

	sub := &item{u: u, key: key, depth: page.depth, hops: page.hops, embedded: true, via: page.key}
	if reqBody != nil {
		sub.method, sub.body = http.MethodPost, reqBody
	}
	if !c.scopeContains(u) && u.Host != page.u.Host {
		sub.hops = page.hops + 1
	}
	hdr := c.renderHeader(u, req)
	var ex *exchange
	var sp *Spool
	for {
		ex, sp = c.fetchWith(ctx, sub, h, hdr, c.cfg.policyFor(key))
		if ctx.Err() != nil {
			if sp != nil {
				sp.Close()
			}
			return 0, nil, nil, ctx.Err()
		}
		if r := c.refusal(ex); r != "" {
			sp.Close()
			c.skip(key, r)
			return 0, nil, nil, fmt.Errorf("%s: %w (%s)", key, ErrNotFetched, r)
		}
		again, delay := c.retryable(ex)
		if !again || sub.attempt >= c.cfg.Retries || reqBody != nil {
			break
		}
		if sp != nil {
			sp.Close()
		}
		sub.attempt++
		if delay <= 0 {
			delay = c.cfg.RetryBackoff << (sub.attempt - 1)
		}
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return 0, nil, nil, ctx.Err()
		}
	}
	sc := c.capture(sub, ex)
	var (
		status int
		header http.Header
		body   []byte
		berr   error
	)
	if ex.head != nil {
		status, header = ex.head.StatusCode, httpHeader(ex.head.Header)
		body, berr = decodedBody(sc, c.cfg.ParseLimit())
	}
	switch {
	case ex.err != nil:
		berr = ex.err
	case sc.Truncated != "":
		berr = fmt.Errorf("%s: body cut (%s)", key, sc.Truncated)
	case ex.head == nil:
		berr = fmt.Errorf("%s: no response", key)
	}
	if c.cfg.Frontier == nil && ex.head != nil && reqBody == nil {
		c.mu.Lock()
		c.seen[key] = struct{}{} // captured: links to it are duplicates
		c.mu.Unlock()
	}
	if err := c.emit(sc); err != nil {
		c.fail(err)
		return 0, nil, nil, err
	}
	if sc.OnDurable != nil {
		// published (the payload digest for the other workers) once the
		// page is durable: it is written before the page
		cp.addSubDurable(sc.OnDurable)
	}
	if berr != nil {
		return 0, nil, nil, berr
	}
	return status, header, body, nil
}

// embedRefusal says why u, requested by the page of it, is not fetched,
// or "": the rule for a page's requisites (see placeLocked).
func (c *Crawler) embedRefusal(it *item, u *url.URL, key string) string {
	if r := c.cfg.Traps.check(u, key); r != "" {
		return r
	}
	fd, rule := c.cfg.Filters.decide(key)
	if fd < 0 {
		return "filter -" + rule.Pattern
	}
	if fd > 0 || c.scopeContains(u) || u.Host == it.u.Host {
		return ""
	}
	if it.hops+1 > c.cfg.ExtDepth {
		return "scope"
	}
	return ""
}

func (c *Crawler) scopeContains(u *url.URL) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.scope.Contains(u)
}

// renderHost returns the host of key, made known to the crawler (with
// robots.txt off, as done).
func (c *Crawler) renderHost(key string) *host {
	c.mu.Lock()
	defer c.mu.Unlock()
	h := c.hosts[key]
	if h == nil {
		h = &host{key: key, interval: c.interval}
		if !c.cfg.Robots {
			h.robotsState = robotsDone
		}
		c.hosts[key] = h
	}
	return h
}

// ensureRobots makes h's robots.txt rules known, fetching (and recording)
// it now when no worker has.
func (c *Crawler) ensureRobots(ctx context.Context, h *host) error {
	if !c.cfg.Robots {
		return nil
	}
	if c.shared != nil {
		_, err := c.sharedRobots(ctx, h)
		return err
	}
	c.mu.Lock()
	for h.robotsState == robotsFetching {
		c.cond.Wait()
	}
	if h.robotsState == robotsDone {
		c.mu.Unlock()
		return nil
	}
	h.robotsState = robotsFetching
	c.mu.Unlock()
	return c.fetchRobots(ctx, h) // sets robotsDone, wakes the waiters
}

// renderHeader makes the request fields for a request of a page: the
// crawl's User-Agent and Accept-Encoding, the browser's Accept, Referer,
// Origin, Content-Type and its own fields, the cookies of the jar and of
// the browser, then Config.Header. Range and conditional fields are left
// out: the resource is fetched whole.
func (c *Crawler) renderHeader(u *url.URL, req *http.Request) record.Header {
	h := record.Header{
		{Name: "User-Agent", Value: c.cfg.UserAgent},
		{Name: "Accept", Value: "*/*"},
		{Name: "Accept-Encoding", Value: "gzip, deflate, br"},
	}
	if a := req.Header.Get("Accept"); a != "" {
		h[1].Value = a
	}
	keys := make([]string, 0, len(req.Header))
	for k := range req.Header {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		switch http.CanonicalHeaderKey(k) {
		case "Host", "Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authorization", "Te", "Trailer",
			"Transfer-Encoding", "Upgrade", "Content-Length", "Accept", "Accept-Encoding", "User-Agent", "Cookie",
			"Authorization", "Range", "If-Range", "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since":
			continue
		}
		for _, v := range req.Header[k] {
			if strings.ContainsAny(k+v, "\r\n") {
				continue
			}
			h = append(h, record.Field{Name: k, Value: v})
		}
	}
	var names []string
	vals := map[string]string{}
	if c.cfg.Jar != nil {
		for _, ck := range c.cfg.Jar.Cookies(u) {
			if _, ok := vals[ck.Name]; !ok {
				names = append(names, ck.Name)
			}
			vals[ck.Name] = ck.Value
		}
	}
	for _, line := range req.Header.Values("Cookie") {
		for _, part := range strings.Split(line, ";") {
			name, value, _ := strings.Cut(strings.TrimSpace(part), "=")
			if name == "" || strings.ContainsAny(name+value, "\r\n") {
				continue
			}
			if _, ok := vals[name]; !ok {
				names = append(names, name)
			}
			vals[name] = value
		}
	}
	if len(names) > 0 {
		parts := make([]string, len(names))
		for i, n := range names {
			parts[i] = n + "=" + vals[n]
		}
		h = append(h, record.Field{Name: "Cookie", Value: strings.Join(parts, "; ")})
	}
	for _, f := range c.cfg.Header {
		replaced := false
		for i := range h {
			if strings.EqualFold(h[i].Name, f.Name) {
				h[i].Value = f.Value
				replaced = true
			}
		}
		if !replaced {
			h = append(h, f)
		}
	}
	return append(h, record.Field{Name: "Connection", Value: "keep-alive"})
}

// decodedBody reads the body of cp decoded, up to limit bytes (a longer
// one is an error: the renderer would get a cut document).
func decodedBody(cp *Capture, limit int64) ([]byte, error) {
	r, err := cp.Body()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cp.URL, err)
	}
	if n > limit {
		return nil, fmt.Errorf("%s: decoded body over %d bytes", cp.URL, limit)
	}
	return buf.Bytes(), nil
}

func httpHeader(h record.Header) http.Header {
	out := http.Header{}
	for _, f := range h {
		out.Add(f.Name, f.Value)
	}
	return out
}

// mergeLinks adds to found the rendered links it does not hold (same URL
// and role).
func mergeLinks(found, rendered []Link) []Link {
	if len(rendered) == 0 {
		return found
	}
	if rc := markedCache(rendered[len(rendered)-1]); rc != nil {
		rendered = rendered[:len(rendered)-1]
		kept := found[:0:0]
		for _, l := range found {
			if !l.Embedded || l.Redirect {
				kept = append(kept, l) // a page is crawled as one
				continue
			}
			if u, err := CanonicalURL(l.URL); err == nil && rc.captured(u.String()) {
				continue // captured as a requisite of a page already
			}
			kept = append(kept, l)
		}
		found = kept
	}
	type k struct {
		u        string
		embedded bool
	}
	have := map[k]bool{}
	for _, l := range found {
		have[k{l.URL, l.Embedded}] = true
	}
	for _, l := range rendered {
		if l.URL == "" || have[k{l.URL, l.Embedded}] {
			continue
		}
		have[k{l.URL, l.Embedded}] = true
		found = append(found, Link{URL: l.URL, Embedded: l.Embedded})
	}
	return found
}
