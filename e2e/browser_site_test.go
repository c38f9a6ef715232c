package e2e

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
)

// JSShop is a site built by JavaScript, for browser crawls (mirrorget
// --browser: the e2e tests; TestJSShopServe serves it for
// scripts/bench.d/browser.sh): its HTML is a shell;
// a gzip-served script fetches the list from a JSON API whose URL it
// assembles and makes JSCards cards whose images load as they come into
// view (the first three link to item pages rendered from JSON, whose
// script sets document.title); it fetches a brotli-encoded JSON answer,
// starts a Web Worker that fetches, plays a video read by Range requests
// (answered 206 to a Range), shows a logo through a 302, POSTs JSON to
// /api/v1/track, and asks for a URL robots.txt disallows (/private/) and
// for an image on the Other origin (ServeOther). It logs every request.
type JSShop struct {
	// Other is the origin of the out-of-scope image (no trailing slash).
	Other string
	// AppGz, InfoBr and Video are /app.js as sent (gzip), /api/v1/info as
	// sent (brotli) and /media/clip.webm.
	AppGz, InfoBr, Video []byte

	mu     sync.Mutex
	served []string
	times  []time.Time
	ranges []string
	otherN int
}

// JSCards is the number of cards of the shop's start page.
const JSCards = 30

// JSInfo is the JSON of /api/v1/info, sent brotli-encoded.
const JSInfo = `{"note": "brotli note decoded"}`

// jsShopModified is the Last-Modified of the shop's HTML pages.
var jsShopModified = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// JSVideoSize is the length of /media/clip.webm.
const JSVideoSize = 1 << 20

// NewJSShop makes the shop; serve it with ServeHTTP, and Other with
// ServeOther.
func NewJSShop() *JSShop {
	s := &JSShop{}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	io.WriteString(zw, jsShopApp)
	zw.Close()
	s.AppGz = gz.Bytes()
	var br bytes.Buffer
	bw := brotli.NewWriterLevel(&br, brotli.BestCompression)
	io.WriteString(bw, JSInfo)
	bw.Close()
	s.InfoBr = br.Bytes()
	s.Video = make([]byte, JSVideoSize)
	copy(s.Video, "\x1a\x45\xdf\xa3") // an EBML header's magic, then filler
	for i := 4; i < len(s.Video); i++ {
		s.Video[i] = byte(i * 7)
	}
	return s
}

// ServeOther serves the other origin: an image, counted (OtherHits).
func (s *JSShop) ServeOther(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.otherN++
	s.mu.Unlock()
	w.Header().Set("Content-Type", "image/png")
	w.Write(PNG(1))
}

// Served returns the request URIs served, in order.
func (s *JSShop) Served() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.served)
}

// Times returns when each request was served.
func (s *JSShop) Times() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.times)
}

// Ranges returns "PATH RANGE" for each request that had a Range field.
func (s *JSShop) Ranges() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.ranges)
}

// OtherHits is the number of requests the other origin was sent.
func (s *JSShop) OtherHits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.otherN
}

// Reset forgets the requests served so far.
func (s *JSShop) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.served, s.times, s.ranges, s.otherN = nil, nil, nil, 0
}

// PNG is a 2x2 PNG whose first pixel's red is i.
func PNG(i int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.RGBA{uint8(i), 0, 0, 255})
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}

const jsShopApp = `
const api = ['', 'api', 'v1', 'items'].join('/') + '?n=' + (3 * 10);
const seen = new IntersectionObserver(entries => {
  for (const e of entries) {
    if (e.isIntersecting) { e.target.src = e.target.dataset.src; seen.unobserve(e.target); }
  }
});
fetch(api).then(r => r.json()).then(items => {
  const list = document.getElementById('list');
  for (const it of items) {
    const d = document.createElement('div');
    d.className = 'card';
    d.innerHTML = '<h2>' + it.title + '</h2><img data-src="/img/' + it.id + '.png" alt="">' +
      (it.id <= 3 ? '<a href="/item.html?id=' + it.id + '">more</a>' : '');
    list.appendChild(d);
    seen.observe(d.querySelector('img'));
  }
  document.getElementById('status').textContent = 'loaded ' + items.length;
});
fetch('/private/secret.json').catch(() => {});
fetch('/api/v1/track', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({seen: 30})})
  .then(r => r.text()).then(t => { document.body.dataset.track = t; });
const ext = new Image(); ext.src = OTHER + '/ext.png';
fetch('/api/v1/info').then(r => r.json()).then(i => { document.getElementById('info').textContent = i.note; });
const wk = new Worker('/worker.js');
wk.onmessage = e => { document.getElementById('worker').textContent = e.data; };
const v = document.createElement('video');
v.preload = 'auto'; v.muted = true; v.src = '/media/clip.webm';
document.body.appendChild(v);
`

func (s *JSShop) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.served = append(s.served, r.URL.RequestURI())
	s.times = append(s.times, time.Now())
	if rg := r.Header.Get("Range"); rg != "" {
		s.ranges = append(s.ranges, r.URL.Path+" "+rg)
	}
	s.mu.Unlock()
	html := func(body string) {
		// with Last-Modified: a mirror's update asks If-Modified-Since
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		http.ServeContent(w, r, "page.html", jsShopModified, strings.NewReader(body))
	}
	p := r.URL.Path
	switch {
	case p == "/robots.txt":
		io.WriteString(w, "User-agent: *\nDisallow: /private/\n")
	case p == "/":
		html(`<!doctype html><html><head><title>JS shop</title>
<style>.card{height:400px;border:1px solid #ccc} img{width:40px;height:40px}</style>
<script>const OTHER = '` + s.Other + `';</script>
<script src="/app.js" defer></script></head>
<body><h1>JS shop</h1><p id="status">loading</p><p id="info"></p><p id="worker"></p>
<img src="/logo" alt="logo"><div id="list"></div><a href="/about.html">about</a></body></html>`)
	case p == "/about.html":
		html(`<!doctype html><html><head><title>About</title></head><body><p>No script here.</p></body></html>`)
	case p == "/app.js":
		w.Header().Set("Content-Type", "text/javascript")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(s.AppGz)
	case p == "/api/v1/items":
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		var items []map[string]any
		for i := 1; i <= n; i++ {
			items = append(items, map[string]any{"id": i, "title": fmt.Sprintf("Card %d from JSON", i)})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(items)
	case p == "/api/v1/info":
		// brotli-encoded, for a client that takes it
		w.Header().Set("Content-Type", "application/json")
		if strings.Contains(r.Header.Get("Accept-Encoding"), "br") {
			w.Header().Set("Content-Encoding", "br")
			w.Write(s.InfoBr)
		} else {
			io.WriteString(w, JSInfo)
		}
	case p == "/worker.js":
		w.Header().Set("Content-Type", "text/javascript")
		io.WriteString(w, `fetch('/api/v1/status').then(r => r.text()).then(t => postMessage(t));`)
	case p == "/api/v1/status":
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "ready from worker")
	case p == "/logo":
		http.Redirect(w, r, "/static/logo.png", http.StatusFound)
	case p == "/media/clip.webm":
		// ranges answered as 206 (http.ServeContent), as a media server would
		w.Header().Set("Content-Type", "video/webm")
		http.ServeContent(w, r, "clip.webm", time.Time{}, bytes.NewReader(s.Video))
	case p == "/api/v1/track":
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "tracked %s %s", r.Method, b)
	case p == "/static/logo.png":
		w.Header().Set("Content-Type", "image/png")
		w.Write(PNG(200))
	case strings.HasPrefix(p, "/img/"):
		n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(p, "/img/"), ".png"))
		w.Header().Set("Content-Type", "image/png")
		w.Write(PNG(n))
	case p == "/item.html":
		html(`<!doctype html><html><head><title>Item</title><script src="/item.js"></script></head><body><main id="item"></main></body></html>`)
	case p == "/item.js":
		w.Header().Set("Content-Type", "text/javascript")
		io.WriteString(w, `const id = new URLSearchParams(location.search).get('id');
fetch('/api/v1/item/' + id).then(r => r.json()).then(it => {
  document.title = it.title;
  document.getElementById('item').innerHTML = '<h1>' + it.title + '</h1><p>' + it.text + '</p>';
});`)
	case strings.HasPrefix(p, "/api/v1/item/"):
		id := strings.TrimPrefix(p, "/api/v1/item/")
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"title": "Item " + id, "text": "Item " + id + " is described by JSON"})
	default:
		http.NotFound(w, r)
	}
}

// TestJSShopServe is no test: with ARCPORT_JSSHOP_ADDR=HOST:PORT set it
// serves the JS shop there (its other origin on the next port) until the
// process is killed, for scripts/bench.d/browser.sh; without, it does
// nothing.
func TestJSShopServe(t *testing.T) {
	addr := os.Getenv("ARCPORT_JSSHOP_ADDR")
	if addr == "" {
		return // not asked to serve (not a skip: nothing is missing)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := strconv.Atoi(port)
	other := net.JoinHostPort(host, strconv.Itoa(p+1))
	s := NewJSShop()
	s.Other = "http://" + other
	go func() { t.Error(http.ListenAndServe(other, http.HandlerFunc(s.ServeOther))) }()
	t.Fatal(http.ListenAndServe(addr, s))
}
