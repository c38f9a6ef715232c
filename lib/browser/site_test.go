package browser

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// site is a loopback site built by JavaScript: nothing of its content is in
// its HTML. It logs every request it serves.
type site struct {
	*httptest.Server
	other *httptest.Server // a second origin on another site (localhost), for a cross-site frame

	mu     sync.Mutex
	served []string // host + request URI, in order
	block  chan struct{}
}

const cards = 30

func newSite(t testing.TB) *site {
	s := &site{block: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	s.other = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(func() {
		close(s.block)
		s.Close()
		s.other.Close()
	})
	return s
}

// otherURL is the second origin under the name localhost: another site for
// Chromium, so its frame runs in a process of its own.
func (s *site) otherURL() string { return strings.Replace(s.other.URL, "127.0.0.1", "localhost", 1) }

func (s *site) log() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.served)
}

func (s *site) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.served = append(s.served, r.Host+r.URL.RequestURI())
	s.mu.Unlock()
	html := func(body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, body)
	}
	js := func(body string) {
		w.Header().Set("Content-Type", "text/javascript")
		io.WriteString(w, body)
	}
	p := r.URL.Path
	switch {
	case p == "/":
		html(`<!doctype html><html><head><title>Shop</title>
<style>.card{height:300px;border:1px solid #ccc} img{width:40px;height:40px}</style>
<script src="/app.js" defer></script></head>
<body><h1>Shop</h1><p id="status">working</p><img src="/logo" alt="logo">
<iframe src="` + s.otherURL() + `/frame.html" width="300" height="100"></iframe>
<div id="list"></div><a href="/about.html">About</a>
<button id="open" onclick="window.open('/popup.html')">open</button></body></html>`)
	case p == "/app.js":
		// Sent gzip-encoded: the browser must get it decoded.
		w.Header().Set("Content-Type", "text/javascript")
		w.Header().Set("Content-Encoding", "gzip")
		gz := gzip.NewWriter(w)
		io.WriteString(gz, appJS)
		gz.Close()
	case p == "/api/v1/items":
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		var items []map[string]any
		for i := 1; i <= n; i++ {
			items = append(items, map[string]any{"id": i, "title": fmt.Sprintf("Card %d from JSON", i)})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(items)
	case strings.HasPrefix(p, "/api/v1/item/"):
		id := strings.TrimPrefix(p, "/api/v1/item/")
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"title": "Item " + id, "text": "Item " + id + " is described by JSON"})
	case p == "/api/v1/status":
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "ready from worker")
	case p == "/worker.js":
		js(`fetch('/api/v1/status').then(r => r.text()).then(t => postMessage(t));`)
	case p == "/item.html":
		html(`<!doctype html><html><head><title>Item</title><script src="/item.js"></script></head><body><main id="item"></main></body></html>`)
	case p == "/item.js":
		js(`const id = new URLSearchParams(location.search).get('id');
fetch('/api/v1/item/' + id).then(r => r.json()).then(it => {
  document.title = it.title;
  document.getElementById('item').innerHTML = '<h1>' + it.title + '</h1><p>' + it.text + '</p><a href="/">home</a>';
});`)
	case p == "/logo":
		http.Redirect(w, r, "/img/logo.png", http.StatusFound)
	case strings.HasPrefix(p, "/img/"):
		w.Header().Set("Content-Type", "image/png")
		w.Write(tinyPNG())
	case p == "/frame.html":
		html(`<!doctype html><html><body><p>in the frame</p><a href="/from-frame.html">framed link</a></body></html>`)
	case p == "/slow":
		<-s.block
	case p == "/hang.html":
		html(`<!doctype html><html><body><script>for (;;) {}</script></body></html>`)
	case p == "/dialogs.html":
		html(`<!doctype html><html><body><script>alert('one'); document.title = confirm('two') ? 'yes' : 'no';</script><p>after</p></body></html>`)
	case p == "/post.html":
		html(`<!doctype html><html><body><p id="out">waiting</p><script>
document.cookie = 'fromjs=yes; path=/';
fetch('/api/echo', {method: 'POST', headers: {'Content-Type': 'text/plain'}, body: 'y'.repeat(300000)})
  .then(r => r.text()).then(t => { document.getElementById('out').textContent = t; });
</script></body></html>`)
	case p == "/api/echo":
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "%s %d bytes, cookie %q", r.Method, len(b), r.Header.Get("Cookie"))
	case p == "/big.html":
		html(`<!doctype html><html><body><script>document.body.innerHTML = '<p>' + 'x'.repeat(2 << 20) + '</p>';</script></body></html>`)
	case p == "/video.html":
		html(`<!doctype html><html><body><video src="/media/clip.webm" preload="auto" muted></video></body></html>`)
	case p == "/media/clip.webm":
		// a media server: ranges answered 206
		w.Header().Set("Content-Type", "video/webm")
		http.ServeContent(w, r, "clip.webm", time.Time{}, bytes.NewReader(clip))
	case p == "/wait.html":
		html(`<!doctype html><html><body><img src="/slow"></body></html>`)
	default:
		http.NotFound(w, r)
	}
}

// appJS builds the shop: a list from a JSON API whose URL is assembled in
// code, images loaded as the cards come into view, a Web Worker that
// fetches, and a pop-up opened by a script.
const appJS = `
const api = ['', 'api', 'v1', 'items'].join('/') + '?n=' + (3 * 10);
const seen = new IntersectionObserver(entries => {
  for (const e of entries) {
    if (e.isIntersecting) { e.target.src = e.target.dataset.src; seen.unobserve(e.target); }
  }
});
fetch(api).then(r => r.json()).then(items => {
  const list = document.getElementById('list');
  for (const it of items) {
    const card = document.createElement('div');
    card.className = 'card';
    card.innerHTML = '<h2>' + it.title + '</h2><a href="/item.html?id=' + it.id + '">more</a>';
    const img = document.createElement('img');
    img.dataset.src = '/img/' + it.id + '.png';
    card.appendChild(img);
    list.appendChild(card);
    seen.observe(img);
  }
  document.getElementById('open').click();
});
const w = new Worker('/worker.js');
w.onmessage = e => { document.getElementById('status').textContent = e.data; };
`

// clip is /media/clip.webm: an EBML header's magic, then filler.
var clip = func() []byte {
	b := make([]byte, 512<<10)
	copy(b, "\x1a\x45\xdf\xa3")
	for i := 4; i < len(b); i++ {
		b[i] = byte(i * 7)
	}
	return b
}()

func tinyPNG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	for i := range img.Pix {
		img.Pix[i] = 0x80
	}
	img.Set(0, 0, color.RGBA{255, 0, 0, 255})
	var buf bytes.Buffer
	png.Encode(&buf, img)
	return buf.Bytes()
}

// fetcher is a FetchFunc over a real HTTP client that, like mirrorget's,
// asks for no compression of its own, follows no redirect, and decodes
// what it was sent; it logs what it fetched.
type fetcher struct {
	client *http.Client
	mu     sync.Mutex
	got    []string // host + request URI
	gzip   []string // the URLs that came gzip-encoded
	hook   func(req *http.Request)
}

func newFetcher() *fetcher {
	return &fetcher{client: &http.Client{
		Transport:     &http.Transport{DisableCompression: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

func (f *fetcher) fetch(ctx context.Context, req *http.Request) (int, http.Header, []byte, error) {
	f.mu.Lock()
	f.got = append(f.got, req.URL.Host+req.URL.RequestURI())
	f.mu.Unlock()
	if f.hook != nil {
		f.hook(req)
	}
	out, err := http.NewRequestWithContext(ctx, req.Method, req.URL.String(), req.Body)
	if err != nil {
		return 0, nil, nil, err
	}
	out.Header = req.Header.Clone()
	resp, err := f.client.Do(out)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, nil, err
	}
	if resp.Header.Get("Content-Encoding") == "gzip" {
		f.mu.Lock()
		f.gzip = append(f.gzip, req.URL.Path)
		f.mu.Unlock()
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return 0, nil, nil, err
		}
		if body, err = io.ReadAll(zr); err != nil {
			return 0, nil, nil, err
		}
	}
	return resp.StatusCode, resp.Header, body, nil
}

func (f *fetcher) log() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.got)
}
