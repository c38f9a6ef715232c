package e2e

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/warc"
)

// jsSite is the JS shop (browser_site_test.go) on loopback, with its
// other origin.
type jsSite struct {
	*httptest.Server
	other *httptest.Server
	*JSShop
}

const jsCards = JSCards

func newJSSite(t *testing.T) *jsSite {
	s := &jsSite{JSShop: NewJSShop()}
	s.other = httptest.NewServer(http.HandlerFunc(s.ServeOther))
	s.Other = s.other.URL
	s.Server = httptest.NewServer(s.JSShop)
	t.Cleanup(func() { s.Close(); s.other.Close() })
	return s
}

func (s *jsSite) log() []string { return s.Served() }

// readResponses returns the response records of a WARC: target URI (path
// and query) to block, the header of each, and how many records of each
// type there are; requests holds the request records' blocks by the ID of
// the record they are concurrent to.
func readResponses(t *testing.T, path, base string) (map[string][]byte, map[string]*record.Record, map[record.Type]int) {
	b, r, ty, _ := readRecords(t, path, base)
	return b, r, ty
}

func readRecords(t *testing.T, path, base string) (map[string][]byte, map[string]*record.Record, map[record.Type]int, map[string][]byte) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := warc.NewReader(f, warc.WithPolicy(record.Fail))
	if err != nil {
		t.Fatal(err)
	}
	blocks, recs, types, requests := map[string][]byte{}, map[string]*record.Record{}, map[record.Type]int{}, map[string][]byte{}
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rec.Block)
		if err != nil {
			t.Fatal(err)
		}
		types[rec.Type()]++
		if rec.Type() == record.Request {
			requests[rec.Header.Get(record.FieldConcurrentTo)] = b
		}
		if rec.Type() == record.Response {
			p := strings.TrimPrefix(rec.TargetURI(), base)
			if _, dup := blocks[p]; dup {
				p += " (again)"
			}
			blocks[p], recs[p] = b, rec
		}
	}
	return blocks, recs, types, requests
}

// TestMirrorgetBrowser: a plain crawl of a site built by JavaScript
// captures its shell only; --browser captures what the site serves a
// browser (the JSON list, the 30 images loaded on scroll, the item pages
// and their JSON, a script's POST with its body), the gzip-served script as the gzip bytes sent,
// robots.txt and the scope obeyed for the browser's requests; waczpack
// check passes every record, and waczpack create indexes them.
// --browser=auto renders the pages with a script only, to the same captures.
func TestMirrorgetBrowser(t *testing.T) {
	chromium := needCmd(t, "chromium", "chromium")
	site := newJSSite(t)
	mg := bin(t, "mirrorget")
	dir := t.TempDir()

	plain := filepath.Join(dir, "plain.warc.gz")
	if _, stderr, code := run(t, mg, nil, "-q", "--format", "warc", "-o", plain, site.URL+"/"); code != 0 {
		t.Fatalf("plain crawl: exit %d: %s", code, stderr)
	}
	pb, _, _ := readResponses(t, plain, site.URL)
	for u := range pb {
		if strings.HasPrefix(u, "/api/") || strings.HasPrefix(u, "/img/") || strings.HasPrefix(u, "/item") {
			t.Errorf("plain crawl captured %s", u)
		}
	}

	site.Reset()
	out := filepath.Join(dir, "browser.warc.gz")
	start := time.Now()
	_, stderr, code := run(t, mg, nil, "-v", "--browser", "--browser-path", chromium, "--browser-tabs", "2",
		"--page-timeout", "60s", "--format", "warc", "-o", out, site.URL+"/")
	took := time.Since(start)
	if code != 0 {
		t.Fatalf("--browser crawl: exit %d: %s", code, stderr)
	}
	stderr0 := stderr
	bb, recs, types, reqs := readRecords(t, out, site.URL)
	want := []string{"/", "/robots.txt", "/app.js", "/api/v1/items?n=30"}
	for i := 1; i <= jsCards; i++ {
		want = append(want, fmt.Sprintf("/img/%d.png", i))
	}
	for i := 1; i <= 3; i++ {
		want = append(want, fmt.Sprintf("/item.html?id=%d", i), fmt.Sprintf("/api/v1/item/%d", i))
	}
	want = append(want, "/item.js", "/api/v1/track", "/about.html",
		"/worker.js", "/api/v1/status", "/api/v1/info", "/logo", "/static/logo.png", "/media/clip.webm")
	missing := 0
	for _, u := range want {
		if _, ok := bb[u]; !ok {
			t.Errorf("--browser did not capture %s", u)
			missing++
		}
	}
	// the share of what the site served a browser that was captured
	servedURLs := map[string]bool{}
	for _, u := range site.log() {
		servedURLs[u] = true
	}
	plainN, browserN := 0, 0
	for u := range servedURLs {
		if _, ok := pb[u]; ok {
			plainN++
		}
		if _, ok := bb[u]; ok {
			browserN++
		}
	}
	t.Logf("%d URLs served in the --browser crawl: plain crawl captured %d (%.0f%%), --browser %d (%.0f%%) in %v; records %v",
		len(servedURLs), plainN, 100*float64(plainN)/float64(len(servedURLs)), browserN, 100*float64(browserN)/float64(len(servedURLs)), took.Round(time.Millisecond), types)

	// byte-exact: the script's payload is the gzip bytes sent
	if b, ok := bb["/app.js"]; ok {
		_, payload, _ := bytes.Cut(b, []byte("\r\n\r\n"))
		if !bytes.Equal(payload, site.AppGz) {
			t.Errorf("/app.js payload: %d bytes, not the %d gzip bytes sent", len(payload), len(site.AppGz))
		}
		if !bytes.Contains(b, []byte("Content-Encoding: gzip")) {
			t.Errorf("/app.js record lost its Content-Encoding")
		}
		if _, dup := bb["/app.js (again)"]; dup {
			t.Errorf("/app.js captured twice")
		}
	}
	// byte-exact: the brotli answer is the br bytes sent, its digests those
	// of the bytes in the record
	if b, ok := bb["/api/v1/info"]; ok {
		head, payload, _ := bytes.Cut(b, []byte("\r\n\r\n"))
		if !bytes.Equal(payload, site.InfoBr) {
			t.Errorf("/api/v1/info payload: %d bytes %.40q, not the %d brotli bytes sent", len(payload), payload, len(site.InfoBr))
		}
		if !bytes.Contains(head, []byte("Content-Encoding: br\r\n")) {
			t.Errorf("/api/v1/info record lost its Content-Encoding: br: %q", head)
		}
		rec := recs["/api/v1/info"]
		if got, want := rec.Header.Get(record.FieldPayloadDigest), a2wSHA1(payload); got != want {
			t.Errorf("/api/v1/info: WARC-Payload-Digest %s, the payload's %s", got, want)
		}
		if got, want := rec.Header.Get(record.FieldBlockDigest), a2wSHA1(b); got != want {
			t.Errorf("/api/v1/info: WARC-Block-Digest %s, the block's %s", got, want)
		}
	}
	// the video the browser reads by ranges: fetched whole, once, 200
	for u, b := range bb {
		if bytes.HasPrefix(b, []byte("HTTP/1.1 206")) {
			t.Errorf("%s: a 206 record", u)
		}
	}
	if b, ok := bb["/media/clip.webm"]; ok {
		head, payload, _ := bytes.Cut(b, []byte("\r\n\r\n"))
		if !bytes.HasPrefix(head, []byte("HTTP/1.1 200 ")) || !bytes.Equal(payload, site.Video) {
			t.Errorf("/media/clip.webm record: %.60q, %d bytes of %d", head, len(payload), len(site.Video))
		}
		if _, again := bb["/media/clip.webm (again)"]; again {
			t.Errorf("/media/clip.webm recorded more than once")
		}
	}
	if rs := site.Ranges(); len(rs) > 0 {
		t.Errorf("the site was sent Range fields: %q", rs)
	}
	// the 302 to an image, and the image
	if b := bb["/logo"]; !bytes.HasPrefix(b, []byte("HTTP/1.1 302 ")) {
		t.Errorf("/logo record: %.60q", b)
	}
	if b := bb["/api/v1/items?n=30"]; !bytes.Contains(b, []byte("Card 30 from JSON")) {
		t.Errorf("JSON list record: %.200q", b)
	}
	// the script's POST: sent with its body, recorded with it
	if rec := recs["/api/v1/track"]; rec != nil {
		if !bytes.Contains(bb["/api/v1/track"], []byte(`tracked POST {"seen":30}`)) {
			t.Errorf("POST response record: %.300q", bb["/api/v1/track"])
		}
		rq := reqs[rec.ID()]
		if !bytes.HasPrefix(rq, []byte("POST /api/v1/track HTTP/1.1\r\n")) || !bytes.HasSuffix(rq, []byte("\r\n\r\n"+`{"seen":30}`)) ||
			!bytes.Contains(rq, []byte("Content-Length: 11\r\n")) {
			t.Errorf("POST request record (concurrent to %s): %q", rec.ID(), rq)
		}
	}
	// request records are paired with their response
	if types[record.Request] < types[record.Response] {
		t.Errorf("records %v: a response without its request", types)
	}
	if rec := recs["/api/v1/items?n=30"]; rec != nil && rec.Header.Get(record.FieldIPAddress) == "" {
		t.Errorf("JSON list record without WARC-IP-Address")
	}
	// robots.txt and the scope hold for the browser's requests
	for _, u := range site.log() {
		if strings.HasPrefix(u, "/private/") {
			t.Errorf("served %s, disallowed by robots.txt", u)
		}
	}
	if n := site.OtherHits(); n != 0 {
		t.Errorf("the out-of-scope origin was asked %d times", n)
	}
	if !strings.Contains(stderr, "rendered "+site.URL+"/:") {
		t.Errorf("no 'rendered' line for the start page in -v output:\n%s", stderr)
	}

	if !strings.Contains(stderr, "rendered "+site.URL+"/about.html:") {
		t.Errorf("--browser did not render /about.html")
	}

	// --browser=auto: the pages with a script only; the same captures
	auto := filepath.Join(dir, "auto.warc.gz")
	_, stderr, code = run(t, mg, nil, "-v", "--browser", "auto", "--browser-path", chromium, "--format", "warc", "-o", auto, site.URL+"/")
	if code != 0 {
		t.Fatalf("--browser auto: exit %d: %s", code, stderr)
	}
	ab, _, _ := readResponses(t, auto, site.URL)
	for _, u := range want {
		if _, ok := ab[u]; !ok {
			t.Errorf("--browser=auto did not capture %s", u)
		}
	}
	if strings.Contains(stderr, "rendered "+site.URL+"/about.html:") || !strings.Contains(stderr, "rendered "+site.URL+"/item.html?id=1:") {
		t.Errorf("--browser=auto rendered the page without a script, or not one with:\n%s", stderr)
	}

	wp := bin(t, "waczpack")
	so, se, code := run(t, wp, nil, "check", out)
	if code != 0 {
		t.Errorf("waczpack check: exit %d\n%s%s", code, so, se)
	}
	nrec := 0
	for _, n := range types {
		nrec += n
	}
	if want := fmt.Sprintf("ok: %d records", nrec); !strings.Contains(string(so)+se, want) {
		t.Errorf("waczpack check: %q, want %q", string(so)+se, want)
	}
	t.Logf("waczpack check: %s", strings.TrimSpace(string(so)+se))
	wacz := filepath.Join(dir, "browser.wacz")
	if _, se, code := run(t, wp, nil, "create", "-o", wacz, out); code != 0 {
		t.Fatalf("waczpack create: exit %d: %s", code, se)
	}
	indexed := waczIndexURLs(t, wacz)
	for _, u := range want {
		if !indexed[site.URL+u] {
			t.Errorf("the WACZ index lacks %s", u)
		}
	}
	t.Logf("WACZ index: %d URLs", len(indexed))

	// per rendered page: a screenshot (urn:view:) and the text (urn:text:),
	// concurrent to the page's response record; the text in pages.jsonl
	var renderedPages []string
	for _, line := range strings.Split(stderr0, "\n") {
		if u, ok := strings.CutPrefix(line, "rendered "); ok {
			if i := strings.Index(u, ": "); i > 0 {
				renderedPages = append(renderedPages, u[:i])
			}
		}
	}
	views, texts := renderResources(t, out)
	if len(views) != len(renderedPages) || len(texts) != len(renderedPages) {
		t.Errorf("%d pages rendered, %d urn:view: and %d urn:text: records", len(renderedPages), len(views), len(texts))
	}
	for _, pu := range renderedPages {
		resp := recs[strings.TrimPrefix(pu, site.URL)]
		for kind, m := range map[string]map[string][]renderRes{"view": views, "text": texts} {
			rs := m[pu]
			if len(rs) != 1 {
				t.Errorf("%s: %d urn:%s: records", pu, len(rs), kind)
				continue
			}
			if resp == nil || rs[0].rec.Header.Get(record.FieldConcurrentTo) != resp.ID() {
				t.Errorf("urn:%s:%s: WARC-Concurrent-To %q, not the page's response record", kind, pu, rs[0].rec.Header.Get(record.FieldConcurrentTo))
			}
		}
		if rs := views[pu]; len(rs) == 1 {
			if ct := rs[0].rec.ContentType(); ct != "image/png" {
				t.Errorf("urn:view:%s: Content-Type %q", pu, ct)
			}
			cfg, err := png.DecodeConfig(bytes.NewReader(rs[0].body))
			if err != nil || cfg.Width != 1280 || cfg.Height != 800 {
				t.Errorf("urn:view:%s: %dx%d, %v (want a 1280x800 PNG)", pu, cfg.Width, cfg.Height, err)
			}
		}
		if rs := texts[pu]; len(rs) == 1 && rs[0].rec.ContentType() != "text/plain; charset=utf-8" {
			t.Errorf("urn:text:%s: Content-Type %q", pu, rs[0].rec.ContentType())
		}
	}
	textOf := func(pu string) string {
		if rs := texts[pu]; len(rs) == 1 {
			return string(rs[0].body)
		}
		return ""
	}
	for i := 1; i <= 3; i++ {
		if tx := textOf(fmt.Sprintf("%s/item.html?id=%d", site.URL, i)); !strings.Contains(tx, fmt.Sprintf("Item %d is described by JSON", i)) {
			t.Errorf("urn:text: of item %d: %q", i, tx)
		}
	}
	// the title the item's script set, in the urn:text: record's metadata
	for i := 1; i <= 3; i++ {
		pu := fmt.Sprintf("%s/item.html?id=%d", site.URL, i)
		if rs := texts[pu]; len(rs) == 1 {
			if got, want := rs[0].rec.Header.Get(record.FieldJSONMetadata), fmt.Sprintf(`{"title":"Item %d"}`, i); got != want {
				t.Errorf("urn:text:%s: WARC-JSON-Metadata %q, want %q", pu, got, want)
			}
		}
	}
	if tx := textOf(site.URL + "/"); !strings.Contains(tx, "Card 30 from JSON") || !strings.Contains(tx, "loaded 30") ||
		!strings.Contains(tx, "brotli note decoded") || !strings.Contains(tx, "ready from worker") {
		t.Errorf("urn:text: of the start page: %.300q", tx)
	}
	pages := wzReadPages(t, wacz)
	withText := 0
	for _, pg := range pages {
		u, _ := pg["url"].(string)
		tx, _ := pg["text"].(string)
		if want := strings.TrimSpace(textOf(u)); want != "" {
			if tx != want {
				t.Errorf("pages.jsonl %s: text %.200q, not its urn:text: record's %.200q", u, tx, want)
			} else {
				withText++
			}
		}
		if strings.HasPrefix(u, "urn:") {
			t.Errorf("pages.jsonl lists %s", u)
		}
	}
	for i := 1; i <= 3; i++ {
		found := false
		for _, pg := range pages {
			if pg["url"] == fmt.Sprintf("%s/item.html?id=%d", site.URL, i) {
				tx, _ := pg["text"].(string)
				title, _ := pg["title"].(string)
				found = strings.Contains(tx, fmt.Sprintf("Item %d is described by JSON", i)) && title == fmt.Sprintf("Item %d", i)
			}
		}
		if !found {
			t.Errorf("pages.jsonl: no page item.html?id=%d with its JSON-rendered text and the title its script set", i)
		}
	}
	if so, se, code := run(t, wp, nil, "validate", wacz); code != 0 {
		t.Errorf("waczpack validate: exit %d\n%s%s", code, so, se)
	}
	t.Logf("%d pages rendered: %d urn:view: and %d urn:text: records; pages.jsonl: %d pages, %d with the rendered text", len(renderedPages), len(views), len(texts), len(pages), withText)

	// the WACZ replays offline in ReplayWeb.page
	site.Close()
	site.other.Close()
	t.Run("ReplayWebPage", func(t *testing.T) {
		browserReplay(t, wacz, site.URL+"/", site.URL+"/item.html?id=1")
	})
}

// renderResources returns the urn:view: and urn:text: resource records of
// a WARC by page URL, with their blocks.
func renderResources(t *testing.T, path string) (views, texts map[string][]renderRes) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := warc.NewReader(f, warc.WithPolicy(record.Fail))
	if err != nil {
		t.Fatal(err)
	}
	views, texts = map[string][]renderRes{}, map[string][]renderRes{}
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rec.Block)
		if err != nil {
			t.Fatal(err)
		}
		u := rec.TargetURI()
		if !strings.HasPrefix(u, "urn:") {
			continue
		}
		if rec.Type() != record.Resource {
			t.Errorf("%s: a %s record, not resource", u, rec.Type())
		}
		if pu, ok := strings.CutPrefix(u, "urn:view:"); ok {
			views[pu] = append(views[pu], renderRes{rec, b})
		} else if pu, ok := strings.CutPrefix(u, "urn:text:"); ok {
			texts[pu] = append(texts[pu], renderRes{rec, b})
		}
	}
	return views, texts
}

// renderRes is a resource record of a rendered page and its block.
type renderRes struct {
	rec  *record.Record
	body []byte
}

// waczIndexURLs returns the URLs of the CDXJ index of a WACZ.
func waczIndexURLs(t *testing.T, path string) map[string]bool {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	urls := map[string]bool{}
	for _, f := range zr.File {
		if !strings.HasPrefix(f.Name, "indexes/") || strings.HasSuffix(f.Name, ".idx") {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		var r io.Reader = rc
		if strings.HasSuffix(f.Name, ".gz") {
			if r, err = gzip.NewReader(rc); err != nil {
				t.Fatal(err)
			}
		}
		b, err := io.ReadAll(r)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			i := strings.Index(line, "{")
			if i < 0 {
				continue
			}
			var m struct {
				URL string `json:"url"`
			}
			if json.Unmarshal([]byte(line[i:]), &m) == nil {
				urls[m.URL] = true
			}
		}
	}
	if len(urls) == 0 {
		t.Fatalf("%s: no index", path)
	}
	return urls
}

// TestMirrorgetBrowserRate: --rate 2 (issue 26's figure) holds for the
// requests of pages rendered in 2 tabs: the server sees at most 2 of them
// in a second.
func TestMirrorgetBrowserRate(t *testing.T) {
	chromium := needCmd(t, "chromium", "chromium")
	site := newJSSite(t)
	out := filepath.Join(t.TempDir(), "rate.warc.gz")
	_, stderr, code := run(t, bin(t, "mirrorget"), nil, "-q", "--browser", "--browser-path", chromium, "--browser-tabs", "2",
		"--rate", "2", "-r", "1", "--format", "warc", "-o", out, site.URL+"/")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	times := site.Times()
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	minGap := time.Hour
	for i := 1; i < len(times); i++ {
		minGap = min(minGap, times[i].Sub(times[i-1]))
	}
	// as TestMirrorgetPoliteness: handler start times lag the wire by the
	// server's scheduling delay (here beside a busy Chromium)
	const lag = 25 * time.Millisecond
	worst := 0
	for i := range times {
		n := 0
		for j := i; j < len(times) && times[j].Sub(times[i]) < time.Second-lag; j++ {
			n++
		}
		worst = max(worst, n)
	}
	span := times[len(times)-1].Sub(times[0])
	t.Logf("%d requests in %v, at most %d within a second, closest two %v apart (--rate 2: 500ms)",
		len(times), span.Round(time.Millisecond), worst, minGap.Round(time.Millisecond))
	if len(times) < 20 || worst > 2 {
		t.Errorf("%d requests, %d within one second under --rate 2", len(times), worst)
	}
}
