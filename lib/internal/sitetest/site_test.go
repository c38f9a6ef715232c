package sitetest

import (
	"bytes"
	"context"
	"image/gif"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var refRE = regexp.MustCompile(`(?:href|src)="([^"]*)"`)

// get fetches u with c and returns status, body and Content-Type.
func get(t *testing.T, c *http.Client, u string) (int, []byte, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	return resp.StatusCode, b, resp.Header.Get("Content-Type")
}

// crawl is a breadth-first crawl from start that follows every href and
// src on the site's hosts and fetches each URL once; it returns the URLs
// fetched with their bodies.
func crawl(t *testing.T, s *Site, start string) map[string][]byte {
	t.Helper()
	c := &http.Client{}
	got := map[string][]byte{}
	queue := []string{start}
	seen := map[string]bool{start: true}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		st, body, ct := get(t, c, u)
		if st != 200 {
			t.Fatalf("GET %s: %d", u, st)
		}
		got[u] = body
		if !strings.HasPrefix(ct, "text/html") {
			continue
		}
		base, _ := url.Parse(u)
		for _, m := range refRE.FindAllSubmatch(body, -1) {
			ref, err := base.Parse(string(m[1]))
			if err != nil {
				t.Fatalf("%s: bad link %q", u, m[1])
			}
			if ref.Port() != base.Port() || !strings.HasPrefix(ref.Hostname(), "127.0.0.") {
				t.Errorf("%s: link %s off the site", u, ref)
			}
			if r := ref.String(); !seen[r] {
				seen[r] = true
				queue = append(queue, r)
			}
		}
	}
	return got
}

// TestCrawl crawls a 3-host, 50-page site with its images: every URL of
// AllURLs is reachable from StartURL and nothing else is linked, each page
// holds its marker and no other page's, the counters say one fetch each.
func TestCrawl(t *testing.T) {
	s := Start(t, Options{Pages: 50, Hosts: 3, Requisites: true})
	if s.StartURL() != s.HostURL(0)+"/p/0.html" {
		t.Errorf("StartURL %s", s.StartURL())
	}
	for h, want := range []string{"127.0.0.2", "127.0.0.3", "127.0.0.4"} {
		if u, _ := url.Parse(s.HostURL(h)); u.Hostname() != want || u.Port() != strconv.Itoa(s.Port()) {
			t.Errorf("host %d: %s", h, s.HostURL(h))
		}
	}
	got := crawl(t, s, s.StartURL())
	all := s.AllURLs()
	if len(all) != 100 {
		t.Fatalf("%d URLs, want 100", len(all))
	}
	for i, u := range all {
		body, ok := got[u]
		if !ok {
			t.Errorf("%s not reached", u)
			continue
		}
		if i < 50 {
			if !bytes.Contains(body, []byte(Marker(i))) || !bytes.Contains(body, []byte("<title>")) || !bytes.Equal(body, s.Page(i)) {
				t.Errorf("page %d: %s", i, body)
			}
			for k := range 50 {
				if k != i && bytes.Contains(body, []byte(Marker(k))) {
					t.Errorf("page %d holds the marker of page %d", i, k)
				}
			}
			if len(body) < 300 || len(body) > 2000 {
				t.Errorf("page %d: %d bytes", i, len(body))
			}
		} else {
			img, err := gif.Decode(bytes.NewReader(body))
			if err != nil || img.Bounds().Dx() != 1 || !bytes.Contains(body, []byte(ImageMarker(i-50))) {
				t.Errorf("image %d: %v %q", i-50, err, body)
			}
		}
		if s.Fetches(u) != 1 || s.Started(u) != 1 {
			t.Errorf("%s: %d fetches, %d started", u, s.Fetches(u), s.Started(u))
		}
	}
	if len(got) != len(all) {
		t.Errorf("crawled %d URLs, the site has %d", len(got), len(all))
	}
	if s.TotalFetches() != 100 || s.TotalStarted() != 100 {
		t.Errorf("TotalFetches %d, TotalStarted %d", s.TotalFetches(), s.TotalStarted())
	}
	if f, m := s.Fetched(); len(f) != 100 || len(m) != 0 {
		t.Errorf("fetched %d, missing %v", len(f), m)
	}
	// every host served its share, and links cross hosts
	for h := range 3 {
		if n := len(s.Requests(h)); n < 32 || n > 36 {
			t.Errorf("host %d: %d requests", h, n)
		}
	}
	if n := len(s.Requests(-1)); n != 100 {
		t.Errorf("%d requests in all", n)
	}
	for i := range 50 {
		l := s.Links(i)
		if len(l) != 5 || l[0] != (i+1)%50 {
			t.Errorf("page %d links %v", i, l)
		}
		seen := map[int]bool{}
		for _, k := range l {
			if k == i || seen[k] {
				t.Errorf("page %d links %v", i, l)
			}
			seen[k] = true
		}
	}

	// the same site again: the same pages, but for the port
	s2 := Start(t, Options{Pages: 50, Hosts: 3, Requisites: true})
	for i := range 50 {
		a := strings.ReplaceAll(string(s.Page(i)), strconv.Itoa(s.Port()), "PORT")
		b := strings.ReplaceAll(string(s2.Page(i)), strconv.Itoa(s2.Port()), "PORT")
		if a != b {
			t.Fatalf("page %d differs between runs:\n%s\n%s", i, a, b)
		}
	}
}

// TestServe checks the answers: 404s, robots.txt, HEAD, PageSize,
// Latency, FailNext, a client that goes away.
func TestServe(t *testing.T) {
	s := Start(t, Options{Pages: 10, Hosts: 2, Links: 3, PageSize: 5000, Latency: 30 * time.Millisecond,
		Robots: "User-agent: *\nCrawl-delay: 1\n", RobotsHost: map[int]string{1: ""}})
	c := &http.Client{}
	for _, tc := range []struct {
		u      string
		status int
		ctype  string
	}{
		{s.PageURL(3), 200, "text/html; charset=utf-8"},
		{s.HostURL(0) + "/p/3.html", 404, ""}, // page 3 is on host 1
		{s.HostURL(1) + "/p/03.html", 404, ""},
		{s.HostURL(1) + "/p/11.html", 404, ""},
		{s.ImageURL(3), 404, ""}, // no requisites
		{s.RobotsURL(0), 200, "text/plain; charset=utf-8"},
		{s.RobotsURL(1), 404, ""},
		{s.HostURL(0) + "/", 404, ""},
	} {
		st, body, ct := get(t, c, tc.u)
		if st != tc.status || tc.ctype != "" && ct != tc.ctype {
			t.Errorf("%s: %d %s", tc.u, st, ct)
		}
		if tc.u == s.RobotsURL(0) && string(body) != "User-agent: *\nCrawl-delay: 1\n" {
			t.Errorf("robots.txt: %q", body)
		}
		if tc.u == s.PageURL(3) && (len(body) < 5000 || len(body) > 5100 || !bytes.HasSuffix(body, []byte("</body></html>\n"))) {
			t.Errorf("page of %d bytes:\n%s", len(body), body)
		}
	}
	if s.TotalFetches() != 1 || s.Fetches(s.RobotsURL(0)) != 1 || s.Fetches(s.HostURL(0)+"/p/3.html") != 1 {
		t.Errorf("TotalFetches %d", s.TotalFetches())
	}
	for _, r := range s.Requests(-1) {
		if d := r.End.Sub(r.Start); d < 30*time.Millisecond || !r.Completed || r.Method != "GET" {
			t.Errorf("%+v: %v", r, d)
		}
	}
	if len(s.LinkURLs(4)) != 3 || s.LinkURLs(4)[0] != s.PageURL(5) {
		t.Errorf("LinkURLs(4) = %v", s.LinkURLs(4))
	}

	// HEAD: headers only, not a fetch
	resp, err := c.Head(s.PageURL(4))
	if err != nil || resp.StatusCode != 200 || resp.ContentLength < 5000 || resp.Header.Get("Last-Modified") == "" {
		t.Errorf("HEAD: %v %+v", err, resp)
	}
	if s.Fetches(s.PageURL(4)) != 0 || s.TotalFetches() != 1 {
		t.Errorf("HEAD counted as a fetch")
	}

	// FailNext
	s.FailNext(s.PageURL(5), 2, 503)
	for i, want := range []int{503, 503, 200, 200} {
		if st, _, _ := get(t, c, s.PageURL(5)); st != want {
			t.Errorf("GET %d of page 5: %d, want %d", i, st, want)
		}
	}
	if s.Fetches(s.PageURL(5)) != 4 || s.TotalFetches() != 3 {
		t.Errorf("after FailNext: %d fetches, %d in all", s.Fetches(s.PageURL(5)), s.TotalFetches())
	}

	// a client that gives up during the latency: started, not fetched
	slow := Start(t, Options{Pages: 2, Latency: 5 * time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", slow.PageURL(1), nil)
	if _, err := c.Do(req); err == nil {
		t.Fatal("no timeout")
	}
	waitFor(t, "the abandoned request to end", func() bool { return slow.InFlight(0) == 0 })
	if slow.Started(slow.PageURL(1)) != 1 || slow.Fetches(slow.PageURL(1)) != 0 || slow.TotalFetches() != 0 || slow.TotalStarted() != 1 {
		t.Errorf("abandoned: started %d, fetched %d", slow.Started(slow.PageURL(1)), slow.Fetches(slow.PageURL(1)))
	}
	if r := slow.Requests(0); len(r) != 1 || r[0].Completed || r[0].Status != 0 || r[0].End.Sub(r[0].Start) > 4*time.Second {
		t.Errorf("abandoned: %+v", r)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// TestPolitenessCounters drives controlled sequences of requests and
// checks MaxInWindow, MaxConcurrent, MaxOpenConns and WaitFetched.
func TestPolitenessCounters(t *testing.T) {
	s := Start(t, Options{Pages: 20, Hosts: 2})

	// 5 requests to host 0, one after the other 100ms apart, on one
	// keep-alive connection
	c := &http.Client{}
	for i := range 5 {
		if i > 0 {
			time.Sleep(100 * time.Millisecond)
		}
		get(t, c, s.PageURL(2*i))
	}
	if n := s.MaxInWindow(0, 50*time.Millisecond); n != 1 {
		t.Errorf("MaxInWindow(50ms) %d, want 1", n)
	}
	if n := s.MaxInWindow(0, time.Minute); n != 5 {
		t.Errorf("MaxInWindow(1m) %d, want 5", n)
	}
	if n := s.MaxInWindow(1, time.Minute); n != 0 {
		t.Errorf("host 1: MaxInWindow %d", n)
	}
	if s.MaxConcurrent(0) != 1 || s.MaxOpenConns(0) != 1 || s.Conns(0) != 1 {
		t.Errorf("sequential: %d concurrent, %d open, %d conns", s.MaxConcurrent(0), s.MaxOpenConns(0), s.Conns(0))
	}
	remotes := map[string]bool{}
	for _, r := range s.Requests(0) {
		remotes[r.Remote] = true
	}
	if len(remotes) != 1 {
		t.Errorf("keep-alive: remotes %v", remotes)
	}

	// 3 requests held in flight at once on host 1, on 3 connections
	s.Pause()
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Go(func() {
			c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
			get(t, c, s.PageURL(2*i+1))
		})
	}
	waitFor(t, "3 requests in flight", func() bool { return s.InFlight(1) == 3 })
	if s.TotalStarted() != 8 || s.TotalFetches() != 5 {
		t.Errorf("paused: %d started, %d fetched", s.TotalStarted(), s.TotalFetches())
	}
	if s.WaitFetched(6, 100*time.Millisecond) {
		t.Error("WaitFetched(6) while paused")
	}
	done := make(chan bool)
	go func() { done <- s.WaitFetched(8, 10*time.Second) }()
	s.Resume()
	if !<-done {
		t.Error("WaitFetched(8) after Resume")
	}
	wg.Wait()
	if s.MaxConcurrent(1) != 3 || s.MaxConcurrent(-1) != 3 || s.MaxConcurrent(0) != 1 {
		t.Errorf("MaxConcurrent %d %d %d", s.MaxConcurrent(0), s.MaxConcurrent(1), s.MaxConcurrent(-1))
	}
	if n := s.MaxInWindow(1, time.Minute); n != 3 {
		t.Errorf("host 1: MaxInWindow %d", n)
	}
	if n := s.MaxInWindow(-1, time.Minute); n != 8 {
		t.Errorf("MaxInWindow(-1) %d", n)
	}
	waitFor(t, "the closed connections", func() bool { return s.OpenConns(1) == 0 })
	if s.MaxOpenConns(1) != 3 || s.Conns(1) != 3 {
		t.Errorf("host 1: %d open at most, %d conns", s.MaxOpenConns(1), s.Conns(1))
	}

	// 4 raw connections to host 1 (no request), then 2 to host 0
	var conns []net.Conn
	for i, h := range []int{1, 1, 1, 1, 0, 0} {
		cn, err := net.Dial("tcp", s.HostAddr(h))
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, cn)
		waitFor(t, "a connection accepted", func() bool { return s.OpenConns(-1) == 1+i+1 }) // + host 0's keep-alive
	}
	if s.MaxOpenConns(1) != 4 || s.OpenConns(1) != 4 || s.OpenConns(0) != 3 || s.MaxOpenConns(0) != 3 || s.MaxOpenConns(-1) != 7 {
		t.Errorf("raw conns: host 1 %d/%d, host 0 %d/%d, all %d", s.OpenConns(1), s.MaxOpenConns(1), s.OpenConns(0), s.MaxOpenConns(0), s.MaxOpenConns(-1))
	}
	for _, cn := range conns {
		cn.Close()
	}
	c.CloseIdleConnections()
	waitFor(t, "every connection closed", func() bool { return s.OpenConns(-1) == 0 })
	if s.MaxOpenConns(1) != 4 || s.Conns(-1) != 10 {
		t.Errorf("after closing: %d, %d conns", s.MaxOpenConns(1), s.Conns(-1))
	}
	if s.WaitFetched(9, 50*time.Millisecond) {
		t.Error("WaitFetched(9)")
	}
	s.Close()
	if s.WaitFetched(9, time.Hour) {
		t.Error("WaitFetched(9) after Close")
	}
	if _, err := net.Dial("tcp", s.HostAddr(0)); err == nil {
		t.Error("still listening after Close")
	}
}

func TestMaxInWindow(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms ...int) []time.Time {
		var out []time.Time
		for _, m := range ms {
			out = append(out, t0.Add(time.Duration(m)*time.Millisecond))
		}
		return out
	}
	for _, tc := range []struct {
		times []time.Time
		w     time.Duration
		want  int
	}{
		{nil, time.Second, 0},
		{at(0), time.Second, 1},
		{at(0, 1000), time.Second, 1}, // [t, t+w) holds one of them
		{at(0, 999), time.Second, 2},
		{at(500, 0, 999, 1000, 1001), time.Second, 4},
		{at(0, 0, 0), time.Millisecond, 3},
		{at(0, 100, 200, 300, 1000, 1050, 1100, 1150, 1199), 200 * time.Millisecond, 5},
		{at(0, 100, 200, 300), 0, 0},
	} {
		if got := MaxInWindow(tc.times, tc.w); got != tc.want {
			t.Errorf("%v in %v: %d, want %d", tc.times, tc.w, got, tc.want)
		}
	}
}

// TestLinks: the chain makes every page reachable with any Links, the
// pseudo-random links are the same each time.
func TestLinks(t *testing.T) {
	for _, n := range []int{1, 2, 5, 1000} {
		for _, per := range []int{1, 3, 5, 20} {
			for i := range n {
				l := links(i, n, per)
				if n > 1 && (len(l) != min(per, n-1) || l[0] != (i+1)%n) {
					t.Fatalf("%d pages, %d links: page %d links %v", n, per, i, l)
				}
				if n == 1 && l != nil {
					t.Fatalf("1 page links %v", l)
				}
			}
		}
	}
	if a, b := links(7, 1000, 5), links(7, 1000, 5); !slices.Equal(a, b) || slices.Equal(a, links(8, 1000, 5)) {
		t.Errorf("links %v %v", a, b)
	}
}
