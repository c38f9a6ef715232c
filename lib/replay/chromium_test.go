package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/arcport/arcport/lib/crawl"
	"github.com/arcport/arcport/lib/htcache"
	"github.com/arcport/arcport/lib/internal/peertest"
	"github.com/arcport/arcport/lib/internal/sitetest"
	"github.com/arcport/arcport/lib/wacz"
	"github.com/arcport/arcport/lib/warc"
)

// The garden site (testdata/htcache/garden-origin: the site HTTrack's
// fixture and `make demo` were made from, with its /old-page redirect),
// plus a page that uses what a crawl of the real web meets: a style sheet,
// a script and images on another host (cdn.example) in absolute and
// protocol-relative URLs, srcset, @import, inline styles, a script that
// adds an image by an absolute URL, a form, an iframe, a preconnect and an
// integrity attribute.
var richPage = `<!doctype html>
<html><head><meta charset="utf-8"><title>Rich page</title>
<link rel="preconnect" href="http://cdn.example">
<link rel="stylesheet" href="//cdn.example/cdn.css" integrity="sha384-AAAA" crossorigin="anonymous">
<style>@import url("style2.css"); .inline{background-image:url('http://cdn.example/dot.png')}</style>
<script src="http://cdn.example/app.js"></script>
</head><body>
<h1 id="t">Rich page text</h1>
<img id="i1" src="img/rose.gif" alt="rose">
<img id="i2" srcset="http://cdn.example/dot.png 1x, http://cdn.example/dot.png?2x 2x" src="http://cdn.example/dot.png" alt="dot">
<div id="d1" class="inline" style="width:10px;height:10px"></div>
<div id="d2" style="background:url(img/leaf.gif);width:10px;height:10px"></div>
<p><a id="a1" href="http://garden.example/news/2024.html">News, absolute</a>
<a href="#t">top</a></p>
<form action="http://garden.example/members.html"><input name="q"></form>
<iframe src="news/2025.html" width="300" height="60"></iframe>
<script>var built = new Image(); built.src = "ht" + "tp:/" + "/cdn.example/built.png";</script>
</body></html>
`

const (
	cdnCSS  = "h1{color:rgb(10, 20, 30)} .cdn{background:url(dot.png)}\n"
	style2  = "#d1{border:3px solid rgb(4, 5, 6)}\n"
	appJS   = "var u = \"http://cdn.example/dot.png?js\";\ndocument.addEventListener(\"DOMContentLoaded\", function () {\n  var i = new Image(); i.id = \"js1\"; i.alt = \"js\"; i.src = u; document.body.appendChild(i);\n});\n"
	gardenH = "garden.example"
	cdnH    = "cdn.example"
)

func dotPNG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	for x := range 4 {
		for y := range 4 {
			img.Set(x, y, color.RGBA{200, 40, 40, 255})
		}
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}

// crawlGardenWACZ crawls the site with lib/crawl (through an origin that
// answers for both hosts, given to the crawler as its proxy) into a WARC,
// packs it into a WACZ, stops the origin and returns the WACZ.
func crawlGardenWACZ(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	garden := filepath.Join(dir, "garden")
	if err := os.CopyFS(garden, os.DirFS("../../testdata/htcache/garden-origin")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(garden, "rich.html"), []byte(richPage), 0o644)
	os.WriteFile(filepath.Join(garden, "style2.css"), []byte(style2), 0o644)
	cdn := filepath.Join(dir, "cdn")
	os.MkdirAll(cdn, 0o755)
	os.WriteFile(filepath.Join(cdn, "cdn.css"), []byte(cdnCSS), 0o644)
	os.WriteFile(filepath.Join(cdn, "app.js"), []byte(appJS), 0o644)
	os.WriteFile(filepath.Join(cdn, "dot.png"), dotPNG(), 0o644)
	gmux := http.NewServeMux()
	gmux.Handle("/old-page", http.RedirectHandler("/new-page.html", http.StatusMovedPermanently))
	gmux.Handle("/", http.FileServer(http.Dir(garden)))
	cdnFiles := http.FileServer(http.Dir(cdn))
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			host = r.Host
		}
		switch host {
		case gardenH:
			gmux.ServeHTTP(w, r)
		case cdnH:
			cdnFiles.ServeHTTP(w, r)
		default:
			http.Error(w, "no such host", http.StatusBadGateway)
		}
	}))
	defer origin.Close() // stopped before any replay
	proxy, _ := url.Parse(origin.URL)

	warcPath := filepath.Join(dir, "garden.warc.gz")
	f, err := os.Create(warcPath)
	if err != nil {
		t.Fatal(err)
	}
	ww := warc.NewWriter(f)
	var mu sync.Mutex
	cfg := crawl.DefaultConfig()
	cfg.Seeds = []string{"http://" + gardenH + "/", "http://" + gardenH + "/rich.html"}
	cfg.Scope = crawl.ScopeAny
	cfg.Robots = false
	cfg.Proxy = proxy
	cfg.Timeout = 10 * time.Second
	c, err := crawl.New(cfg, crawl.SinkFunc(func(cp *crawl.Capture) error {
		mu.Lock()
		defer mu.Unlock()
		req, resp := cp.WARCRecords()
		if resp == nil {
			return nil
		}
		if err := ww.WriteRecord(resp); err != nil {
			return err
		}
		return ww.WriteRecord(req)
	}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if err := ww.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	p := filepath.Join(dir, "garden.wacz")
	zf, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw, err := wacz.NewWriter(zf, wacz.Options{Title: "Garden Club"})
	if err != nil {
		t.Fatal(err)
	}
	in, _ := os.Open(warcPath)
	if err := zw.AddInput("garden.warc.gz", in); err != nil {
		t.Fatal(err)
	}
	in.Close()
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	zf.Close()
	return p
}

// sitetestWACZ crawls lib/internal/sitetest's site (pages on three
// loopback hosts, 127.0.0.2-4, linking each other by absolute URLs, an
// image each) with lib/crawl into a WACZ, and stops the site.
func sitetestWACZ(t *testing.T) (string, *sitetest.Site) {
	t.Helper()
	site := sitetest.Start(t, sitetest.Options{Pages: 12, Hosts: 3, Requisites: true, Links: 4})
	defer site.Close()
	var wb bytes.Buffer
	ww := warc.NewWriter(&wb)
	var mu sync.Mutex
	cfg := crawl.DefaultConfig()
	cfg.Seeds = []string{site.StartURL()}
	cfg.Scope = crawl.ScopeAny
	cfg.Robots = false
	cfg.Timeout = 10 * time.Second
	c, err := crawl.New(cfg, crawl.SinkFunc(func(cp *crawl.Capture) error {
		mu.Lock()
		defer mu.Unlock()
		req, resp := cp.WARCRecords()
		if resp == nil {
			return nil
		}
		if err := ww.WriteRecord(resp); err != nil {
			return err
		}
		return ww.WriteRecord(req)
	}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if err := ww.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "site.wacz")
	zf, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw, err := wacz.NewWriter(zf, wacz.Options{Title: "sitetest"})
	if err != nil {
		t.Fatal(err)
	}
	if err := zw.AddInput("site.warc", &wb); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	zf.Close()
	return p, site
}

// htcacheWACZ is the WACZ `make demo` makes from the HTTrack cache of the
// same site (testdata/htcache/garden, captured at http://127.0.0.1:8766/,
// a loopback port where nothing listens here): htcache export | waczpack.
func htcacheWACZ(t *testing.T) string {
	t.Helper()
	c, err := htcache.Open("../../testdata/htcache/garden")
	if err != nil {
		t.Fatal(err)
	}
	rr, err := htcache.NewRecordReader(c)
	if err != nil {
		t.Fatal(err)
	}
	var wb bytes.Buffer
	ww := warc.NewWriter(&wb)
	for {
		rec, err := rr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := ww.WriteRecord(rec); err != nil {
			t.Fatal(err)
		}
	}
	rr.Close()
	if err := ww.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "demo.wacz")
	zf, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw, err := wacz.NewWriter(zf, wacz.Options{Title: "Garden (from HTTrack)"})
	if err != nil {
		t.Fatal(err)
	}
	if err := zw.AddInput("garden.warc", &wb); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	zf.Close()
	return p
}

// pageState is what the test reads in the replayed page (the iframe's
// document, same origin as the top frame).
type pageState struct {
	Top    string `json:"top"`
	Banner string `json:"banner"`
	Live   string `json:"live"`
	Ready  bool   `json:"ready"`
	Title  string `json:"title"`
	Text   string `json:"text"`
	DocURL string `json:"docURL"`
	Images []struct {
		Src   string `json:"src"`
		Done  bool   `json:"done"`
		Width int    `json:"width"`
	} `json:"images"`
	Sheets []struct {
		Href  string `json:"href"`
		Rules int    `json:"rules"`
	} `json:"sheets"`
	Links  []string          `json:"links"`
	Styles map[string]string `json:"styles"`
}

const readPage = `(() => {
  const f = document.getElementById("wb-frame");
  const out = {top: location.pathname, banner: (document.getElementById("wb-banner") || {}).textContent || "",
    live: (document.getElementById("wb-live") || {}).href || "", ready: false};
  const d = f && f.contentDocument;
  if (!d || d.readyState !== "complete" || !d.body) return JSON.stringify(out);
  const imgs = Array.from(d.images);
  out.ready = imgs.every(i => i.complete) && (d.title !== "Rich page" || !!d.getElementById("js1"));
  out.title = d.title; out.text = d.body.innerText; out.docURL = d.location.href;
  out.images = imgs.map(i => ({src: i.currentSrc || i.src, done: i.complete, width: i.naturalWidth}));
  out.sheets = Array.from(d.styleSheets).map(s => { let n = -1; try { n = s.cssRules.length; } catch (e) {} return {href: s.href || "inline", rules: n}; });
  out.links = Array.from(d.querySelectorAll("a[href], area[href]")).map(a => a.href)
    .concat(Array.from(d.forms).map(f => f.action))
    .concat(Array.from(d.querySelectorAll("iframe")).map(f => f.src));
  const cs = (sel, p) => { const e = d.querySelector(sel); return e ? getComputedStyle(e)[p] : ""; };
  out.styles = {bodyBg: cs("body", "backgroundImage"), h1Color: cs("h1", "color"), d1Border: cs("#d1", "borderTopColor"),
    d1Bg: cs("#d1", "backgroundImage"), d2Bg: cs("#d2", "backgroundImage")};
  return JSON.stringify(out);
})()`

// TestReplayInChromium: the garden site crawled into a WACZ, the WACZ
// make demo makes from its HTTrack cache, and lib/internal/sitetest's
// site on three loopback hosts crawled into a third, their origins
// stopped, served by NewServer on 127.0.0.1, every page loaded in headless
// Chromium through its top frame with every other host unresolvable
// (--host-resolver-rules): each page shows its text, its style sheets are
// applied and its images loaded (naturalWidth > 0), its links and forms
// stay under /COLL/, and of every request Chromium made (the Network
// domain's requestWillBeSent, every frame) none was for another origin
// than the server's. A link clicked in the frame updates the top frame's
// address and banner. A screenshot of a framed page is written to
// $REPLAY_SCREENSHOT when set.
func TestReplayInChromium(t *testing.T) {
	chromium := peertest.Chromium(t)
	var colls []*Collection
	sitePath, site := sitetestWACZ(t)
	for _, c := range []struct{ name, src string }{{"garden", crawlGardenWACZ(t)}, {"demo", htcacheWACZ(t)}, {"site", sitePath}} {
		coll, err := Open(context.Background(), c.name, c.src, Options{CacheDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		defer coll.Close()
		colls = append(colls, coll)
	}
	srv, err := NewServer(colls...)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	self, _ := url.Parse(ts.URL)

	// the pages: every HTML capture of the WACZs, by the CDX API
	type line struct{ Coll, URL, Timestamp, Status string }
	var pages []line
	hosts := []struct{ coll, host string }{{"garden", gardenH}, {"demo", "127.0.0.1:8766"}}
	for h := range site.Options().Hosts {
		hosts = append(hosts, struct{ coll, host string }{"site", site.HostAddr(h)})
	}
	for _, q := range hosts {
		resp, err := http.Get(ts.URL + "/" + q.coll + "/cdx?url=" + q.host + "/&matchType=host&output=json&filter=mime:text/html")
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(resp.Body)
		for {
			var l line
			if err := dec.Decode(&l); err != nil {
				break
			}
			if l.Status == "200" {
				l.Coll = q.coll
				pages = append(pages, l)
			}
		}
		resp.Body.Close()
	}
	// and the redirect, followed by the browser through the rewritten Location
	pages = append(pages, line{Coll: "garden", URL: "http://" + gardenH + "/old-page", Timestamp: "2"})
	for _, pg := range pages {
		t.Logf("page %s %s %s", pg.Coll, pg.Timestamp, pg.URL)
	}
	if len(pages) < 14+site.Options().Pages {
		t.Fatalf("%d HTML pages in the WACZs: %v", len(pages), pages)
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 800),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("hide-scrollbars", true),
	)
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer acancel()
	bctx, bcancel := chromedp.NewContext(actx)
	defer bcancel()
	var mu sync.Mutex
	var requests []string // every URL Chromium asked for
	var failures []string
	byID := map[network.RequestID]string{}
	cspBlocked := map[string]bool{} // refused by the Content-Security-Policy
	if err := chromedp.Listen(bctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			requests = append(requests, e.Request.URL)
			byID[e.RequestID] = e.Request.URL
		case *network.EventLoadingFailed:
			if e.BlockedReason == network.BlockedReasonCsp {
				cspBlocked[byID[e.RequestID]] = true
			} else if !e.Canceled {
				failures = append(failures, fmt.Sprintf("%s: %s %s", byID[e.RequestID], e.ErrorText, e.BlockedReason))
			}
		}
	}); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	ctx, cancel := context.WithTimeout(bctx, 3*time.Minute)
	defer cancel()
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	if _, err := chromedp.Call(ctx, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true}); err != nil {
		t.Fatalf("chromium: %v", err)
	}

	load := func(top string) pageState {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Navigate(top)); err != nil {
			t.Fatalf("%s: %v", top, err)
		}
		var st pageState
		deadline := time.Now().Add(20 * time.Second)
		for {
			s, err := chromedp.Run(ctx, chromedp.Evaluate[string](readPage))
			if err != nil {
				t.Fatalf("%s: %v", top, err)
			}
			st = pageState{}
			json.Unmarshal([]byte(s), &st)
			if st.Ready || time.Now().After(deadline) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		time.Sleep(300 * time.Millisecond) // late requests, if any, are recorded
		return st
	}
	images, sheets, links := 0, 0, 0
	for _, pg := range pages {
		prefix := ts.URL + "/" + pg.Coll + "/"
		top := prefix + pg.Timestamp + "/" + pg.URL
		st := load(top)
		name := pg.Coll + " " + pg.URL
		if !st.Ready {
			t.Errorf("%s: not loaded: %+v", name, st)
			continue
		}
		// its text, as the origin had it
		want := originText(t, pg.URL)
		if pg.Coll == "site" {
			var i int
			fmt.Sscanf(pg.URL[strings.LastIndex(pg.URL, "/")+1:], "%d.html", &i)
			want = sitetest.Marker(i)
		}
		if want != "" && !strings.Contains(squash(st.Text), want) {
			t.Errorf("%s: text %q lacks %q", name, squash(st.Text), want)
		}
		if !strings.Contains(st.Banner, "Archived") || st.Live != pg.URL && pg.Timestamp != "2" {
			t.Errorf("%s: banner %q, live link %q", name, st.Banner, st.Live)
		}
		for _, im := range st.Images {
			images++
			if !im.Done || im.Width == 0 || !strings.HasPrefix(im.Src, prefix) {
				t.Errorf("%s: image %s not loaded (width %d)", name, im.Src, im.Width)
			}
		}
		for _, s := range st.Sheets {
			sheets++
			if s.Rules <= 0 {
				t.Errorf("%s: style sheet %s has no rules (%d)", name, s.Href, s.Rules)
			}
		}
		for _, l := range st.Links {
			links++
			if !strings.HasPrefix(l, prefix) {
				t.Errorf("%s: link %s leaves the archive", name, l)
			}
		}
		if !strings.HasPrefix(st.DocURL, prefix) || !strings.Contains(st.DocURL, "mp_/") {
			t.Errorf("%s: frame at %s", name, st.DocURL)
		}
		switch {
		case pg.Coll == "site":
			if len(st.Images) != 1 || len(st.Links) != site.Options().Links {
				t.Errorf("%s: %d images, %d links", name, len(st.Images), len(st.Links))
			}
		case strings.HasSuffix(pg.URL, "/") || strings.HasSuffix(pg.URL, "/index.html"):
			if !strings.Contains(st.Styles["bodyBg"], prefix) || !strings.Contains(st.Styles["bodyBg"], "leaf.gif") {
				t.Errorf("%s: style.css not applied: body background %q", name, st.Styles["bodyBg"])
			}
		case strings.HasSuffix(pg.URL, "/rich.html"):
			if st.Styles["h1Color"] != "rgb(10, 20, 30)" || st.Styles["d1Border"] != "rgb(4, 5, 6)" ||
				!strings.Contains(st.Styles["d1Bg"], prefix) || !strings.Contains(st.Styles["d2Bg"], prefix) {
				t.Errorf("%s: styles %v", name, st.Styles)
			}
			if len(st.Images) < 3 {
				t.Errorf("%s: %d images, want rose, dot and the script's", name, len(st.Images))
			}
			if shot := os.Getenv("REPLAY_SCREENSHOT"); shot != "" {
				png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
				if err != nil {
					t.Fatal(err)
				}
				os.WriteFile(shot, png, 0o644)
			}
		case strings.HasSuffix(pg.URL, "/old-page"):
			if !strings.Contains(st.DocURL, "/new-page.html") {
				t.Errorf("%s: the redirect led to %s", name, st.DocURL)
			}
		}
	}
	// a click in the frame: the top frame follows
	prefix := ts.URL + "/garden/"
	st := load(prefix + "2/http://" + gardenH + "/")
	href, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const a = document.getElementById("wb-frame").contentDocument.querySelector('a[href*="news/2024"]'); a.click(); return a.href; })()`))
	if err != nil {
		t.Fatal(err)
	}
	var topPath string
	for range 100 {
		time.Sleep(100 * time.Millisecond)
		topPath, _ = chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname + "|" + document.getElementById("wb-live").href + "|" + document.title`))
		if strings.Contains(topPath, "news/2024.html|") {
			break
		}
	}
	if !regexp.MustCompile(`^/garden/[0-9]{14}/http://garden\.example/news/2024\.html\|http://garden\.example/news/2024\.html\|News 2024 \(archived`).MatchString(topPath) {
		t.Errorf("after a click on %s (from %s): top frame %q", href, st.DocURL, topPath)
	}
	// a page script's fetch of a root path comes back through the Referer
	fetched, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("wb-frame").contentWindow.fetch("/img/rose.gif").then(r => r.status + " " + r.url)`, chromedp.EvalAwaitPromise))
	if !strings.HasPrefix(fetched, "200 "+prefix) || !strings.HasSuffix(fetched, "/http://"+gardenH+"/img/rose.gif") {
		t.Errorf("fetch of a root path from the page: %q", fetched)
	}

	mu.Lock()
	defer mu.Unlock()
	leaks := 0
	for _, u := range requests {
		pu, err := url.Parse(u)
		if err != nil || pu.Scheme == "data" || pu.Scheme == "blob" || pu.Scheme == "about" {
			continue
		}
		if pu.Host != self.Host {
			if cspBlocked[u] {
				continue // refused by the browser: never sent
			}
			leaks++
			t.Errorf("request left the server: %s", u)
		}
	}
	// the URL a script built from pieces, which no rewriting can see, is
	// refused by the Content-Security-Policy
	if !cspBlocked["http://cdn.example/built.png"] || len(cspBlocked) != 1 {
		t.Errorf("refused by the CSP: %v, want the script-built URL only", cspBlocked)
	}
	sort.Strings(failures)
	for _, f := range failures {
		t.Logf("failed: %s", f)
	}
	t.Logf("%d pages replayed in Chromium, %d images loaded, %d style sheets applied, %d links inside their collection; %d requests, %d failed, %d refused by the CSP, %d sent to another origin than %s",
		len(pages), images, sheets, links, len(requests), len(failures), len(cspBlocked), leaks, self.Host)
	if images < 5+site.Options().Pages || sheets < 4 || links < 24+site.Options().Pages*site.Options().Links {
		t.Errorf("too little checked: %d images, %d sheets, %d links", images, sheets, links)
	}
}

var spaces = regexp.MustCompile(`\s+`)

func squash(s string) string { return strings.TrimSpace(spaces.ReplaceAllString(s, " ")) }

// originText is the first words of a garden page's text as the origin
// serves it.
func originText(t *testing.T, u string) string {
	pu, err := url.Parse(u)
	if err != nil {
		return ""
	}
	p := pu.Path
	if strings.HasSuffix(p, "/") {
		p += "index.html"
	}
	var b []byte
	if p == "/rich.html" {
		b = []byte(richPage)
	} else if b, err = os.ReadFile(filepath.Join("../../testdata/htcache/garden-origin", filepath.FromSlash(p))); err != nil {
		return ""
	}
	body := b
	if i := bytes.Index(bytes.ToLower(b), []byte("<body")); i >= 0 {
		body = b[i:]
	}
	text := squash(regexp.MustCompile(`(?s)<[^>]*>`).ReplaceAllString(string(body), " "))
	words := strings.Fields(text)
	if len(words) > 3 {
		words = words[:3]
	}
	return strings.Join(words, " ")
}
