package crawl

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/time/rate"

	"github.com/arcport/arcport/lib/httpmsg"
	"github.com/arcport/arcport/lib/internal/syserr"
	"github.com/arcport/arcport/lib/record"
)

// The fetcher is a small HTTP/1.1 client written for archiving: it sends
// exactly the bytes it records as the request and records every byte read
// from the connection as the response, below any buffering, so a WARC
// response block is the message as it came off the wire (compressed,
// chunked, with 1xx interim responses). net/http's Transport cannot give
// that for HTTPS through a proxy and may negotiate HTTP/2; this client only
// speaks HTTP/1.1 (ALPN "http/1.1"), keeps connections alive in a pool,
// caches DNS answers and shapes its reads to a bandwidth cap.

// idleTimeout is how long an idle pooled connection is kept.
const idleTimeout = 30 * time.Second

type fetcher struct {
	timeout time.Duration
	maxTime time.Duration // per exchange, from the request's sending (<= 0: none)
	minRate int64         // bytes per second over each timeout period (0: none)
	proxy   *url.URL
	auth    map[string]Credential // by Origin
	tlsConf *tls.Config
	dialer  net.Dialer
	dns     *dnsCache
	bw      *rate.Limiter // bytes per second over all connections, nil: no cap
	bwChunk int
	maxOpen int
	noIdle  bool // close each connection after its exchange (see runShared)
	mu      sync.Mutex
	idle    map[string][]*wconn
	open    int
	dials   int // connections dialled, for tests and stats
}

func newFetcher(cfg *Config) *fetcher {
	f := &fetcher{
		timeout: cfg.Timeout,
		maxTime: cfg.MaxRequestTime,
		minRate: cfg.MinRate,
		proxy:   cfg.Proxy,
		auth:    cfg.Auth,
		maxOpen: cfg.Connections,
		idle:    map[string][]*wconn{},
	}
	f.tlsConf = cfg.TLSConfig.Clone()
	if f.tlsConf == nil {
		f.tlsConf = &tls.Config{}
	}
	f.tlsConf.NextProtos = []string{"http/1.1"}
	f.dialer = net.Dialer{Timeout: cfg.Timeout, KeepAlive: 30 * time.Second}
	if cfg.MaxRate > 0 {
		// chunks of a tenth of a second, between 1 KiB and 64 KiB
		chunk := int(cfg.MaxRate / 10)
		chunk = max(1024, min(chunk, 64<<10))
		f.bwChunk = chunk
		f.bw = rate.NewLimiter(rate.Limit(cfg.MaxRate), chunk)
		// A small receive buffer makes the cap hold as seen from the
		// server: the kernel cannot read megabytes ahead of us.
		rcv := max(4096, min(chunk*2, 256<<10))
		f.dialer.Control = func(_, _ string, c syscall.RawConn) error {
			var serr error
			err := c.Control(func(fd uintptr) {
				serr = setRcvBuf(fd, rcv)
			})
			if err != nil {
				return err
			}
			return serr
		}
	}
	f.dns = &dnsCache{m: map[string]*dnsEntry{}, ttl: 5 * time.Minute, lookup: cfg.Resolve}
	if f.dns.lookup == nil {
		f.dns.lookup = func(ctx context.Context, host string) ([]net.IP, error) {
			return net.DefaultResolver.LookupIP(ctx, "ip", host)
		}
	}
	return f
}

// wconn is one pooled connection.
type wconn struct {
	key    string
	nc     net.Conn
	cr     *connReader
	br     *bufio.Reader
	ip     string
	idleAt time.Time
	uses   int
}

// connReader reads from the network, records what it reads into the current
// exchange's spool, and applies the bandwidth cap and the limits of an
// exchange: the idle timeout, the request time limit (deadline) and the
// minimum transfer rate.
type connReader struct {
	nc      net.Conn
	f       *fetcher
	ctx     context.Context
	rec     *Spool
	n       int64 // bytes read in the current exchange
	recErr  error
	timeout time.Duration

	deadline time.Time // the exchange's time limit, zero for none
	winStart time.Time // the minimum rate's current window, from the first byte
	winBytes int64     // bytes read in that window
}

// ErrRequestTime is wrapped by the error of an exchange cut by
// Config.MaxRequestTime.
var ErrRequestTime = errors.New("request time limit reached")

// ErrMinRate is wrapped by the error of an exchange cut by Config.MinRate.
var ErrMinRate = errors.New("transfer slower than the minimum rate")

// startExchange resets the per-exchange state for a request sent at start.
func (c *connReader) startExchange(ctx context.Context, sp *Spool, start time.Time) {
	c.rec, c.n, c.recErr, c.ctx = sp, 0, nil, ctx
	c.deadline, c.winStart, c.winBytes = time.Time{}, time.Time{}, 0
	if c.f.maxTime > 0 {
		c.deadline = start.Add(c.f.maxTime)
	}
}

func (c *connReader) Read(p []byte) (int, error) {
	if c.f.bw != nil && len(p) > c.f.bwChunk {
		p = p[:c.f.bwChunk]
	}
	if c.timeout > 0 || !c.deadline.IsZero() {
		var dl time.Time
		if c.timeout > 0 {
			dl = time.Now().Add(c.timeout)
		}
		if !c.deadline.IsZero() && (dl.IsZero() || c.deadline.Before(dl)) {
			dl = c.deadline
		}
		c.nc.SetReadDeadline(dl)
	}
	// The exchange's cancellation sets a past deadline on the connection
	// (see once), which the line above would undo had it come between two
	// reads: a body arriving without pause would be read to its end. Checked
	// after setting the deadline, a cancellation is seen here or cuts the
	// read below.
	if c.ctx != nil && c.ctx.Err() != nil {
		return 0, c.ctx.Err()
	}
	n, err := c.nc.Read(p)
	if err != nil && !c.deadline.IsZero() && !time.Now().Before(c.deadline) {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			err = fmt.Errorf("%w (%v)", ErrRequestTime, c.f.maxTime)
		}
	}
	if n > 0 {
		c.n += int64(n)
		if c.rec != nil && c.recErr == nil {
			if _, werr := c.rec.Write(p[:n]); werr != nil {
				c.recErr = werr
				return n, werr
			}
		}
		if c.f.bw != nil && c.ctx != nil {
			t0 := time.Now()
			if werr := c.f.bw.WaitN(c.ctx, n); werr != nil {
				return n, c.ctx.Err()
			}
			// time spent under our own bandwidth cap is not the server's
			if !c.winStart.IsZero() {
				c.winStart = c.winStart.Add(time.Since(t0))
			}
		}
		if err == nil {
			err = c.checkRate(n)
		}
	}
	return n, err
}

// checkRate counts n bytes read in the minimum rate's window and fails
// when a window of the idle timeout's length brought fewer bytes than the
// rate asks (HTTrack's -J "traffic jam control"; windows start with the
// first byte of the response, so a server's thinking time is the idle
// timeout's business).
func (c *connReader) checkRate(n int) error {
	if c.f.minRate <= 0 || c.timeout <= 0 {
		return nil
	}
	now := time.Now()
	if c.winStart.IsZero() {
		c.winStart = now
	}
	c.winBytes += int64(n)
	el := now.Sub(c.winStart)
	if el < c.timeout {
		return nil
	}
	if float64(c.winBytes) < float64(c.f.minRate)*el.Seconds() {
		return fmt.Errorf("%w: %d bytes in %v, under %d bytes/s", ErrMinRate, c.winBytes, el.Round(time.Millisecond), c.f.minRate)
	}
	c.winStart, c.winBytes = now, 0
	return nil
}

// exchange is the outcome of one request.
type exchange struct {
	request   []byte // as recorded: credentials redacted
	wire      []byte // as sent
	resp      *Spool
	head      *httpmsg.Head // final (non-1xx) response head; nil if none
	bodyOff   int64         // offset of the body in resp
	ip        string
	start     time.Time
	end       time.Time
	truncated string // WARC-Truncated reason: length, time, disconnect
	refused   string // why the body policy refused the response (its body unread)
	err       error
	sent      bool // the request was written
}

// errStale marks a failure on a reused connection before any byte of the
// response: the server closed it while idle, so the request is sent again
// on a fresh connection.
var errStale = errors.New("stale keep-alive connection")

// bodyPolicy says, from a response head, how many body bytes are read
// before the body is cut (0: no limit), or why the response is refused.
type bodyPolicy func(h *httpmsg.Head) (maxSize int64, refused string)

// refusedDrain is the most body bytes read of a refused response so that
// its connection is kept; a longer body closes the connection.
const refusedDrain = 64 << 10

// do sends a GET for u with the header fields hdr (or, with a method
// other than "" or GET, that method with body on a fresh connection, never
// sent twice) and reads the response into sp. pace is called just before the request is written (politeness).
// policy (nil: read every body whole) bounds the body or refuses it; a
// refused response is not read past its head but for a short body (so
// that the connection serves again), and ex.refused says why.
func (f *fetcher) do(ctx context.Context, method string, u *url.URL, hdr record.Header, body []byte, pace func(context.Context) error, sp *Spool, policy bodyPolicy) *exchange {
	get := method == "" || method == "GET"
	for try := 0; ; try++ {
		ex := f.once(ctx, method, u, hdr, body, pace, sp, policy, try > 0 || !get)
		if errors.Is(ex.err, errStale) && try < 2 && ctx.Err() == nil && get {
			continue
		}
		return ex
	}
}

func (f *fetcher) once(ctx context.Context, method string, u *url.URL, hdr record.Header, body []byte, pace func(context.Context) error, sp *Spool, policy bodyPolicy, fresh bool) *exchange {
	ex := &exchange{}
	wc, err := f.getConn(ctx, u, fresh)
	if err != nil {
		ex.err = err
		return ex
	}
	ex.ip = wc.ip
	absForm := f.proxy != nil && u.Scheme == "http"
	var cred *Credential
	if c, ok := f.auth[Origin(u)]; ok {
		cred = &c
	}
	ex.wire, ex.request = buildRequest(u, hdr, absForm, f.proxy, cred)
	if method != "" && method != "GET" {
		ex.wire = withMethod(ex.wire, method, body)
		ex.request = withMethod(ex.request, method, body)
	}
	if pace != nil {
		if err := pace(ctx); err != nil {
			f.putConn(wc, true)
			ex.err = err
			return ex
		}
	}
	sp.truncate(0)
	ex.start = time.Now()
	wc.cr.startExchange(ctx, sp, ex.start)
	stop := context.AfterFunc(ctx, func() { wc.nc.SetDeadline(time.Unix(1, 0)) })
	reuse := false
	defer func() {
		stop()
		wc.cr.rec, wc.cr.ctx, wc.cr.deadline = nil, nil, time.Time{}
		f.putConn(wc, reuse)
	}()

	if f.timeout > 0 {
		dl := ex.start.Add(f.timeout)
		if !wc.cr.deadline.IsZero() && wc.cr.deadline.Before(dl) {
			dl = wc.cr.deadline
		}
		wc.nc.SetWriteDeadline(dl)
	}
	_, err = wc.nc.Write(ex.wire)
	if err != nil {
		ex.err = f.netErr(ctx, err, wc, true)
		return ex
	}
	ex.sent = true
	wc.uses++
	br := wc.br
	consumed := func() int64 { return wc.cr.n - int64(br.Buffered()) }

	head, err := readHead(br)
	if err != nil {
		if wc.cr.n == 0 {
			ex.err = f.netErr(ctx, err, wc, wc.uses > 1)
		} else {
			ex.resp = sp
			sp.truncate(consumed())
			ex.err = fmt.Errorf("bad response head: %w", f.netErr(ctx, err, wc, false))
			ex.truncated = truncReason(err)
		}
		ex.end = time.Now()
		return ex
	}
	ex.resp = sp
	ex.head = head
	ex.bodyOff = consumed()

	budget := int64(-1)
	if policy != nil {
		maxSize, refused := policy(head)
		if refused != "" {
			// the body is not wanted: a short one is read past so that
			// the connection serves again, a longer one closes it
			ex.refused = refused
			closeDelimited, err := readBody(br, head, refusedDrain, func() int64 { return consumed() - ex.bodyOff })
			ex.end = time.Now()
			sp.truncate(consumed()) // (counted as received, never recorded)
			reuse = err == nil && wc.cr.recErr == nil && !closeDelimited && br.Buffered() == 0 && keepAlive(head) && ctx.Err() == nil
			return ex
		}
		if maxSize > 0 {
			budget = maxSize
		}
	}
	closeDelimited, err := readBody(br, head, budget, func() int64 { return consumed() - ex.bodyOff })
	ex.end = time.Now()
	switch {
	case errors.Is(err, errTooBig):
		ex.truncated = "length"
		sp.truncate(ex.bodyOff + budget)
		return ex
	case err != nil:
		ex.err = f.netErr(ctx, err, wc, false)
		ex.truncated = truncReason(err)
		sp.truncate(consumed())
		return ex
	}
	if wc.cr.recErr != nil {
		ex.err = wc.cr.recErr
		return ex
	}
	sp.truncate(consumed())
	reuse = !closeDelimited && br.Buffered() == 0 && keepAlive(head) && ctx.Err() == nil
	return ex
}

// readHead reads a response head, passing over interim (1xx) responses,
// which stay in the recorded bytes as they were received.
func readHead(br *bufio.Reader) (*httpmsg.Head, error) {
	for interim := 0; ; interim++ {
		if interim > 32 {
			return nil, errors.New("more than 32 interim (1xx) responses")
		}
		head, err := httpmsg.ReadHead(br)
		if err == nil && !head.Complete {
			err = io.ErrUnexpectedEOF
		}
		if err == nil && head.Request {
			err = httpmsg.ErrNotHTTP
		}
		if err != nil {
			return nil, err
		}
		if head.StatusCode >= 100 && head.StatusCode < 200 && head.StatusCode != 101 {
			continue
		}
		return head, nil
	}
}

// readBody consumes the body of a GET response framed as head says (RFC
// 9112 6.3): none for 204, 304 and 101, chunked, Content-Length, or up to
// the end of the connection (closeDelimited). It stops with errTooBig past
// budget body bytes (used reports those consumed so far).
func readBody(br *bufio.Reader, head *httpmsg.Head, budget int64, used func() int64) (closeDelimited bool, err error) {
	switch {
	case head.StatusCode == 204 || head.StatusCode == 304 || head.StatusCode == 101:
		return false, nil
	case head.Chunked():
		return false, skipChunked(br, budget, used)
	case head.ContentLength() >= 0:
		return false, discardN(br, head.ContentLength(), budget)
	}
	return true, discardN(br, -1, budget)
}

// netErr turns a read or write error into the error to report, marking
// failures of a reused connection before any response byte as stale.
func (f *fetcher) netErr(ctx context.Context, err error, wc *wconn, maybeStale bool) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if maybeStale && wc.uses > 1 && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		syserr.ConnReset(err) || syserr.BrokenPipe(err) || errors.Is(err, httpmsg.ErrNotHTTP)) {
		return fmt.Errorf("%w: %v", errStale, err)
	}
	if errors.Is(err, httpmsg.ErrNotHTTP) && wc.cr.n == 0 {
		return fmt.Errorf("connection closed without a response: %w", io.EOF)
	}
	return err
}

func truncReason(err error) string {
	if errors.Is(err, ErrRequestTime) || errors.Is(err, ErrMinRate) {
		return "time"
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, os.ErrDeadlineExceeded) {
		return "time"
	}
	return "disconnect"
}

var errTooBig = errors.New("response larger than the size limit")

// discardN consumes n bytes (n < 0: until EOF) from br, failing with
// errTooBig once more than budget bytes (budget < 0: no limit) would be
// needed.
func discardN(br *bufio.Reader, n, budget int64) error {
	want, limited := n, false
	if budget >= 0 && (n < 0 || n > budget) {
		want, limited = budget, true
	}
	if want < 0 {
		for {
			if _, err := br.Discard(1 << 20); err != nil {
				if err == io.EOF {
					return nil
				}
				return err
			}
		}
	}
	for want > 0 {
		d, err := br.Discard(int(min(want, 1<<20)))
		want -= int64(d)
		if err != nil {
			if err == io.EOF {
				if n < 0 {
					return nil
				}
				return io.ErrUnexpectedEOF
			}
			return err
		}
	}
	if !limited {
		return nil
	}
	if n < 0 {
		if _, err := br.Peek(1); err == io.EOF {
			return nil // exactly budget bytes, then the end
		}
	}
	return errTooBig
}

// skipChunked consumes a chunked body, trailers included, exactly up to its
// end. used reports the body bytes consumed so far (for the size budget).
func skipChunked(br *bufio.Reader, budget int64, used func() int64) error {
	for {
		line, err := readCRLFLine(br)
		if err != nil {
			return err
		}
		sz := strings.TrimSpace(line)
		if i := strings.IndexByte(sz, ';'); i >= 0 {
			sz = strings.TrimSpace(sz[:i])
		}
		n, perr := strconv.ParseUint(sz, 16, 63)
		if perr != nil {
			return fmt.Errorf("bad chunk size %q", sz)
		}
		if n == 0 {
			for {
				t, err := readCRLFLine(br)
				if err != nil {
					return err
				}
				if t == "" {
					return nil
				}
			}
		}
		left := int64(-1)
		if budget >= 0 {
			left = budget - used()
			if left < 0 {
				return errTooBig
			}
		}
		if err := discardN(br, int64(n), left); err != nil {
			return err
		}
		if _, err := readCRLFLine(br); err != nil {
			return err
		}
	}
}

func readCRLFLine(br *bufio.Reader) (string, error) {
	var b []byte
	for {
		frag, err := br.ReadSlice('\n')
		b = append(b, frag...)
		if len(b) > 64<<10 {
			return "", errors.New("chunk line too long")
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if err == io.EOF {
				return "", io.ErrUnexpectedEOF
			}
			return "", err
		}
		return strings.TrimRight(string(b), "\r\n"), nil
	}
}

func keepAlive(h *httpmsg.Head) bool {
	tokens := strings.ToLower(strings.Join(h.Header.Values("Connection"), ","))
	has := func(t string) bool {
		for _, p := range strings.Split(tokens, ",") {
			if strings.TrimSpace(p) == t {
				return true
			}
		}
		return false
	}
	if has("close") {
		return false
	}
	if h.Proto == "HTTP/1.1" {
		return true
	}
	return h.Proto == "HTTP/1.0" && has("keep-alive")
}

// buildRequest writes the request head: request line, Host, then hdr in
// order, then Authorization with cred (when not nil and hdr has none). absForm
// writes the absolute URL as request target (HTTP proxy), with
// Proxy-Authorization when the proxy URL has a userinfo. It returns the
// request to send and the request to record, the same but for the values
// of Authorization and Proxy-Authorization fields, redacted in the latter.
func buildRequest(u *url.URL, hdr record.Header, absForm bool, proxy *url.URL, cred *Credential) (wire, recorded []byte) {
	target := u.RequestURI()
	if absForm {
		target = u.Scheme + "://" + u.Host + target
	}
	var b, r strings.Builder
	line := func(name, value string) {
		for _, w := range []*strings.Builder{&b, &r} {
			w.WriteString(name)
			w.WriteString(": ")
			if w == &r && isAuthField(name) {
				w.WriteString(redactAuth(value))
			} else {
				w.WriteString(value)
			}
			w.WriteString("\r\n")
		}
	}
	b.WriteString("GET " + target + " HTTP/1.1\r\n")
	r.WriteString("GET " + target + " HTTP/1.1\r\n")
	line("Host", u.Host)
	hasAuth := false
	for _, f := range hdr {
		line(f.Name, f.Value)
		hasAuth = hasAuth || strings.EqualFold(f.Name, "Authorization")
	}
	if cred != nil && !hasAuth {
		line("Authorization", cred.basic())
	}
	if absForm && proxy != nil && proxy.User != nil {
		line("Proxy-Authorization", proxyAuth(proxy))
	}
	b.WriteString("\r\n")
	r.WriteString("\r\n")
	return []byte(b.String()), []byte(r.String())
}

// withMethod turns a GET request head made by buildRequest into one of
// method with body (and its Content-Length).
func withMethod(req []byte, method string, body []byte) []byte {
	out := make([]byte, 0, len(req)+len(method)+len(body)+32)
	out = append(out, method...)
	out = append(out, req[len("GET"):len(req)-2]...) // up to the blank line
	out = append(out, "Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"...)
	return append(out, body...)
}

func proxyAuth(p *url.URL) string {
	pw, _ := p.User.Password()
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(p.User.Username()+":"+pw))
}

func connKey(u *url.URL, proxy *url.URL) string {
	k := u.Scheme + "://" + u.Host
	if proxy != nil {
		k = "proxy " + proxy.Host + " " + k
		if u.Scheme == "http" {
			k = "proxy " + proxy.Host
		}
	}
	return k
}

// getConn returns an idle pooled connection for u, or dials one. The number
// of open connections never exceeds maxOpen: the oldest idle connection is
// closed to make room.
func (f *fetcher) getConn(ctx context.Context, u *url.URL, fresh bool) (*wconn, error) {
	key := connKey(u, f.proxy)
	f.mu.Lock()
	now := time.Now()
	if !fresh {
		for l := f.idle[key]; len(l) > 0; l = f.idle[key] {
			wc := l[len(l)-1]
			f.idle[key] = l[:len(l)-1]
			if now.Sub(wc.idleAt) > idleTimeout {
				f.closeLocked(wc)
				continue
			}
			f.mu.Unlock()
			return wc, nil
		}
	}
	if f.maxOpen > 0 {
		for f.open >= f.maxOpen && f.evictOldestLocked() {
		}
	}
	f.open++
	f.dials++
	f.mu.Unlock()
	wc, err := f.dial(ctx, u, key)
	if err != nil {
		f.mu.Lock()
		f.open--
		f.mu.Unlock()
		return nil, err
	}
	return wc, nil
}

func (f *fetcher) evictOldestLocked() bool {
	var oldest *wconn
	for _, l := range f.idle {
		for _, wc := range l {
			if oldest == nil || wc.idleAt.Before(oldest.idleAt) {
				oldest = wc
			}
		}
	}
	if oldest == nil {
		return false
	}
	l := f.idle[oldest.key]
	for i, wc := range l {
		if wc == oldest {
			f.idle[oldest.key] = append(l[:i], l[i+1:]...)
			break
		}
	}
	f.closeLocked(oldest)
	return true
}

func (f *fetcher) closeLocked(wc *wconn) {
	wc.nc.Close()
	f.open--
}

// putConn returns a connection to the pool, or closes it.
func (f *fetcher) putConn(wc *wconn, reuse bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !reuse || f.noIdle {
		f.closeLocked(wc)
		return
	}
	wc.nc.SetDeadline(time.Time{})
	wc.idleAt = time.Now()
	f.idle[wc.key] = append(f.idle[wc.key], wc)
}

// closeIdle closes every idle connection.
func (f *fetcher) closeIdle() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, l := range f.idle {
		for _, wc := range l {
			f.closeLocked(wc)
		}
		delete(f.idle, k)
	}
}

func defaultPort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

func (f *fetcher) dial(ctx context.Context, u *url.URL, key string) (*wconn, error) {
	if f.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.timeout)
		defer cancel()
	}
	host, port := u.Hostname(), defaultPort(u)
	var nc net.Conn
	var err error
	if f.proxy != nil {
		ph, pp := f.proxy.Hostname(), defaultPort(f.proxy)
		nc, err = f.dialHost(ctx, ph, pp)
		if err != nil {
			return nil, fmt.Errorf("proxy %s: %w", f.proxy.Host, err)
		}
		if u.Scheme == "https" {
			if err := f.connect(ctx, nc, net.JoinHostPort(host, port)); err != nil {
				nc.Close()
				return nil, err
			}
		}
	} else {
		nc, err = f.dialHost(ctx, host, port)
		if err != nil {
			return nil, err
		}
	}
	ip := ""
	if ta, ok := nc.RemoteAddr().(*net.TCPAddr); ok {
		ip = ta.IP.String()
	}
	if u.Scheme == "https" {
		conf := f.tlsConf.Clone()
		if conf.ServerName == "" {
			conf.ServerName = host
		}
		tc := tls.Client(nc, conf)
		if err := tc.HandshakeContext(ctx); err != nil {
			nc.Close()
			return nil, fmt.Errorf("TLS handshake with %s: %w", u.Host, err)
		}
		nc = tc
	}
	wc := &wconn{key: key, nc: nc, ip: ip}
	wc.cr = &connReader{nc: nc, f: f, timeout: f.timeout}
	wc.br = bufio.NewReaderSize(wc.cr, 32<<10)
	return wc, nil
}

func (f *fetcher) dialHost(ctx context.Context, host, port string) (net.Conn, error) {
	ips, err := f.dns.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	var first error
	for _, ip := range ips {
		nc, err := f.dialer.DialContext(ctx, "tcp", net.JoinHostPort(ip.String(), port))
		if err == nil {
			return nc, nil
		}
		if first == nil {
			first = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, first
}

// connect opens a tunnel through an HTTP proxy (RFC 9110 9.3.6).
func (f *fetcher) connect(ctx context.Context, nc net.Conn, hostport string) error {
	if dl, ok := ctx.Deadline(); ok {
		nc.SetDeadline(dl)
		defer nc.SetDeadline(time.Time{})
	}
	// a cancellation (a signal) cuts the exchange with the proxy at once
	stop := context.AfterFunc(ctx, func() { nc.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	req := "CONNECT " + hostport + " HTTP/1.1\r\nHost: " + hostport + "\r\n"
	if f.proxy.User != nil {
		req += "Proxy-Authorization: " + proxyAuth(f.proxy) + "\r\n"
	}
	req += "\r\n"
	if _, err := io.WriteString(nc, req); err != nil {
		return fmt.Errorf("proxy CONNECT: %w", err)
	}
	// read the reply byte by byte so nothing of the tunnel is buffered away
	br := bufio.NewReaderSize(&oneByteReader{nc}, 16)
	h, err := httpmsg.ReadHead(br)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("proxy CONNECT: %w", err)
	}
	if h.StatusCode < 200 || h.StatusCode > 299 {
		return fmt.Errorf("proxy CONNECT %s: %s %s", hostport, h.Status, h.Reason)
	}
	return nil
}

type oneByteReader struct{ r io.Reader }

func (o *oneByteReader) Read(p []byte) (int, error) {
	if len(p) > 1 {
		p = p[:1]
	}
	return o.r.Read(p)
}

// dnsCache resolves each host once per TTL, one lookup at a time per host.
type dnsCache struct {
	mu      sync.Mutex
	m       map[string]*dnsEntry
	ttl     time.Duration
	lookup  func(ctx context.Context, host string) ([]net.IP, error)
	lookups int
}

type dnsEntry struct {
	done chan struct{}
	ips  []net.IP
	err  error
	at   time.Time
}

func (d *dnsCache) resolve(ctx context.Context, host string) ([]net.IP, error) {
	if ip := net.ParseIP(strings.Trim(host, "[]")); ip != nil {
		return []net.IP{ip}, nil
	}
	d.mu.Lock()
	e := d.m[host]
	if e != nil {
		select {
		case <-e.done:
			ttl := d.ttl
			if e.err != nil {
				ttl = 30 * time.Second
			}
			if time.Since(e.at) > ttl {
				e = nil
			}
		default: // a lookup is under way: wait for it
		}
	}
	if e == nil {
		e = &dnsEntry{done: make(chan struct{})}
		d.m[host] = e
		d.lookups++
		go func() {
			lctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			ips, err := d.lookup(lctx, host)
			if err == nil && len(ips) == 0 {
				err = fmt.Errorf("no address for %s", host)
			}
			e.ips, e.err, e.at = ips, err, time.Now()
			close(e.done)
		}()
	}
	d.mu.Unlock()
	select {
	case <-e.done:
		return e.ips, e.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
