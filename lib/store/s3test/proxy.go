package s3test

import (
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"
)

// Stats counts what a Proxy passed on.
type Stats struct {
	// Requests is the number of requests the proxy received, faults
	// included.
	Requests int64
	// Gets is the number of GET requests among them.
	Gets int64
	// Bytes is the number of response body bytes sent to clients.
	Bytes int64
	// Faults is the number of injected faults (503 answers, cut response
	// bodies and corrupted request bodies).
	Faults int64
}

// Request is what the proxy logs of each request it receives.
type Request struct {
	Method string
	// Path and Query are the request's URL path and raw query.
	Path, Query string
	// Header is a copy of the request's header.
	Header http.Header
	// Fault is the fault injected into it, if any: "SlowDown" or
	// "Corrupt".
	Fault string
}

// Match selects the requests a fault applies to; nil matches every
// request.
type Match func(r *http.Request) bool

// UploadPart matches S3 UploadPart requests (PUT ?partNumber=N&uploadId=ID).
func UploadPart(r *http.Request) bool {
	q := r.URL.Query()
	return r.Method == http.MethodPut && q.Has("partNumber") && q.Has("uploadId")
}

// PutObject matches S3 PutObject requests (PUT without a multipart upload
// ID, a subresource or a copy source; ?x-id=PutObject, which the AWS SDKs
// add, allowed).
func PutObject(r *http.Request) bool {
	if r.Method != http.MethodPut || r.Header.Get("X-Amz-Copy-Source") != "" {
		return false
	}
	for k := range r.URL.Query() {
		if k != "x-id" {
			return false
		}
	}
	return true
}

// Proxy is a loopback reverse proxy in front of a real S3 (or HTTP) server
// that counts requests and bytes and injects faults on demand. Clients sign
// requests for the proxy's host; the proxy forwards the Host header as is,
// so signatures stay valid.
type Proxy struct {
	// URL is the proxy's endpoint, http://127.0.0.1:PORT.
	URL string

	mu        sync.Mutex
	stats     Stats
	log       []Request
	slow      int   // answer this many next requests with 503 SlowDown
	slowMatch Match // ... of those it matches
	bad       int   // corrupt the body of this many next requests
	badMatch  Match // ... of those it matches
	cut       int64 // cut the next GET response body after this many bytes (-1: none)
	cutN      int   // number of responses still to cut
	server    *httptest.Server
}

// NewProxy starts a proxy in front of target (for example Server.URL) and
// closes it when t ends.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatalf("s3test: proxy target %q: %v", target, err)
	}
	p := &Proxy{cut: -1}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ModifyResponse = p.modify
	// Flush every write, so that a cut body reaches the client up to the cut.
	rp.FlushInterval = -1
	rp.ErrorLog = log.New(io.Discard, "", 0)
	p.server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.stats.Requests++
		if r.Method == http.MethodGet {
			p.stats.Gets++
		}
		logged := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone()}
		slow := p.slow > 0 && (p.slowMatch == nil || p.slowMatch(r))
		if slow {
			p.slow--
			p.stats.Faults++
			logged.Fault = "SlowDown"
		} else if p.bad > 0 && r.ContentLength > 0 && (p.badMatch == nil || p.badMatch(r)) {
			p.bad--
			p.stats.Faults++
			logged.Fault = "Corrupt"
			r.Body = &flipBody{ReadCloser: r.Body, at: r.ContentLength / 2}
		}
		p.log = append(p.log, logged)
		p.mu.Unlock()
		if slow {
			// Read the body first, so that the client sees the answer,
			// not a connection closed while it sends.
			io.Copy(io.Discard, r.Body)
			slowDown(w, r)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	p.URL = p.server.URL
	t.Cleanup(p.server.Close)
	return p
}

// slowDown answers as S3 does when throttling.
func slowDown(w http.ResponseWriter, r *http.Request) {
	body := fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>`+"\n"+
		`<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message>`+
		`<Resource>%s</Resource><RequestId>S3TESTFAULT</RequestId></Error>`, r.URL.Path)
	w.Header().Set("Content-Type", "application/xml")
	w.Header().Set("Retry-After", "0")
	w.WriteHeader(http.StatusServiceUnavailable)
	io.WriteString(w, body)
}

func (p *Proxy) modify(resp *http.Response) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	limit := int64(-1)
	if resp.Request.Method == http.MethodGet && (resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusPartialContent) && p.cutN > 0 {
		p.cutN--
		p.stats.Faults++
		limit = p.cut
	}
	resp.Body = &countBody{ReadCloser: resp.Body, p: p, limit: limit}
	return nil
}

// errCut is the error a cut body ends with; ReverseProxy then aborts the
// response, so the client sees the connection close mid-body.
var errCut = errors.New("s3test: body cut by fault injection")

type countBody struct {
	io.ReadCloser
	p     *Proxy
	n     int64
	limit int64
}

func (b *countBody) Read(q []byte) (int, error) {
	if b.limit >= 0 {
		if b.n >= b.limit {
			return 0, errCut
		}
		if rest := b.limit - b.n; int64(len(q)) > rest {
			q = q[:rest]
		}
	}
	n, err := b.ReadCloser.Read(q)
	b.n += int64(n)
	b.p.mu.Lock()
	b.p.stats.Bytes += int64(n)
	b.p.mu.Unlock()
	return n, err
}

// SlowDown makes the proxy answer the next n requests with 503 SlowDown and
// the S3 XML error body, without passing them on.
func (p *Proxy) SlowDown(n int) {
	p.SlowDownIf(n, nil)
}

// SlowDownIf is SlowDown for the next n requests that m matches.
func (p *Proxy) SlowDownIf(n int, m Match) {
	p.mu.Lock()
	p.slow, p.slowMatch = n, m
	p.mu.Unlock()
}

// CorruptIf makes the proxy flip the bits of one byte, in the middle, of
// the body of the next n requests with a body that m matches (nil: any),
// as a faulty network or memory would; the length and headers are left
// as they are.
func (p *Proxy) CorruptIf(n int, m Match) {
	p.mu.Lock()
	p.bad, p.badMatch = n, m
	p.mu.Unlock()
}

// flipBody is a request body with the byte at offset at inverted.
type flipBody struct {
	io.ReadCloser
	n, at int64
}

func (b *flipBody) Read(q []byte) (int, error) {
	n, err := b.ReadCloser.Read(q)
	if b.at >= b.n && b.at < b.n+int64(n) {
		q[b.at-b.n] ^= 0xff
	}
	b.n += int64(n)
	return n, err
}

// Log returns the requests received so far (since the last Reset).
func (p *Proxy) Log() []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Request(nil), p.log...)
}

// Cut makes the proxy cut the body of the next n successful GET responses
// after k bytes: the client gets the full headers (Content-Length included),
// k bytes, then the connection closes.
func (p *Proxy) Cut(n int, k int64) {
	p.mu.Lock()
	p.cutN, p.cut = n, k
	p.mu.Unlock()
}

// Stats returns the counts so far.
func (p *Proxy) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stats
}

// Reset sets the counts to zero, empties the log and cancels pending
// faults.
func (p *Proxy) Reset() {
	p.mu.Lock()
	p.stats = Stats{}
	p.log = nil
	p.slow, p.cutN, p.cut, p.bad = 0, 0, -1, 0
	p.slowMatch, p.badMatch = nil, nil
	p.mu.Unlock()
}
