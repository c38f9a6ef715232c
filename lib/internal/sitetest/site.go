// Package sitetest serves a generated website for crawler tests (mirrorget
// run as several worker processes sharing a frontier, killed and resumed):
// a real net/http server in the test process, on real loopback sockets, one
// listener per host 127.0.0.2, 127.0.0.3, ... all on the same free port
// (Linux routes the whole of 127.0.0.0/8 to lo, so these addresses need no
// setup). It records every request - when it started and ended, from which
// connection, whether the answer was completed - so that tests can check
// that a crawl fetched every page exactly once and was polite (requests per
// window, requests in flight, connections open per host).
//
// The site is deterministic: page i (/p/i.html) lives on host i%Hosts and
// links page i+1 (a chain through every host, so every page is reachable
// from StartURL) and Links-1 pseudo-random other pages, same-host ones as
// relative links and others as absolute URLs. Its body carries the marker
// "page-%06d" (Marker), which no other page carries, so that a test can look
// for each page in WARC output; with Requisites it also embeds /img/i.gif,
// a 1x1 GIF whose comment holds "img-%06d". Only the port in the absolute
// links changes from run to run.
//
// PagesIn and PagesInPartial read WARC files (those of a killed worker
// included) and count the response records of each URL.
package sitetest

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Options describes a Site. The zero value serves one page on one host.
type Options struct {
	// Pages is the number of HTML pages (at least 1), page i on host
	// i%Hosts.
	Pages int
	// Hosts is the number of loopback hosts, 127.0.0.2 up (at least 1, at
	// most 250).
	Hosts int
	// Latency is added to every response (robots.txt and 404s included),
	// before the status line is written. A request whose client goes away
	// during it is never answered (it counts as started, not as fetched).
	Latency time.Duration
	// Links is the number of links on each page (default 5): page i+1
	// (modulo Pages) first, then distinct pseudo-random others (never the
	// page itself), as many as there are other pages.
	Links int
	// Requisites embeds one image per page, <img src="/img/i.gif"> on the
	// page's host; AllURLs then lists the images too. Without it
	// /img/i.gif is 404.
	Requisites bool
	// PageSize pads each page's body with filler text to at least this
	// many bytes (bodies are a few hundred bytes without it).
	PageSize int
	// Robots is the body of every host's /robots.txt (text/plain), e.g.
	// "User-agent: *\nCrawl-delay: 1\n"; empty means 404.
	Robots string
	// RobotsHost overrides Robots for some hosts (by index); an empty
	// string there means 404.
	RobotsHost map[int]string
}

// Req is one request a host received.
type Req struct {
	Method string
	Path   string // the request URI as sent: path and query
	Remote string // the client's address, ip:port (one per connection)
	Start  time.Time
	// End is when the request ended: just before the last byte of the
	// answer was sent (so a client holding the whole answer finds it
	// ended and counted), or when it was given up. Zero while in flight.
	End time.Time
	// Status is the status written, 0 if none was.
	Status int
	// Completed is true when the whole answer was written, its last byte
	// and the flush included, without error.
	Completed bool
}

// Marker returns the string that marks page i's body and no other page's:
// "page-000123".
func Marker(i int) string { return fmt.Sprintf("page-%06d", i) }

// ImageMarker returns the string in the comment of image i: "img-000123".
func ImageMarker(i int) string { return fmt.Sprintf("img-%06d", i) }

// Site is a running site. Its methods are safe for concurrent use.
type Site struct {
	t     testing.TB
	o     Options
	port  int
	hosts []*host

	mu        sync.Mutex
	bodyBytes int64          // response body bytes sent to GETs
	started   map[string]int // "h path" -> GETs received
	fetched   map[string]int // "h path" -> GETs completed
	total     int            // completed GETs of content URLs
	changed   chan struct{}  // closed and replaced when total grows
	fail      map[string]failure
	gate      chan struct{} // nil unless paused
	closed    bool
	inflight  int // over all hosts
	maxInfl   int
	open      int // connections over all hosts
	maxOpen   int
}

type failure struct{ n, status int }

type host struct {
	idx  int
	ip   string
	srv  *http.Server
	ln   net.Listener
	reqs []*Req // guarded by Site.mu

	inflight, maxInfl int // guarded by Site.mu
	open, maxOpen     int // guarded by Site.mu
	conns             int // accepted, guarded by Site.mu
	done              chan struct{}
}

// Start serves a site described by o until t's cleanup (or Close).
func Start(t testing.TB, o Options) *Site {
	t.Helper()
	if o.Pages < 1 {
		o.Pages = 1
	}
	if o.Hosts < 1 {
		o.Hosts = 1
	}
	if o.Hosts > 250 {
		t.Fatalf("sitetest: %d hosts, at most 250", o.Hosts)
	}
	if o.Links <= 0 {
		o.Links = 5
	}
	s := &Site{
		t: t, o: o,
		started: map[string]int{},
		fetched: map[string]int{},
		changed: make(chan struct{}),
		fail:    map[string]failure{},
	}
	lns, err := listenAll(o.Hosts)
	if err != nil {
		t.Fatalf("sitetest: %v", err)
	}
	s.port = lns[0].Addr().(*net.TCPAddr).Port
	for i, ln := range lns {
		h := &host{idx: i, ip: hostIP(i), ln: ln, done: make(chan struct{})}
		h.srv = &http.Server{
			Handler:           http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.serve(h, w, r) }),
			ConnState:         func(_ net.Conn, st http.ConnState) { s.connState(h, st) },
			ReadHeaderTimeout: time.Minute,
		}
		s.hosts = append(s.hosts, h)
		go func() {
			defer close(h.done)
			h.srv.Serve(ln)
		}()
	}
	t.Cleanup(s.Close)
	return s
}

func hostIP(i int) string { return "127.0.0." + strconv.Itoa(i+2) }

// listenAll listens on 127.0.0.2 ... on one port, chosen free: the first
// host's ephemeral port, tried on the others (again with another port if
// one of them has it taken).
func listenAll(n int) ([]net.Listener, error) {
	var last error
	for range 50 {
		first, err := net.Listen("tcp", hostIP(0)+":0")
		if err != nil {
			return nil, err
		}
		lns := []net.Listener{first}
		port := strconv.Itoa(first.Addr().(*net.TCPAddr).Port)
		for i := 1; i < n; i++ {
			ln, err := net.Listen("tcp", hostIP(i)+":"+port)
			if err != nil {
				last = err
				break
			}
			lns = append(lns, ln)
		}
		if len(lns) == n {
			return lns, nil
		}
		for _, ln := range lns {
			ln.Close()
		}
	}
	return nil, fmt.Errorf("no port free on all of %d loopback hosts: %v", n, last)
}

// Close stops every host: listeners and connections are closed, paused
// requests released, and it waits for the servers to stop. It runs on t's
// cleanup; calling it more than once is fine.
func (s *Site) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	if s.gate != nil {
		close(s.gate)
		s.gate = nil
	}
	s.mu.Unlock()
	for _, h := range s.hosts {
		h.srv.Close()
		<-h.done
	}
}

// Options returns the options the site runs with, defaults filled in.
func (s *Site) Options() Options { return s.o }

// Port returns the port every host listens on.
func (s *Site) Port() int { return s.port }

// HostURL returns host h's root, "http://127.0.0.N:PORT" (no slash).
func (s *Site) HostURL(h int) string { return "http://" + hostIP(h) + ":" + strconv.Itoa(s.port) }

// HostAddr returns host h's address, "127.0.0.N:PORT".
func (s *Site) HostAddr(h int) string { return hostIP(h) + ":" + strconv.Itoa(s.port) }

// HostOf returns the host of page i.
func (s *Site) HostOf(i int) int { return i % s.o.Hosts }

// StartURL returns the URL of page 0, on host 0.
func (s *Site) StartURL() string { return s.PageURL(0) }

// PageURL returns page i's URL, http://127.0.0.N:PORT/p/i.html.
func (s *Site) PageURL(i int) string {
	return s.HostURL(s.HostOf(i)) + pagePath(i)
}

// ImageURL returns image i's URL, http://127.0.0.N:PORT/img/i.gif (on the
// host of page i; 404 without Requisites).
func (s *Site) ImageURL(i int) string {
	return s.HostURL(s.HostOf(i)) + imagePath(i)
}

// RobotsURL returns host h's robots.txt URL.
func (s *Site) RobotsURL(h int) string { return s.HostURL(h) + "/robots.txt" }

func pagePath(i int) string  { return "/p/" + strconv.Itoa(i) + ".html" }
func imagePath(i int) string { return "/img/" + strconv.Itoa(i) + ".gif" }

// AllURLs returns every URL a full crawl must capture: the pages in order,
// then (with Requisites) the images in order. robots.txt is not in it.
func (s *Site) AllURLs() []string {
	var out []string
	for i := range s.o.Pages {
		out = append(out, s.PageURL(i))
	}
	if s.o.Requisites {
		for i := range s.o.Pages {
			out = append(out, s.ImageURL(i))
		}
	}
	return out
}

// Links returns the pages page i links to, in page order: i+1 first.
func (s *Site) Links(i int) []int { return links(i, s.o.Pages, s.o.Links) }

// LinkURLs returns the absolute URLs of the pages page i links to.
func (s *Site) LinkURLs(i int) []string {
	var out []string
	for _, k := range s.Links(i) {
		out = append(out, s.PageURL(k))
	}
	return out
}

// links: i+1, then pseudo-random distinct others, never i.
func links(i, pages, n int) []int {
	if pages < 2 {
		return nil
	}
	n = min(n, pages-1)
	out := []int{(i + 1) % pages}
	seen := map[int]bool{i: true, out[0]: true}
	for j := uint64(1); len(out) < n; j++ {
		k := int(mix(uint64(i)<<20^j) % uint64(pages))
		for seen[k] {
			k = (k + 1) % pages
		}
		seen[k] = true
		out = append(out, k)
	}
	return out
}

// mix is splitmix64's finalizer.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

const filler = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. "

// Page returns page i's body as served.
func (s *Site) Page(i int) []byte {
	var b strings.Builder
	m := Marker(i)
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Page %d (%s)</title></head>\n<body>\n<h1>%s</h1>\n", i, m, m)
	fmt.Fprintf(&b, "<p>This is page %d of %d on host %d. %s</p>\n", i, s.o.Pages, s.HostOf(i), filler)
	if s.o.Requisites {
		fmt.Fprintf(&b, "<p><img src=\"%s\" alt=\"image %d\"></p>\n", imagePath(i), i)
	}
	b.WriteString("<ul>\n")
	for j, k := range s.Links(i) {
		var href string
		switch {
		case s.HostOf(k) != s.HostOf(i):
			href = s.PageURL(k)
		case j%2 == 0:
			href = pagePath(k)
		default:
			href = strconv.Itoa(k) + ".html" // relative to /p/
		}
		fmt.Fprintf(&b, "<li><a href=\"%s\">link %d</a></li>\n", href, j)
	}
	b.WriteString("</ul>\n")
	const end = "</body></html>\n"
	if pad := s.o.PageSize - b.Len() - len(end) - len("<p>\n</p>\n"); pad > 0 {
		b.WriteString("<p>\n")
		for pad > 0 {
			line := filler[:min(len(filler)-1, pad-1)]
			b.WriteString(line)
			b.WriteString("\n")
			pad -= len(line) + 1
		}
		b.WriteString("</p>\n")
	}
	b.WriteString(end)
	return []byte(b.String())
}

// Image returns image i: a 1x1 GIF with the comment ImageMarker(i).
func Image(i int) []byte {
	c := ImageMarker(i)
	b := []byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00")
	b = append(b, 0x21, 0xfe, byte(len(c)))
	b = append(b, c...)
	b = append(b, 0)
	return append(b, ",\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"...)
}

// lastModified is the Last-Modified of every page and image.
var lastModified = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC).Format(http.TimeFormat)

// What a path of a host is.
const (
	notFound = iota
	robotsTxt
	page
	image
)

// lookup says what path is on host h, and which page or image.
func (s *Site) lookup(h int, path string) (kind, i int) {
	if path == "/robots.txt" {
		return robotsTxt, 0
	}
	if n, ok := strings.CutPrefix(path, "/p/"); ok {
		if i, ok := index(n, ".html", s.o.Pages); ok && s.HostOf(i) == h {
			return page, i
		}
	}
	if n, ok := strings.CutPrefix(path, "/img/"); ok && s.o.Requisites {
		if i, ok := index(n, ".gif", s.o.Pages); ok && s.HostOf(i) == h {
			return image, i
		}
	}
	return notFound, 0
}

// content returns what path serves on host h, or ok=false for 404;
// isContent is true for the URLs of AllURLs.
func (s *Site) content(h int, path string) (body []byte, ctype string, isContent, ok bool) {
	switch kind, i := s.lookup(h, path); kind {
	case robotsTxt:
		r, set := s.o.RobotsHost[h]
		if !set {
			r = s.o.Robots
		}
		return []byte(r), "text/plain; charset=utf-8", false, r != ""
	case page:
		return s.Page(i), "text/html; charset=utf-8", true, true
	case image:
		return Image(i), "image/gif", true, true
	}
	return nil, "", false, false
}

// index parses "123.html" (canonical decimal only) below limit.
func index(s, ext string, limit int) (int, bool) {
	d, ok := strings.CutSuffix(s, ext)
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(d)
	if err != nil || i < 0 || i >= limit || strconv.Itoa(i) != d {
		return 0, false
	}
	return i, true
}

func key(h int, uri string) string { return strconv.Itoa(h) + " " + uri }

func (s *Site) serve(h *host, w http.ResponseWriter, r *http.Request) {
	req := &Req{Method: r.Method, Path: r.RequestURI, Remote: r.RemoteAddr, Start: time.Now()}
	k := key(h.idx, r.RequestURI)
	get := r.Method == http.MethodGet
	s.mu.Lock()
	h.reqs = append(h.reqs, req)
	if get {
		s.started[k]++
	}
	h.inflight++
	h.maxInfl = max(h.maxInfl, h.inflight)
	s.inflight++
	s.maxInfl = max(s.maxInfl, s.inflight)
	gate := s.gate
	f, failing := s.fail[k]
	if failing && get {
		if f.n--; f.n <= 0 {
			delete(s.fail, k)
		} else {
			s.fail[k] = f
		}
	}
	s.mu.Unlock()

	// The request ends (End, Completed, the counters) just before the
	// last byte of the answer is sent, so that a client that has the whole
	// answer finds it counted and no longer in flight; if that last byte
	// cannot be sent, Completed and the fetch counts are taken back.
	ended, countable := false, false
	end := func(completed bool) {
		s.mu.Lock()
		defer s.mu.Unlock()
		ended = true
		req.End = time.Now()
		req.Completed = completed
		h.inflight--
		s.inflight--
		if completed && get {
			s.fetched[k]++
		}
		if completed && countable {
			s.total++
			close(s.changed)
			s.changed = make(chan struct{})
		}
	}
	defer func() {
		if !ended {
			end(false)
		}
	}()

	ctx := r.Context()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return
		}
	}
	if s.o.Latency > 0 && !sleep(ctx, s.o.Latency) {
		return
	}

	status := http.StatusOK
	body, ctype, isContent, ok := s.content(h.idx, r.URL.Path)
	switch {
	case failing && get:
		status, body, ctype = f.status, []byte(http.StatusText(f.status)+"\n"), "text/plain; charset=utf-8"
		w.Header().Set("Retry-After", "0")
	case !ok:
		status, body, ctype = http.StatusNotFound, []byte("404 page not found\n"), "text/plain; charset=utf-8"
	case r.Method != http.MethodGet && r.Method != http.MethodHead:
		status, body, ctype = http.StatusMethodNotAllowed, nil, "text/plain; charset=utf-8"
	case isContent:
		w.Header().Set("Last-Modified", lastModified)
		if r.Header.Get("If-Modified-Since") == lastModified {
			// unchanged since: a conditional request gets no body
			status, body = http.StatusNotModified, nil
		}
	}
	w.Header().Set("Content-Type", ctype)
	if status != http.StatusNotModified {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	}
	w.WriteHeader(status)
	s.mu.Lock()
	req.Status = status
	if r.Method == http.MethodGet {
		s.bodyBytes += int64(len(body))
	}
	s.mu.Unlock()
	if r.Method == http.MethodHead {
		body = nil
	}
	var last []byte
	if len(body) > 0 {
		body, last = body[:len(body)-1], body[len(body)-1:]
	}
	if _, err := w.Write(body); err != nil || ctx.Err() != nil {
		return
	}
	countable = get && isContent && status == http.StatusOK
	end(true)
	_, err := w.Write(last)
	if err == nil {
		err = http.NewResponseController(w).Flush()
	}
	if err != nil {
		s.mu.Lock()
		req.Completed = false
		if get {
			s.fetched[k]--
		}
		if countable {
			s.total--
		}
		s.mu.Unlock()
	}
}

// BodyBytes is how many response body bytes the site sent to GETs (a 304
// sends none).
func (s *Site) BodyBytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bodyBytes
}

// ResetBodyBytes sets the count of BodyBytes back to zero.
func (s *Site) ResetBodyBytes() {
	s.mu.Lock()
	s.bodyBytes = 0
	s.mu.Unlock()
}

// sleep waits d, or until ctx is done (false).
func sleep(ctx context.Context, d time.Duration) bool {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func (s *Site) connState(h *host, st http.ConnState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch st {
	case http.StateNew:
		h.conns++
		h.open++
		h.maxOpen = max(h.maxOpen, h.open)
		s.open++
		s.maxOpen = max(s.maxOpen, s.open)
	case http.StateClosed, http.StateHijacked:
		h.open--
		s.open--
	}
}

// hostKey maps a URL of the site to its host and request URI.
func (s *Site) hostKey(rawURL string) (string, bool) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "http" || u.Port() != strconv.Itoa(s.port) {
		return "", false
	}
	for _, h := range s.hosts {
		if u.Hostname() == h.ip {
			return key(h.idx, u.RequestURI()), true
		}
	}
	return "", false
}

// Fetches returns how many GETs of rawURL (absolute, as in PageURL) were
// answered completely, whatever the status (FailNext's answers count).
func (s *Site) Fetches(rawURL string) int {
	k, ok := s.hostKey(rawURL)
	if !ok {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fetched[k]
}

// Started returns how many GETs of rawURL were received, answered or not
// (the client went away, the site was closed or is paused).
func (s *Site) Started(rawURL string) int {
	k, ok := s.hostKey(rawURL)
	if !ok {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.started[k]
}

// TotalFetches returns how many GETs of the URLs in AllURLs were answered
// completely with 200 (refetches count again; robots.txt, 404s and
// FailNext's answers do not).
func (s *Site) TotalFetches() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// TotalStarted returns how many GETs of the URLs in AllURLs were received,
// answered or not.
func (s *Site) TotalStarted() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for k, c := range s.started {
		h, uri, _ := strings.Cut(k, " ")
		hi, _ := strconv.Atoi(h)
		if u, err := url.ParseRequestURI(uri); err == nil {
			if kind, _ := s.lookup(hi, u.Path); kind == page || kind == image {
				n += c
			}
		}
	}
	return n
}

// Fetched returns the URLs in AllURLs fetched completely (with 200) at
// least once, in AllURLs order, and those never fetched so.
func (s *Site) Fetched() (fetched, missing []string) {
	s.mu.Lock()
	ok200 := map[string]bool{}
	for _, h := range s.hosts {
		for _, r := range h.reqs {
			if r.Completed && r.Method == http.MethodGet && r.Status == http.StatusOK {
				ok200[key(h.idx, r.Path)] = true
			}
		}
	}
	s.mu.Unlock()
	for _, u := range s.AllURLs() {
		k, _ := s.hostKey(u)
		if ok200[k] {
			fetched = append(fetched, u)
		} else {
			missing = append(missing, u)
		}
	}
	return fetched, missing
}

// WaitFetched waits until TotalFetches is at least n (true), or timeout
// has passed or the site is closed (false).
func (s *Site) WaitFetched(n int, timeout time.Duration) bool {
	tm := time.NewTimer(timeout)
	defer tm.Stop()
	for {
		s.mu.Lock()
		total, ch, closed := s.total, s.changed, s.closed
		s.mu.Unlock()
		if total >= n {
			return true
		}
		if closed {
			return false
		}
		select {
		case <-ch:
		case <-tm.C:
			return s.TotalFetches() >= n
		}
	}
}

// FailNext makes the next n GETs of rawURL (a URL of the site) answer
// status (e.g. 503) with "Retry-After: 0", after any Latency.
func (s *Site) FailNext(rawURL string, n, status int) {
	k, ok := s.hostKey(rawURL)
	if !ok {
		s.t.Fatalf("sitetest: FailNext: %s is not a URL of the site", rawURL)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if n <= 0 {
		delete(s.fail, k)
		return
	}
	s.fail[k] = failure{n, status}
}

// Pause holds every request received from now on (counted as started and
// in flight) until Resume or Close; the client may give up meanwhile.
func (s *Site) Pause() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gate == nil && !s.closed {
		s.gate = make(chan struct{})
	}
}

// Resume releases the requests held by Pause.
func (s *Site) Resume() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gate != nil {
		close(s.gate)
		s.gate = nil
	}
}

// Requests returns a copy of the requests host h received, in the order
// they started (a negative h: every host's, merged by start time).
func (s *Site) Requests(h int) []Req {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Req
	for _, hh := range s.hosts {
		if h < 0 || hh.idx == h {
			for _, r := range hh.reqs {
				out = append(out, *r)
			}
		}
	}
	if h < 0 {
		sort.SliceStable(out, func(i, j int) bool { return out[i].Start.Before(out[j].Start) })
	}
	return out
}

// MaxInWindow returns the most requests to host h (negative: to any host)
// that started within any window [t, t+w), over all t.
func (s *Site) MaxInWindow(h int, w time.Duration) int {
	var starts []time.Time
	for _, r := range s.Requests(h) {
		starts = append(starts, r.Start)
	}
	return MaxInWindow(starts, w)
}

// MaxInWindow returns the most of times (in any order) within any window
// [t, t+w).
func MaxInWindow(times []time.Time, w time.Duration) int {
	ts := append([]time.Time(nil), times...)
	sort.Slice(ts, func(i, j int) bool { return ts[i].Before(ts[j]) })
	best, j := 0, 0
	for i := range ts {
		for j < len(ts) && ts[j].Sub(ts[i]) < w {
			j++
		}
		best = max(best, j-i)
	}
	return best
}

// MaxConcurrent returns the most requests host h (negative: the site) had
// in flight at once, each from its Start to its End (Latency and Pause
// included).
func (s *Site) MaxConcurrent(h int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h < 0 {
		return s.maxInfl
	}
	return s.host(h).maxInfl
}

// InFlight returns how many requests host h (negative: the site) has in
// flight now.
func (s *Site) InFlight(h int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h < 0 {
		return s.inflight
	}
	return s.host(h).inflight
}

// MaxOpenConns returns the most TCP connections host h (negative: the
// site) had open at once, from accept to close as the server sees them
// (http.Server's ConnState: new to closed or hijacked).
func (s *Site) MaxOpenConns(h int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h < 0 {
		return s.maxOpen
	}
	return s.host(h).maxOpen
}

// OpenConns returns how many connections host h (negative: the site) has
// open now.
func (s *Site) OpenConns(h int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h < 0 {
		return s.open
	}
	return s.host(h).open
}

// Conns returns how many connections host h (negative: the site) accepted
// in all.
func (s *Site) Conns(h int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, hh := range s.hosts {
		if h < 0 || hh.idx == h {
			n += hh.conns
		}
	}
	return n
}

// host returns host h; called with s.mu held, it panics on a bad h (a
// test's mistake) rather than calling t.Fatal under the lock.
func (s *Site) host(h int) *host {
	if h >= len(s.hosts) {
		panic(fmt.Sprintf("sitetest: host %d of %d", h, len(s.hosts)))
	}
	return s.hosts[h]
}
