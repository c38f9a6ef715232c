package crawl

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/arcport/arcport/lib/frontier"
	"github.com/arcport/arcport/lib/httpmsg"
	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/links"
	"github.com/arcport/arcport/lib/record"
)

// RedirectPolicy says which redirects (HTTP 301/302/303/307/308 and meta
// refresh) are followed. Every redirect response is recorded whatever the
// policy.
type RedirectPolicy int

const (
	// RedirectsInScope follows a redirect when its target would have been
	// taken had the page linked to it directly (chapter 4.3.2: HTTrack
	// follows redirects only "if the redirected place is allowed by the
	// scan rules"). It is the default.
	RedirectsInScope RedirectPolicy = iota
	// RedirectsAll follows every redirect (minus filters, robots and traps).
	RedirectsAll
	// RedirectsNone records redirects but never follows them.
	RedirectsNone
)

var redirectNames = [...]string{"in-scope", "all", "none"}

// String returns in-scope, all or none.
func (p RedirectPolicy) String() string {
	if int(p) < len(redirectNames) {
		return redirectNames[p]
	}
	return fmt.Sprintf("RedirectPolicy(%d)", int(p))
}

// ParseRedirectPolicy parses in-scope, all or none.
func ParseRedirectPolicy(s string) (RedirectPolicy, error) {
	for i, n := range redirectNames {
		if strings.EqualFold(s, n) {
			return RedirectPolicy(i), nil
		}
	}
	return 0, fmt.Errorf("bad redirect policy %q (want in-scope, all or none)", s)
}

// Config configures a crawl. Start from DefaultConfig: zero values of
// Connections, Timeout, SpoolMemory and the Traps fields mean their
// defaults, but a zero MaxDepth means "start URLs only".
type Config struct {
	// Seeds are the start URLs.
	Seeds []string
	// Scope decides which URLs belong to the mirror (default prefix).
	Scope ScopeMode
	// Filters are HTTrack scan rules, applied after the scope: the last
	// matching rule wins, + takes a URL even out of scope, - refuses it.
	Filters Filters
	// MaxDepth is how many links (hops) from a start URL are followed; a
	// page's embedded resources (images, style sheets, frames...) are taken
	// at the page's own depth. Negative means unlimited (-r).
	MaxDepth int
	// ExtDepth is how many hops outside the scope are followed (--ext-depth).
	ExtDepth int
	// Robots turns robots.txt on: fetched (and recorded) before the first
	// other request to each host, and obeyed, Crawl-delay included.
	Robots bool
	// UserAgent is sent with every request.
	UserAgent string
	// Header holds extra request fields; a field named like a default one
	// (User-Agent, Accept, Accept-Encoding, ...) replaces it.
	Header record.Header
	// Jar, when set, supplies and stores cookies (see LoadCookies).
	Jar http.CookieJar
	// Auth holds credentials by origin (see Origin: "scheme://host:port"),
	// sent as HTTP Basic authentication with every request to exactly that
	// origin, robots.txt included, and never to another scheme, host or
	// port, wherever a link or redirect leads. The Authorization field is
	// recorded as "Authorization: Basic [redacted]" (see Redacted).
	Auth map[string]Credential
	// Proxy is an http:// proxy; https URLs go through a CONNECT tunnel.
	// Its userinfo, if any, is sent as Proxy-Authorization, recorded
	// redacted like Authorization.
	Proxy *url.URL
	// TLSConfig is used for https (ServerName and ALPN are set per host).
	TLSConfig *tls.Config
	// Timeout bounds connecting and every wait for the server (default 30s).
	Timeout time.Duration
	// MaxRequestTime bounds one exchange, from the sending of the request
	// to the last byte of the response, whatever its rate (zero: default
	// 10 minutes; negative: no limit). A response cut by it is recorded as
	// received so far, with Truncated "time" and an error wrapping
	// ErrRequestTime, and not fetched again.
	MaxRequestTime time.Duration
	// MinRate is the slowest transfer tolerated, in bytes per second
	// averaged over each Timeout period from the response's first byte
	// (HTTrack's -J "traffic jam control"; 0: none). Time spent waiting
	// under MaxRate is not counted against the server. A response cut by it
	// is recorded like one cut by MaxRequestTime, its error wrapping
	// ErrMinRate: a tarpit trickling a byte now and then cannot hold a
	// connection for ever.
	MinRate int64
	// Retries is how often a failed fetch (network error, 429, 500, 502,
	// 503, 504) is tried again, with exponential backoff from RetryBackoff
	// (default 1s), or after Retry-After for 429 and 503 when that is at
	// most MaxRetryAfter (default 5m).
	Retries       int
	RetryBackoff  time.Duration
	MaxRetryAfter time.Duration
	// MaxSize truncates response bodies past this many bytes (0: no limit;
	// DefaultConfig sets DefaultMaxSize); such captures carry Truncated
	// "length" (WARC-Truncated: length).
	MaxSize int64
	// MaxSizeHTML and MaxSizeOther truncate, like MaxSize and besides it
	// (the smaller limit applies), the bodies of HTML pages (text/html,
	// application/xhtml+xml, and a page served without a type whose name
	// ends in .html or .htm) and of everything else (HTTrack's -mN,N2;
	// 0: no limit of that kind).
	MaxSizeHTML  int64
	MaxSizeOther int64
	// MinSize drops successful (2xx) responses whose body is smaller than
	// this many bytes, as received (without chunked framing, before
	// content decoding): not handed to the sink, links not followed,
	// reported to OnSkip (0: none dropped).
	MinSize int64
	// AcceptMIME and RejectMIME are media type patterns (see
	// ParseMIMEPattern: "text/html", "image/*") decided on the
	// Content-Type of successful (2xx but 204) responses, once the head is
	// received: with AcceptMIME a response must match one of them, and it
	// must match none of RejectMIME. A refused response is not read
	// further, not handed to the sink and its links are not followed
	// (reported to OnSkip as "mime TYPE"); without a Content-Type it is
	// application/octet-stream. Links are found in HTML pages: refusing
	// text/html ends the crawl at the start URLs.
	AcceptMIME []string
	RejectMIME []string
	// MaxTime, MaxPages and MaxBytes end the crawl (0: no limit), Run
	// then returning a *LimitError when URLs were left. MaxTime is counted
	// from the start of Run; fetches under way then are cut and dropped,
	// as on cancellation. MaxPages is the most captures handed to the
	// sink that hold a response (of any status; robots.txt and network
	// failures without a response not counted): the crawler never has
	// more URLs under way than it may still capture, so a site with
	// enough URLs gives exactly MaxPages. MaxBytes is a quota on the
	// response bytes received (heads and bodies as on the wire,
	// robots.txt, retries and refused responses included): once it is
	// reached no fetch starts, and those under way finish (wget's
	// --quota). With a Frontier the limits count this process's work in
	// this run only, and the URLs not fetched stay queued.
	MaxTime  time.Duration
	MaxPages int
	MaxBytes int64
	// MaxRobotsSize is how much of a robots.txt body is received and read
	// (zero: DefaultMaxRobotsSize, 500 KiB, as RFC 9309 2.5 allows); the
	// rules read up to there are obeyed, and the capture carries Truncated
	// "length".
	MaxRobotsSize int64
	// MaxParse bounds the decoded bytes of a document read for links
	// (default DefaultMaxParse, and never more than MaxSize when that is
	// set; see ParseLimit): a gzip body inflating to gigabytes is read up to
	// there, with a warning, while the capture keeps the response exactly
	// as received.
	MaxParse int64
	// Redirects is the redirect policy; MaxRedirects bounds a chain
	// (default 10).
	Redirects    RedirectPolicy
	MaxRedirects int
	// Connections is the number of simultaneous connections, in total and
	// per host (-c, default 4). PerHost, when set lower, bounds each host.
	Connections int
	PerHost     int
	// Rate is the most requests per second sent to one host (0: no limit).
	Rate float64
	// MaxRate caps the bytes per second read from the network over all
	// connections (0: no cap).
	MaxRate int64
	// Traps bounds URL shapes (loops, session URLs).
	Traps Traps
	// Extract finds the links of a capture (default LinksExtractor).
	Extract ExtractFunc
	// Render, when set, renders every complete successful HTML page
	// before its capture goes to the sink (lib/browser through the
	// caller): each request of the page is sent through the crawler and
	// recorded as an embedded capture of its own (see PageFetch), the
	// page's document answered from its capture. The links it returns are
	// added to those Extract finds (a page that fails to render keeps
	// these, with a warning).
	Render RenderFunc
	// Prepare, when set, is called with each capture by the worker that
	// fetched it, concurrently with other workers, before the capture goes
	// to the sink: the place for slow per-capture work (decoding a body to
	// disk) that need not be serialised. It may set Capture.Value for the
	// sink. An error stops the crawl.
	Prepare func(c *Capture) error
	// Validators, when set, gives the ETag and Last-Modified of a copy kept
	// from an earlier run: they are sent as If-None-Match and
	// If-Modified-Since so an unchanged resource comes back as 304.
	Validators func(url string) (etag, lastModified string)
	// OnSkip, when set, hears about queued URLs that were not captured,
	// with the reason: "robots.txt", "mime TYPE" (AcceptMIME, RejectMIME),
	// "size N < min-size M" (MinSize). Links refused are in Capture.Links.
	OnSkip func(url, reason string)
	// Resolve replaces DNS lookups (tests; /etc/hosts-like setups).
	Resolve func(ctx context.Context, host string) ([]net.IP, error)
	// TempDir holds spooled responses larger than SpoolMemory (default 1 MiB).
	TempDir     string
	SpoolMemory int

	// Frontier, when set, holds the crawl's state instead of the
	// crawler's memory (see lib/frontier): the queue, the seen set,
	// per-host politeness and a robots.txt cache. A frontier.Bolt makes the
	// crawl resumable; a frontier.Redis shares it with crawlers in other
	// processes. Its own Options (lease time, PerHost, Interval) then rule
	// politeness across all of them; Connections is this crawler's total.
	// Run adds the seeds (a no-op for seen URLs) and returns nil once
	// the frontier says the crawl is over (or stopped).
	Frontier frontier.Frontier
	// Worker names this crawler in leases (default HOST-PID).
	Worker string
	// Lease is the frontier's lease time: leases are renewed every third
	// of it while their URL is fetched and written (default 60 s).
	Lease time.Duration
	// Commit, when set, makes every capture the sink has accepted
	// durable (flushed and synced); with a Frontier a URL is marked done
	// only after the Commit that follows its capture. It is called from
	// one goroutine, between sink calls or beside them: it must be safe
	// to call while the sink writes; final is set for the last call.
	Commit func(final bool) error
	// CommitAsync lets a worker go on to its next URL before the Commit
	// that makes its capture durable (for outputs durable only in large
	// steps); otherwise it waits for it, and a killed crawl fetches again
	// at most Connections URLs.
	CommitAsync bool
	// Epoch and Durable, when set, replace Commit for an output made of
	// parts that become durable one at a time (S3 objects): Epoch is the
	// number of the part being written; Durable completes what it can
	// (everything when final) and returns the number of the first part not
	// yet durable. A capture whose URL finished under epoch e is done once
	// Durable returns more than e.
	Epoch   func() int64
	Durable func(final bool) (int64, error)
	// Recovered, when set, reports URLs whose captures are already in the
	// output (kept from a run killed before it could mark them done): such
	// a URL taken from the Frontier is marked done without a fetch.
	Recovered func(url string) bool
	// FrontierWait is how long a Frontier that fails (a Redis server
	// restarting, unreachable) is retried before the crawl fails (default
	// 5 minutes); Logf, when set, hears about the retries.
	FrontierWait time.Duration
	Logf         func(format string, a ...any)
	// Poll bounds the wait of an idle worker for URLs queued by other
	// processes (default 100 ms with a Frontier).
	Poll time.Duration
}

// DefaultMaxSize is mirrorget's default Config.MaxSize: bodies are cut
// after 1 GiB.
const DefaultMaxSize = 1 << 30

// DefaultMaxRobotsSize is the default Config.MaxRobotsSize: 500 KiB.
const DefaultMaxRobotsSize = 500 << 10

// DefaultMaxParse is the default of Config.MaxParse: 64 MiB of decoded
// document read for links.
const DefaultMaxParse = 64 << 20

// ParseLimit returns the decoded bytes of a document read for links:
// MaxParse (DefaultMaxParse when not set), at most MaxSize when that is set.
func (cfg *Config) ParseLimit() int64 {
	n := cfg.MaxParse
	if n <= 0 {
		n = DefaultMaxParse
	}
	if cfg.MaxSize > 0 && cfg.MaxSize < n {
		n = cfg.MaxSize
	}
	return n
}

// DefaultUserAgent names mirrorget and its version.
func DefaultUserAgent() string {
	return "mirrorget/" + cliutil.Version + " (+https://github.com/arcport/arcport)"
}

// DefaultMaxRequestTime is the default of Config.MaxRequestTime.
const DefaultMaxRequestTime = 10 * time.Minute

// DefaultMinRate is mirrorget's default minimum transfer rate (Config.MinRate),
// in bytes per second: 3000 bytes per default Timeout period of 30 s.
const DefaultMinRate = 100

// DefaultConfig returns the defaults of mirrorget's flags: prefix scope,
// unlimited depth, robots.txt on (500 KiB of it read), 4 connections,
// 30 s timeout, 10 minutes at most per request, at least 100 bytes/s,
// bodies cut after 1 GiB, 2 retries, at most 10 redirects followed in
// scope from a URL; the trap bounds' defaults are those of Traps.
func DefaultConfig() Config {
	return Config{
		MaxDepth:       -1,
		Robots:         true,
		UserAgent:      DefaultUserAgent(),
		Timeout:        30 * time.Second,
		MaxRequestTime: DefaultMaxRequestTime,
		MinRate:        DefaultMinRate,
		Retries:        2,
		RetryBackoff:   time.Second,
		MaxRetryAfter:  5 * time.Minute,
		MaxRedirects:   10,
		MaxSize:        DefaultMaxSize,
		MaxRobotsSize:  DefaultMaxRobotsSize,
		Connections:    4,
	}
}

// Link is a link found in a capture, and what the crawler did with it.
type Link struct {
	// URL is the absolute URL the link points to (no fragment).
	URL string
	// Embedded is true for page requisites (images, style sheets, scripts,
	// frames...), false for navigational links.
	Embedded bool
	// Redirect is true for a Location header or a meta refresh.
	Redirect bool
	// Src is the link as lib/links found it (byte span, syntax...) at its
	// first occurrence in the document, nil for a Location header.
	Src *links.Link

	// Canonical is the URL's canonical form ("" if it is not http(s)).
	Canonical string
	// Taken reports that the URL is (or was already) queued for fetching.
	Taken bool
	// Reason says why the link was not taken (scope, depth, "filter
	// -PATTERN" naming the scan rule, trap: ..., redirects not followed,
	// ...) or "duplicate" for a URL queued
	// before; "" for a newly queued URL.
	Reason string
}

// ExtractFunc finds the links of a capture, usually by reading c.Body.
type ExtractFunc func(c *Capture) ([]Link, error)

// Sink receives each completed fetch. The crawler calls it from one
// goroutine at a time, in completion order; the capture's Response is valid
// only until Capture returns. An error stops the crawl and is returned by
// Run.
type Sink interface {
	Capture(c *Capture) error
}

// SinkFunc adapts a function to Sink.
type SinkFunc func(c *Capture) error

// Capture calls f(c).
func (f SinkFunc) Capture(c *Capture) error { return f(c) }

// Capture is one completed fetch: the request as sent, the response as
// received, and what was learnt from it.
type Capture struct {
	// URL is the canonical URL fetched.
	URL string
	// Via is the URL of the page the link was found in ("" for start URLs
	// and robots.txt).
	Via string
	// Depth is the number of navigational hops from a start URL; Hops the
	// number of hops outside the scope.
	Depth, Hops int
	// Embedded is true for a page requisite.
	Embedded bool
	// Robots is true for a robots.txt fetch.
	Robots bool
	// Redirects is the number of redirects that led here.
	Redirects int
	// Date is when the request was sent (WARC-Date); Duration how long the
	// exchange took.
	Date     time.Time
	Duration time.Duration
	// IP is the address of the server (or proxy) connected to.
	IP string
	// Request holds the request bytes as sent, but for the credentials of
	// Authorization and Proxy-Authorization fields, replaced with Redacted
	// ("Authorization: Basic [redacted]").
	Request []byte
	// Response holds the response bytes exactly as received (interim 1xx
	// responses, head, body with its transfer and content codings). Nil
	// when nothing was received.
	Response *Spool
	// Head is the parsed final response head (nil when none was received).
	Head *httpmsg.Head
	// BodyOffset is where the body starts in Response.
	BodyOffset int64
	// Truncated is the WARC-Truncated reason when the response is
	// incomplete: "length" (MaxSize, MaxSizeHTML, MaxSizeOther), "time"
	// or "disconnect".
	Truncated string
	// Err is the network error that ended the fetch, if any (a capture
	// with an error may still hold a partial Response).
	Err error
	// Attempts is the number of times the URL was fetched (1 + retries).
	Attempts int
	// Links are the links found in the response, one per distinct URL
	// (and role: embedded, navigational, redirect) in the order of their
	// first occurrence, with the crawler's decision about each.
	Links []Link
	// Warnings are problems met while reading the response that did not
	// stop the crawl (a document read for links only up to
	// Config.ParseLimit, links after a token too large left unread); the
	// response itself is recorded as received.
	Warnings []string
	// Value is free for the caller (see Config.Prepare).
	Value any
	// Revisit, when set by the sink's caller (Prepare or the sink itself,
	// before WARCRecords), makes the response record a revisit of an
	// earlier capture (WARC 1.1 section 6.7).
	Revisit *Revisit
	// RecordID and PayloadDigest are set by WARCRecords: the response (or
	// revisit) record's WARC-Record-ID (kept when already set), and its
	// payload digest ("sha1:BASE32" of the body as received, when set
	// before), for the caller to keep.
	RecordID      string
	PayloadDigest string
	// OnDurable, when set (by Prepare or the sink), is called once the
	// capture is durable and its URL done in the Frontier (with a
	// Frontier only): the place to publish what refers to its record.
	OnDurable func()

	parseLimit int64 // Config.ParseLimit of the crawl, 0 for the default

	// sub holds the OnDurable of the captures a rendered page's requests
	// made (render.go): they are written before the page's own record, so
	// they are durable once it is. Made with the capture (Crawler.capture).
	sub *subDurable
}

// subDurable is a page's list of its requests' OnDurable.
type subDurable struct {
	mu sync.Mutex
	fs []func()
}

// addSubDurable keeps f, the OnDurable of a capture the page made.
func (c *Capture) addSubDurable(f func()) {
	if c.sub == nil { // not made by Crawler.capture
		f()
		return
	}
	c.sub.mu.Lock()
	c.sub.fs = append(c.sub.fs, f)
	c.sub.mu.Unlock()
}

// durable returns what to call once the capture is durable: its own
// OnDurable and those of the captures its rendering made.
func (c *Capture) durable() func() {
	var subs []func()
	if c.sub != nil {
		c.sub.mu.Lock()
		subs, c.sub.fs = c.sub.fs, nil
		c.sub.mu.Unlock()
	}
	own := c.OnDurable
	if len(subs) == 0 {
		return own
	}
	return func() {
		for _, f := range subs {
			f()
		}
		if own != nil {
			own()
		}
	}
}

// Status returns the final response status code, or 0.
func (c *Capture) Status() int {
	if c.Head == nil {
		return 0
	}
	return c.Head.StatusCode
}

// MIME returns the response media type (lower case, no parameters).
func (c *Capture) MIME() string {
	if c.Head == nil {
		return ""
	}
	return c.Head.MIME()
}

// Body opens the response body with its transfer coding (chunked) and
// content codings (gzip, deflate, br, zstd) removed. A truncated response
// gives a body that ends early (possibly with an error).
func (c *Capture) Body() (io.ReadCloser, error) {
	if c.Response == nil || c.Head == nil {
		return io.NopCloser(strings.NewReader("")), nil
	}
	var r io.Reader = c.Response.Section(c.BodyOffset, c.Response.Size()-c.BodyOffset)
	if c.Head.Chunked() {
		r = httpmsg.NewChunkedReader(r)
	}
	codings := c.Head.ContentEncoding()
	var closers []io.Closer
	for i := len(codings) - 1; i >= 0; i-- {
		d, err := httpmsg.Decoder(r, codings[i])
		if err != nil {
			for _, cl := range closers {
				cl.Close()
			}
			return nil, fmt.Errorf("%s: %w", c.URL, err)
		}
		closers = append(closers, d)
		r = d
	}
	return &bodyReader{r, closers}, nil
}

type bodyReader struct {
	io.Reader
	closers []io.Closer
}

func (b *bodyReader) Close() error {
	for i := len(b.closers) - 1; i >= 0; i-- {
		b.closers[i].Close()
	}
	return nil
}

// Stats are counters of a running crawl.
type Stats struct {
	Done    int   // captures handed to the sink
	Failed  int   // of which ended by a network error
	Queued  int   // URLs waiting
	Active  int   // fetches under way
	Skipped int   // queued URLs not captured (robots.txt, MIME type, MinSize)
	Bytes   int64 // response bytes of the captures (as on the wire)
	Started time.Time
	// Pages counts the captures that count against MaxPages: those with
	// a response, robots.txt not included.
	Pages int
	// Received counts every response byte received, retries and refused
	// responses included (MaxBytes).
	Received int64
}
