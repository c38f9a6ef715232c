package crawl

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/temoto/robotstxt"

	"github.com/arcport/arcport/lib/httpmsg"
	"github.com/arcport/arcport/lib/record"
)

// Crawler is the robot of chapter 4.3: a heap of URLs shared by fetching
// workers, filled with the links the parser finds in each response.
type Crawler struct {
	cfg   Config
	sink  Sink
	f     *fetcher
	scope *Scope
	seeds []*url.URL

	mu       sync.Mutex
	cond     *sync.Cond
	hosts    map[string]*host
	ready    []*host // hosts with queued URLs, served round-robin
	rr       int
	seen     map[string]struct{}
	variants map[string]int
	active   int
	queued   int
	stopped  bool
	err      error
	stats    Stats
	interval time.Duration
	found    []*item // with a Frontier: links taken by decideLocked, to add
	inPages  int     // URLs under way that may become pages (MaxPages)
	limit    Limit   // the limit that stopped the crawl, if any

	shared *sharedState
	linkMu sync.Mutex // with a Frontier: one page's links at a time in found

	sinkMu sync.Mutex
	rsem   chan struct{} // Config.Render's requests under way
}

type host struct {
	key       string // scheme://host[:port]
	queue     []*item
	delayed   []*item // retries waiting for their time
	active    int
	notBefore time.Time // Retry-After
	nextPick  time.Time // rate pacing hint for the scheduler
	inReady   bool

	robotsState int
	robots      *robotstxt.Group
	interval    time.Duration // between requests: --rate, Crawl-delay
	// with a Frontier: the robots.txt status and body as fetched, for
	// the frontier's cache, and a lock held while one worker fetches it
	robotsStatus int
	robotsBody   []byte
	robotsMu     sync.Mutex

	gateMu   sync.Mutex // exact pacing at send time
	lastSend time.Time
}

const (
	robotsUnknown = iota
	robotsFetching
	robotsDone
)

// item is one queued URL.
type item struct {
	u         *url.URL
	key       string
	depth     int
	hops      int
	embedded  bool
	via       string
	redirects int
	attempt   int
	readyAt   time.Time
	seed      bool
	// context of the page the link was found in, for redirect decisions
	fromHost  string
	fromDepth int
	fromHops  int
	// a page's request other than GET (Config.Render): method and body
	method string
	body   []byte
}

// New checks cfg and returns a crawler that hands its captures to sink.
func New(cfg Config, sink Sink) (*Crawler, error) {
	if cfg.Connections <= 0 {
		cfg.Connections = 4
	}
	if cfg.PerHost <= 0 || cfg.PerHost > cfg.Connections {
		cfg.PerHost = cfg.Connections
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.MaxRequestTime == 0 {
		cfg.MaxRequestTime = DefaultMaxRequestTime
	}
	if cfg.MinRate < 0 {
		return nil, errors.New("negative minimum rate")
	}
	if cfg.RetryBackoff <= 0 {
		cfg.RetryBackoff = time.Second
	}
	if cfg.MaxRetryAfter <= 0 {
		cfg.MaxRetryAfter = 5 * time.Minute
	}
	if cfg.MaxRedirects <= 0 {
		cfg.MaxRedirects = 10
	}
	if cfg.MaxRobotsSize <= 0 {
		cfg.MaxRobotsSize = DefaultMaxRobotsSize
	}
	if cfg.SpoolMemory <= 0 {
		cfg.SpoolMemory = 1 << 20
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = DefaultUserAgent()
	}
	if cfg.Extract == nil {
		cfg.Extract = LinksExtractor
	}
	if cfg.Rate < 0 || cfg.MaxRate < 0 {
		return nil, errors.New("negative rate")
	}
	if cfg.Proxy != nil && cfg.Proxy.Scheme != "http" {
		return nil, fmt.Errorf("proxy %s: only http:// proxies are supported", cfg.Proxy.Redacted())
	}
	for _, f := range cfg.Header {
		if strings.ContainsAny(f.Name+f.Value, "\r\n") || f.Name == "" || strings.ContainsAny(f.Name, " :\t") {
			return nil, fmt.Errorf("bad header field %q", f.Name+": "+f.Value)
		}
	}
	cfg.Traps = cfg.Traps.withDefaults()
	if cfg.MaxSizeHTML < 0 || cfg.MaxSizeOther < 0 || cfg.MinSize < 0 || cfg.MaxTime < 0 || cfg.MaxPages < 0 || cfg.MaxBytes < 0 {
		return nil, errors.New("negative size or crawl limit")
	}
	for _, list := range []*[]string{&cfg.AcceptMIME, &cfg.RejectMIME} {
		ps := make([]string, len(*list))
		for i, p := range *list {
			q, err := ParseMIMEPattern(p)
			if err != nil {
				return nil, err
			}
			ps[i] = q
		}
		*list = ps
	}
	if len(cfg.Seeds) == 0 {
		return nil, errors.New("no start URL")
	}
	c := &Crawler{
		cfg:      cfg,
		sink:     sink,
		hosts:    map[string]*host{},
		seen:     map[string]struct{}{},
		variants: map[string]int{},
	}
	c.cond = sync.NewCond(&c.mu)
	c.rsem = make(chan struct{}, cfg.Connections)
	for _, s := range cfg.Seeds {
		u, err := CanonicalURL(s)
		if err != nil {
			return nil, fmt.Errorf("start URL %q: %w", s, err)
		}
		c.seeds = append(c.seeds, u)
	}
	c.scope = NewScope(cfg.Scope, c.seeds)
	if cfg.Rate > 0 {
		// 1% more than 1/Rate, so that network jitter cannot squeeze one
		// request too many into a second as the server counts them
		c.interval = time.Duration(float64(time.Second) / cfg.Rate * 1.01)
	}
	c.f = newFetcher(&c.cfg)
	return c, nil
}

// Stats returns the crawl's counters so far.
func (c *Crawler) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Queued = c.queued
	s.Active = c.active
	return s
}

// Run crawls until no URL is left, ctx is cancelled, a limit of Config
// (MaxTime, MaxPages, MaxBytes) is reached or the sink fails. A cancelled
// crawl stops at once: fetches under way are abandoned and never reach the
// sink, captures already handed over are complete. Run returns ctx's
// cause when cancelled, the sink's error, a *LimitError when a limit ended
// the crawl with URLs left, or nil.
func (c *Crawler) Run(parent context.Context) error {
	if c.cfg.Frontier != nil {
		return c.runShared(parent)
	}
	ctx, cancel := c.crawlContext(parent)
	defer cancel()
	c.mu.Lock()
	c.stats.Started = time.Now()
	for _, u := range c.seeds {
		key := u.String()
		if _, dup := c.seen[key]; dup {
			continue
		}
		c.seen[key] = struct{}{}
		c.pushLocked(&item{u: u, key: key, seed: true})
	}
	c.mu.Unlock()
	stop := context.AfterFunc(ctx, func() {
		c.mu.Lock()
		c.stopped = true
		c.cond.Broadcast()
		c.mu.Unlock()
	})
	defer stop()

	var wg sync.WaitGroup
	for i := 0; i < c.cfg.Connections; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				it, h := c.next()
				if it == nil {
					return
				}
				if err := c.process(ctx, it, h); err != nil {
					c.fail(err)
					cancel()
				}
				c.mu.Lock()
				if it != robotsMarker && c.cfg.MaxPages > 0 {
					c.inPages--
				}
				h.active--
				c.active--
				c.cond.Broadcast()
				c.mu.Unlock()
			}
		}()
	}
	wg.Wait()
	c.f.closeIdle()
	c.mu.Lock()
	err := c.err
	left := c.queued > 0
	c.mu.Unlock()
	if err != nil {
		return err
	}
	return c.ending(parent, ctx, left)
}

// errMaxTime is the cause of the crawl's context at Config.MaxTime.
var errMaxTime = errors.New("crawl time limit")

// crawlContext returns the context of the crawl's work: parent's,
// cancelled at Config.MaxTime.
func (c *Crawler) crawlContext(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	if c.cfg.MaxTime <= 0 {
		return ctx, cancel
	}
	tctx, tcancel := context.WithTimeoutCause(ctx, c.cfg.MaxTime, errMaxTime)
	return tctx, func() { tcancel(); cancel() }
}

// ending is what Run returns once its workers are over and no error
// stopped it: parent's cause when it was cancelled, a *LimitError when a
// limit stopped the crawl with URLs left, else nil.
func (c *Crawler) ending(parent, ctx context.Context, left bool) error {
	if parent.Err() != nil {
		return context.Cause(parent)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if errors.Is(context.Cause(ctx), errMaxTime) {
		// fetches were cut: something is left
		c.limit, left = LimitTime, true
	}
	if c.limit != "" && left {
		return &LimitError{Limit: c.limit}
	}
	c.limit = ""
	return nil
}

// Limit returns the limit that ended the crawl, if Run returned a
// *LimitError, else "".
func (c *Crawler) Limit() Limit {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.limit
}

func (c *Crawler) fail(err error) {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
	}
	c.stopped = true
	c.cond.Broadcast()
	c.mu.Unlock()
}

// pushLocked queues it on its host.
func (c *Crawler) pushLocked(it *item) {
	hk := it.u.Scheme + "://" + it.u.Host
	h := c.hosts[hk]
	if h == nil {
		h = &host{key: hk, interval: c.interval}
		if !c.cfg.Robots {
			h.robotsState = robotsDone
		}
		c.hosts[hk] = h
	}
	if it.readyAt.IsZero() {
		h.queue = append(h.queue, it)
	} else {
		h.delayed = append(h.delayed, it)
	}
	c.queued++
	if !h.inReady {
		h.inReady = true
		c.ready = append(c.ready, h)
	}
	c.cond.Broadcast()
}

// robotsMarker is the item handed out to fetch a host's robots.txt.
var robotsMarker = &item{}

// next blocks until a URL may be fetched, and returns it with its host; it
// returns nil when the crawl is over.
func (c *Crawler) next() (*item, *host) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		if c.stopped {
			return nil, nil
		}
		if c.noteLimitLocked(); c.limit != "" {
			// the fetches under way finish; none starts
			c.stopped = true
			c.cond.Broadcast()
			return nil, nil
		}
		full := c.pagesFullLocked()
		now := time.Now()
		var wake time.Time
		soon := func(t time.Time) {
			if wake.IsZero() || t.Before(wake) {
				wake = t
			}
		}
		for i := 0; i < len(c.ready); i++ {
			idx := (c.rr + i) % len(c.ready)
			h := c.ready[idx]
			if len(h.queue) == 0 && len(h.delayed) == 0 {
				h.inReady = false
				c.ready = append(c.ready[:idx], c.ready[idx+1:]...)
				i--
				continue
			}
			if h.active >= c.cfg.PerHost {
				continue
			}
			if now.Before(h.notBefore) {
				soon(h.notBefore)
				continue
			}
			switch h.robotsState {
			case robotsUnknown:
				h.robotsState = robotsFetching
				h.active++
				c.active++
				return robotsMarker, h
			case robotsFetching:
				continue
			}
			if full {
				continue // until a URL under way ends without a page
			}
			if h.interval > 0 && now.Before(h.nextPick) {
				soon(h.nextPick)
				continue
			}
			it := h.pop(now)
			if it == nil {
				for _, d := range h.delayed {
					soon(d.readyAt)
				}
				continue
			}
			if h.interval > 0 {
				h.nextPick = now.Add(h.interval)
			}
			h.active++
			c.active++
			c.queued--
			if c.cfg.MaxPages > 0 {
				c.inPages++
			}
			c.rr = idx + 1
			return it, h
		}
		if c.active == 0 && c.queued == 0 {
			c.stopped = true
			c.cond.Broadcast()
			return nil, nil
		}
		var t *time.Timer
		if !wake.IsZero() {
			t = time.AfterFunc(time.Until(wake)+time.Millisecond, func() {
				c.mu.Lock()
				c.cond.Broadcast()
				c.mu.Unlock()
			})
		}
		c.cond.Wait()
		if t != nil {
			t.Stop()
		}
	}
}

// pop takes the first retry whose time has come, else the oldest queued URL.
func (h *host) pop(now time.Time) *item {
	for i, d := range h.delayed {
		if !now.Before(d.readyAt) {
			h.delayed = append(h.delayed[:i], h.delayed[i+1:]...)
			return d
		}
	}
	if len(h.queue) == 0 {
		return nil
	}
	it := h.queue[0]
	h.queue[0] = nil
	h.queue = h.queue[1:]
	return it
}

// pace waits so that requests to h are at least h.interval apart, measured
// at the moment each request is written.
func (h *host) pace(ctx context.Context) error {
	h.gateMu.Lock()
	defer h.gateMu.Unlock()
	if h.interval > 0 && !h.lastSend.IsZero() {
		if d := time.Until(h.lastSend.Add(h.interval)); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			}
		}
	}
	h.lastSend = time.Now()
	return nil
}

// requestHeader builds the request fields after the Host line.
func (c *Crawler) requestHeader(it *item, robots bool) record.Header {
	h := record.Header{
		{Name: "User-Agent", Value: c.cfg.UserAgent},
		{Name: "Accept", Value: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"},
		{Name: "Accept-Encoding", Value: "gzip, deflate, br"},
	}
	if it != nil && it.via != "" && !(strings.HasPrefix(it.via, "https:") && it.u.Scheme == "http") {
		h = append(h, record.Field{Name: "Referer", Value: it.via})
	}
	u := it.u
	if c.cfg.Jar != nil {
		var parts []string
		for _, ck := range c.cfg.Jar.Cookies(u) {
			parts = append(parts, ck.Name+"="+ck.Value)
		}
		if len(parts) > 0 {
			h = append(h, record.Field{Name: "Cookie", Value: strings.Join(parts, "; ")})
		}
	}
	if !robots && c.cfg.Validators != nil {
		etag, lm := c.cfg.Validators(it.key)
		if etag != "" {
			h = append(h, record.Field{Name: "If-None-Match", Value: etag})
		}
		if lm != "" {
			h = append(h, record.Field{Name: "If-Modified-Since", Value: lm})
		}
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

// fetch performs one exchange for it.
func (c *Crawler) fetch(ctx context.Context, it *item, h *host, robots bool) (*exchange, *Spool) {
	policy := c.cfg.policyFor(it.key)
	if robots {
		policy = func(*httpmsg.Head) (int64, string) { return c.cfg.MaxRobotsSize, "" }
	}
	return c.fetchWith(ctx, it, h, c.requestHeader(it, robots), policy)
}

// fetchWith performs one exchange for it with the request fields hdr and
// the body policy policy.
func (c *Crawler) fetchWith(ctx context.Context, it *item, h *host, hdr record.Header, policy bodyPolicy) (*exchange, *Spool) {
	sp := newSpool(c.cfg.SpoolMemory, c.cfg.TempDir)
	ex := c.f.do(ctx, it.method, it.u, hdr, it.body, h.pace, sp, policy)
	if ex.resp == nil {
		sp.Close()
	} else {
		c.mu.Lock()
		c.stats.Received += ex.resp.Size()
		c.noteLimitLocked()
		c.mu.Unlock()
	}
	if ex.head != nil && c.cfg.Jar != nil {
		var cks []*http.Cookie
		for _, v := range ex.head.Header.Values("Set-Cookie") {
			if ck, err := http.ParseSetCookie(v); err == nil {
				cks = append(cks, ck)
			}
		}
		if len(cks) > 0 {
			c.cfg.Jar.SetCookies(it.u, cks)
		}
	}
	return ex, ex.resp
}

func (c *Crawler) capture(it *item, ex *exchange) *Capture {
	cp := &Capture{
		URL:        it.key,
		Via:        it.via,
		Depth:      it.depth,
		Hops:       it.hops,
		Embedded:   it.embedded,
		Redirects:  it.redirects,
		Date:       ex.start,
		Duration:   ex.end.Sub(ex.start),
		IP:         ex.ip,
		Request:    ex.request,
		Response:   ex.resp,
		Head:       ex.head,
		BodyOffset: ex.bodyOff,
		Truncated:  ex.truncated,
		Err:        ex.err,
		Attempts:   it.attempt + 1,
		parseLimit: c.cfg.ParseLimit(),
		sub:        &subDurable{},
	}
	return cp
}

// emit hands a capture to the sink and closes its spool.
func (c *Crawler) emit(cp *Capture) error {
	if c.cfg.Prepare != nil {
		if err := c.cfg.Prepare(cp); err != nil {
			if cp.Response != nil {
				cp.Response.Close()
			}
			return err
		}
	}
	c.sinkMu.Lock()
	err := c.sink.Capture(cp)
	c.sinkMu.Unlock()
	if cp.Response != nil {
		cp.Response.Close()
	}
	c.mu.Lock()
	c.stats.Done++
	if cp.Err != nil {
		c.stats.Failed++
	}
	if cp.Response != nil {
		c.stats.Bytes += cp.Response.Size()
		if !cp.Robots {
			c.stats.Pages++
			c.noteLimitLocked()
		}
	}
	c.mu.Unlock()
	return err
}

func (c *Crawler) skip(u, reason string) {
	c.mu.Lock()
	c.stats.Skipped++
	c.mu.Unlock()
	if c.cfg.OnSkip != nil {
		c.sinkMu.Lock()
		c.cfg.OnSkip(u, reason)
		c.sinkMu.Unlock()
	}
}

// retryable reports whether the outcome calls for another attempt, and the
// delay the server asked for (Retry-After), if any.
func (c *Crawler) retryable(ex *exchange) (bool, time.Duration) {
	if cutByLimit(ex.err) {
		return false, 0 // a tarpit would hold the crawl as long again
	}
	if ex.err != nil {
		return true, 0
	}
	switch ex.head.StatusCode {
	case 429, 503:
		if ra := ex.head.Header.Get("Retry-After"); ra != "" {
			d, ok := parseRetryAfter(ra, time.Now())
			if ok {
				return d <= c.cfg.MaxRetryAfter, d
			}
		}
		return true, 0
	case 500, 502, 504:
		return true, 0
	}
	return false, 0
}

// parseRetryAfter reads delay-seconds or an HTTP-date (RFC 9110 10.2.3).
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
		if n > 1<<31 {
			n = 1 << 31
		}
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}

// process fetches one queued URL (or a host's robots.txt) and hands the
// outcome to the sink.
func (c *Crawler) process(ctx context.Context, it *item, h *host) error {
	if it == robotsMarker {
		return c.fetchRobots(ctx, h)
	}
	if h.robots != nil && !h.robots.Test(it.u.RequestURI()) {
		c.skip(it.key, "robots.txt")
		return nil
	}
	ex, sp := c.fetch(ctx, it, h, false)
	if ctx.Err() != nil {
		if sp != nil {
			sp.Close()
		}
		return nil // interrupted: nothing half-done reaches the sink
	}
	if r := c.refusal(ex); r != "" {
		sp.Close()
		c.skip(it.key, r)
		return nil
	}
	if again, delay := c.retryable(ex); again && it.attempt < c.cfg.Retries {
		if sp != nil {
			sp.Close()
		}
		it.attempt++
		c.mu.Lock()
		if delay > 0 {
			if nb := time.Now().Add(delay); nb.After(h.notBefore) {
				h.notBefore = nb
			}
		} else {
			it.readyAt = time.Now().Add(c.cfg.RetryBackoff << (it.attempt - 1))
		}
		if it.readyAt.IsZero() {
			it.readyAt = time.Now()
		}
		c.pushLocked(it)
		c.mu.Unlock()
		return nil
	}
	cp := c.capture(it, ex)
	if ex.head != nil && (ex.err == nil || cutByLimit(ex.err)) {
		// a body cut by a limit is read for links as far as it came, as
		// one cut by MaxSize is
		c.addLinks(ctx, it, cp)
	}
	return c.emit(cp)
}

// refusal returns why the response of ex is not kept (MIME type, MinSize),
// or "". A refused response is complete, so there is nothing to retry.
func (c *Crawler) refusal(ex *exchange) string {
	if ex.refused != "" {
		return ex.refused
	}
	return c.cfg.sizeRefusal(ex)
}

// cutByLimit reports an exchange cut by MaxRequestTime or MinRate.
func cutByLimit(err error) bool {
	return errors.Is(err, ErrRequestTime) || errors.Is(err, ErrMinRate)
}

// addLinks extracts the capture's links and decides about each.
func (c *Crawler) addLinks(ctx context.Context, it *item, cp *Capture) {
	found := c.findLinks(ctx, it, cp)
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range found {
		c.decideLocked(it, &found[i])
	}
	cp.Links = found
}

// findLinks returns the links of a capture: its Location, the links
// Extract finds, and with Config.Render those of the rendered page.
func (c *Crawler) findLinks(ctx context.Context, it *item, cp *Capture) []Link {
	var found []Link
	var rendered []Link
	if c.renderable(cp) {
		var err error
		if rendered, err = c.render(ctx, it, cp); err != nil && ctx.Err() == nil {
			cp.Warnings = append(cp.Warnings, "not rendered: "+err.Error())
		}
	}
	st := cp.Status()
	if st >= 300 && st < 400 {
		if loc := cp.Head.Header.Get("Location"); loc != "" {
			if ref, err := url.Parse(strings.TrimSpace(loc)); err == nil {
				found = append(found, Link{URL: it.u.ResolveReference(ref).String(), Embedded: it.embedded, Redirect: true})
			} else if u, err := CanonicalURL(loc); err == nil {
				found = append(found, Link{URL: u.String(), Embedded: it.embedded, Redirect: true})
			}
		}
	}
	if st >= 200 && st < 300 || st == 304 {
		ls, err := c.cfg.Extract(cp)
		found = append(found, ls...)
		if err != nil && cp.Truncated == "" && cp.Err == nil {
			// a truncated body is expected to end badly
			cp.Warnings = append(cp.Warnings, "links not all read: "+err.Error())
		}
	}
	return mergeLinks(found, rendered)
}

// decideLocked decides whether link l found in it is taken, and queues it.
func (c *Crawler) decideLocked(it *item, l *Link) {
	u, err := CanonicalURL(l.URL)
	if err != nil {
		l.Reason = "not an http(s) URL"
		return
	}
	key := u.String()
	l.Canonical = key
	if r := c.cfg.Traps.check(u, key); r != "" {
		l.Reason = r
		return
	}
	fd, rule := c.cfg.Filters.decide(key)
	if fd < 0 {
		l.Reason = "filter -" + rule.Pattern
		return
	}
	in := fd > 0 || c.scope.Contains(u)
	n := &item{u: u, key: key, embedded: l.Embedded, via: it.key,
		fromHost: it.u.Host, fromDepth: it.depth, fromHops: it.hops}
	if l.Redirect {
		n.redirects = it.redirects + 1
		n.via = it.via
		n.embedded = it.embedded
		n.fromHost, n.fromDepth, n.fromHops = it.fromHost, it.fromDepth, it.fromHops
		n.depth, n.hops = it.depth, it.hops
		switch {
		case c.cfg.Redirects == RedirectsNone:
			l.Reason = "redirects not followed"
			return
		case n.redirects > c.cfg.MaxRedirects:
			l.Reason = "too many redirects"
			return
		case c.cfg.Redirects == RedirectsInScope:
			if it.seed && !in {
				// a start URL that moves takes its scope along
				c.scope = c.scope.with(u)
				in = true
			}
			if r := c.placeLocked(n, in, false); r != "" {
				l.Reason = r
				return
			}
		default:
			if in {
				n.hops = 0
			}
		}
		n.seed = it.seed
	} else if r := c.placeLocked(n, in, true); r != "" {
		l.Reason = r
		return
	}
	if c.cfg.Frontier == nil {
		if _, dup := c.seen[key]; dup {
			l.Taken, l.Reason = true, "duplicate"
			return
		}
	}
	if c.cfg.Traps.MaxQueryVariants > 0 && u.RawQuery != "" {
		pk := u.Scheme + "://" + u.Host + u.EscapedPath()
		if c.variants[pk] >= c.cfg.Traps.MaxQueryVariants {
			l.Reason = "trap: more than " + strconv.Itoa(c.cfg.Traps.MaxQueryVariants) + " query variants"
			return
		}
		c.variants[pk]++
	}
	l.Taken = true
	if c.cfg.Frontier != nil {
		// the frontier's seen set decides whether it is new
		c.found = append(c.found, n)
		return
	}
	c.seen[key] = struct{}{}
	c.pushLocked(n)
}

// placeLocked sets n's depth and hops from its source context and reports
// why it is refused ("" when taken). step is false for redirects, which
// stay at the depth of the URL that redirected.
func (c *Crawler) placeLocked(n *item, in, step bool) string {
	depth := n.fromDepth
	if step && !n.embedded {
		depth++
	}
	if !step {
		depth = n.depth
	}
	n.depth = depth
	switch {
	case in:
		if !n.embedded && c.cfg.MaxDepth >= 0 && depth > c.cfg.MaxDepth {
			return "depth"
		}
		n.hops = 0
	case n.embedded && n.u.Host == n.fromHost:
		// a requisite on the page's own host, outside the directory
		n.hops = n.fromHops
	default:
		n.hops = n.fromHops + 1
		if n.hops > c.cfg.ExtDepth {
			return "scope"
		}
	}
	return ""
}

// with returns a copy of s that also holds the scope of start URL u.
func (s *Scope) with(u *url.URL) *Scope {
	seeds := []*url.URL{u}
	n := NewScope(s.Mode, seeds)
	n.prefixes = append(append([]string(nil), s.prefixes...), n.prefixes...)
	for h := range s.hosts {
		n.hosts[h] = true
	}
	n.domains = append(append([]string(nil), s.domains...), n.domains...)
	return n
}

// fetchRobots fetches and records robots.txt for h (following up to five
// redirects, RFC 9309 2.3.1.2), then opens the host to its queued URLs.
func (c *Crawler) fetchRobots(ctx context.Context, h *host) error {
	var group *robotstxt.Group
	defer func() {
		c.mu.Lock()
		h.robots = group
		h.robotsState = robotsDone
		if group != nil && group.CrawlDelay > h.interval {
			h.gateMu.Lock() // pace reads interval under gateMu
			h.interval = min(group.CrawlDelay, 30*time.Second)
			h.gateMu.Unlock()
		}
		c.cond.Broadcast()
		c.mu.Unlock()
	}()
	base, _ := url.Parse(h.key + "/robots.txt")
	it := &item{u: base, key: base.String()}
	for hop := 0; hop <= 5; hop++ {
		rh := h
		if hop > 0 {
			c.mu.Lock()
			rh = c.hosts[it.u.Scheme+"://"+it.u.Host]
			c.mu.Unlock()
			if rh == nil {
				rh = &host{interval: c.interval}
			}
		}
		ex, sp := c.fetch(ctx, it, rh, true)
		if ctx.Err() != nil {
			if sp != nil {
				sp.Close()
			}
			return nil
		}
		cp := c.capture(it, ex)
		cp.Robots = true
		var data *robotstxt.RobotsData
		var next *url.URL
		if ex.err == nil && ex.head != nil {
			st := ex.head.StatusCode
			if st >= 300 && st < 400 {
				if loc := ex.head.Header.Get("Location"); loc != "" {
					if ref, err := url.Parse(strings.TrimSpace(loc)); err == nil {
						if nu, err := canonical(it.u.ResolveReference(ref)); err == nil {
							next = nu
							cp.Links = []Link{{URL: nu.String(), Canonical: nu.String(), Redirect: true, Taken: true}}
						}
					}
				}
			} else {
				var body []byte
				data, body = c.parseRobotsBody(cp)
				if data != nil {
					c.mu.Lock()
					h.robotsStatus, h.robotsBody = ex.head.StatusCode, body
					c.mu.Unlock()
				}
			}
		}
		if err := c.emit(cp); err != nil {
			return err
		}
		if data != nil {
			group = data.FindGroup(c.cfg.UserAgent)
			return nil
		}

		if next == nil {
			return nil // unreachable or bad: everything allowed
		}
		it = &item{u: next, key: next.String(), redirects: hop + 1}
	}
	return nil
}

func (c *Crawler) parseRobots(cp *Capture) *robotstxt.RobotsData {
	data, _ := c.parseRobotsBody(cp)
	return data
}

// parseRobotsBody parses a robots.txt capture and returns the body read.
func (c *Crawler) parseRobotsBody(cp *Capture) (*robotstxt.RobotsData, []byte) {
	st := cp.Status()
	var body []byte
	if st >= 200 && st < 300 {
		r, err := cp.Body()
		if err != nil {
			return nil, nil
		}
		maxRobotsSize := int(c.cfg.MaxRobotsSize)
		buf := make([]byte, 0, 4096)
		for len(buf) < maxRobotsSize {
			if len(buf) == cap(buf) {
				buf = append(buf, 0)[:len(buf)]
			}
			n, err := r.Read(buf[len(buf):min(cap(buf), maxRobotsSize)])
			buf = buf[:len(buf)+n]
			if err != nil {
				break
			}
		}
		r.Close()
		body = buf
	}
	data, err := robotstxt.FromStatusAndBytes(st, body)
	if err != nil {
		return nil, nil
	}
	return data, body
}
