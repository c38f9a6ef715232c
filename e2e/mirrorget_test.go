package e2e

import (
	"bytes"
	"context"
	"crypto/sha1"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/htcache"
	"github.com/arcport/arcport/lib/links"
	"github.com/arcport/arcport/lib/record"
)

// mgSite is a local site with every link syntax of "Copying Websites"
// (section 4.2), CSS, JavaScript and Java class links, frames, a refresh, a
// redirect, a 404, a robots.txt Disallow, links out of scope and a 3 MB file.
// It serves ETag and Last-Modified and answers conditional requests, and logs
// what it sees.
type mgSite struct {
	srv   *httptest.Server
	host  string
	mu    sync.Mutex
	files map[string]mgFile
	log   []mgHit
	cur   int
	max   int
	delay time.Duration
}

type mgFile struct {
	ctype string
	body  []byte
	mod   time.Time
}

type mgHit struct {
	uri    string
	at     time.Time
	inm    string
	ims    string
	status int
	bytes  int
}

const mgBigSize = 3 << 20

func newMGSite(t *testing.T) *mgSite {
	s := &mgSite{files: map[string]mgFile{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	s.host = strings.TrimPrefix(s.srv.URL, "http://")
	H := s.host
	mod := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	add := func(p, ctype, body string) {
		s.files[p] = mgFile{ctype, []byte(strings.ReplaceAll(body, "{H}", H)), mod}
	}
	page := func(title string) string {
		return `<html><head><title>` + title + `</title></head><body><a href="/site/">home</a></body></html>`
	}
	add("/robots.txt", "text/plain", "User-agent: *\nDisallow: /site/private/\n")
	add("/site/", "text/html; charset=utf-8", `<!DOCTYPE html>
<html><head><title>mirrorget e2e</title>
<link rel=stylesheet href="css/main.css">
<script src="js/app.js"></script>
<style>@import url("css/imported.css"); body { background: url(img/bg.gif) }</style>
</head><body>
<a href="http://{H}/site/page 2.html">double quoted</a>
<a href='http://{H}/site/page 2.html'>single quoted</a>
<a href="http://{H}/site/page&#32;2.html">HTML-escaped</a>
<a href="http://{H}/site/page%202.html">URL-escaped</a>
<a href=http://{H}/site/page%202.html>URL-escaped, no quote</a>
<a href=http&#58;//{H}/site/page%202.html>multiple-escaped, no quotes</a>
<a href="http://{H}/site/cr`+"\r\n"+`link.html">unexpected carriage return</a>
<a href="http:proto-nohost.html">protocol in URL, but no host</a>
<a href="//{H}/site/scheme-relative.html">no protocol scheme</a>
<a href="http://{H}/site/broken.html"title=broken>broken tag syntax</a>
<a href="http://{H}/site/absolute.html">absolute in scope</a>
<a href="query.html?a=1&amp;b=2">query string</a>
<a href="r&eacute;sum&#xE9;.html">non-ASCII</a>
<a href="%C3%BCber.html">escaped non-ASCII</a>
<a href="missing.html">404</a>
<a href="moved.html">redirect</a>
<a href="private/secret.html">robots.txt Disallow</a>
<a href="/outside.html">outside the directory</a>
<a href="http://other.invalid/ext.html">other host</a>
<a href="big.bin">3 MB</a>
<a href="frames.html">frames</a>
<a href="refresh.html">refresh</a>
<a href="applet.html">applet</a>
<a href="index_1.html">collision 1</a> <a href="INDEX_1.HTML">collision 2</a> <a href="index_1.cgi">collision 3</a>
<a href="mailto:webmaster@example.com">mail</a>
<img src="img/logo.gif" srcset="img/logo-2x.gif 2x">
<script>foo.src = "img/js-assigned.gif"; bar.src = dir + "/img/expr.gif"; window.open("popup.html");</script>
</body></html>
`)
	add("/site/css/main.css", "text/css", "@import \"more.css\";\nbody { background: url('../img/css-bg.gif') }\n.x { background: url(icons/x.png) }\n")
	add("/site/css/more.css", "text/css", "p { color: red }\n")
	add("/site/css/imported.css", "text/css", "h1 { background: url(\"../img/imported-bg.gif\") }\n")
	add("/site/js/app.js", "application/javascript", "var i = new Image(); i.src = \"../img/from-js.gif\";\nvar s = base + \"/img/not-taken.gif\";\n")
	add("/site/frames.html", "text/html", `<html><frameset><frame src="frame1.html"><frame src='frame2.html'></frameset></html>`)
	add("/site/refresh.html", "text/html", `<html><head><meta http-equiv="refresh" content="0; url=refreshed.html"></head></html>`)
	add("/site/applet.html", "text/html", `<html><body><applet code="Clock.class" codebase="applet/" width=10 height=10></applet></body></html>`)
	for _, p := range []string{"page%202.html", "crlink.html", "proto-nohost.html", "scheme-relative.html", "broken.html",
		"absolute.html", "query.html?a=1&b=2", "r%C3%A9sum%C3%A9.html", "%C3%BCber.html", "target.html",
		"frame1.html", "frame2.html", "refreshed.html", "popup.html", "index_1.html", "INDEX_1.HTML", "index_1.cgi"} {
		add("/site/"+p, "text/html", page(p))
	}
	gif := "GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"
	for _, p := range []string{"img/bg.gif", "img/css-bg.gif", "img/imported-bg.gif", "img/logo.gif", "img/logo-2x.gif",
		"img/js-assigned.gif", "img/from-js.gif", "applet/images/face.gif"} {
		add("/site/"+p, "image/gif", gif)
	}
	add("/site/css/icons/x.png", "image/png", "\x89PNG\r\n\x1a\n")
	for _, c := range []string{"applet/Clock.class", "applet/com/example/Hands.class"} {
		b, err := os.ReadFile("../testdata/links/" + c) // compiled from the .java beside them
		if err != nil {
			t.Fatal(err)
		}
		s.files["/site/"+c] = mgFile{"application/java-vm", b, mod}
	}
	big := make([]byte, mgBigSize)
	for i := range big {
		big[i] = byte(i * 7 / 3)
	}
	s.files["/site/big.bin"] = mgFile{"application/octet-stream", big, mod}
	add("/site/private/secret.html", "text/html", page("secret"))
	add("/outside.html", "text/html", page("outside"))
	return s
}

type countingWriter struct {
	http.ResponseWriter
	status int
	n      int
}

func (c *countingWriter) WriteHeader(code int) {
	c.status = code
	c.ResponseWriter.WriteHeader(code)
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if c.status == 0 {
		c.status = 200
	}
	n, err := c.ResponseWriter.Write(p)
	c.n += n
	return n, err
}

func (s *mgSite) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.cur++
	s.max = max(s.max, s.cur)
	f, ok := s.files[r.URL.RequestURI()]
	delay := s.delay
	s.mu.Unlock()
	arrived := time.Now()
	cw := &countingWriter{ResponseWriter: w}
	defer func() {
		s.mu.Lock()
		s.cur--
		s.log = append(s.log, mgHit{r.URL.RequestURI(), arrived, r.Header.Get("If-None-Match"), r.Header.Get("If-Modified-Since"), cw.status, cw.n})
		s.mu.Unlock()
	}()
	time.Sleep(delay)
	switch {
	case r.URL.Path == "/site/moved.html":
		http.Redirect(cw, r, "/site/target.html", http.StatusMovedPermanently)
	case !ok:
		http.NotFound(cw, r)
	default:
		cw.Header().Set("Content-Type", f.ctype)
		cw.Header().Set("ETag", fmt.Sprintf(`"%x"`, sha1.Sum(f.body)))
		http.ServeContent(cw, r, "", f.mod, bytes.NewReader(f.body))
	}
}

func (s *mgSite) hits() []mgHit {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := append([]mgHit(nil), s.log...)
	s.log = nil
	s.max = 0
	return h
}

// mgLinkTarget returns the rewritten href of the link whose text is
// "collision N" for the URL name, from the saved index.
func mgLinkTarget(t *testing.T, idx []byte, name string) string {
	t.Helper()
	n := map[string]string{"index_1.html": "1", "INDEX_1.HTML": "2", "index_1.cgi": "3"}[name]
	end := bytes.Index(idx, []byte(">collision "+n+"<"))
	if end < 0 {
		t.Fatalf("no collision %s link", n)
	}
	start := bytes.LastIndex(idx[:end], []byte(`href="`))
	return string(idx[start+6 : end-1])
}

// mgExpected is what a crawl of http://H/site/ must fetch: every link of the
// chapter's syntax list, CSS, JS and class links, frames, refresh, redirect
// target, requisites on the same host outside the directory (the class
// file's /tick.au and ../../images/hands.png, both 404) -- and nothing else.
var mgExpected = []string{
	"/images/hands.png", "/robots.txt",
	"/site/", "/site/%C3%BCber.html", "/site/absolute.html", "/site/applet.html",
	"/site/applet/Clock.class", "/site/applet/com/example/Hands.class", "/site/applet/images/face.gif",
	"/site/big.bin", "/site/broken.html", "/site/crlink.html",
	"/site/css/icons/x.png", "/site/css/imported.css", "/site/css/main.css", "/site/css/more.css",
	"/site/INDEX_1.HTML", "/site/frame1.html", "/site/frame2.html", "/site/frames.html",
	"/site/img/bg.gif", "/site/img/css-bg.gif", "/site/img/from-js.gif", "/site/img/imported-bg.gif",
	"/site/img/js-assigned.gif", "/site/img/logo-2x.gif", "/site/img/logo.gif",
	"/site/index_1.cgi", "/site/index_1.html", "/site/js/app.js", "/site/missing.html", "/site/moved.html", "/site/page%202.html", "/site/popup.html",
	"/site/proto-nohost.html", "/site/query.html?a=1&b=2", "/site/r%C3%A9sum%C3%A9.html",
	"/site/refresh.html", "/site/refreshed.html", "/site/scheme-relative.html", "/site/target.html",
	"/tick.au",
}

func init() { sort.Strings(mgExpected) }

// mgNotFetched must never be requested.
var mgNotFetched = []string{"/site/private/secret.html", "/outside.html", "/site/img/expr.gif", "/site/img/not-taken.gif"}

func hitURIs(hs []mgHit) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.uri)
	}
	sort.Strings(out)
	return out
}

func mgEq(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

// readARCURIs reads an ARC strictly and returns its URLs relative to site.
func readARCURIs(t *testing.T, data []byte, site string) []string {
	t.Helper()
	var out []string
	for _, c := range readARC(t, data, record.Fail) {
		if c.rec.Type() == record.ARCFiledesc {
			continue
		}
		out = append(out, strings.TrimPrefix(c.rec.TargetURI(), site))
	}
	sort.Strings(out)
	return out
}

// warcResponses reads a WARC strictly, verifying digests; it returns the
// response URIs relative to site and the records by type.
func warcResponses(t *testing.T, data []byte, site string) (responses []string, types map[string]int) {
	t.Helper()
	types = map[string]int{}
	ids := map[string]bool{}
	var concurrent []string
	for _, c := range readWARC(t, data) {
		rec := c.rec
		types[string(rec.Type())]++
		ids[rec.ID()] = true
		switch rec.Type() {
		case record.Response:
			responses = append(responses, strings.TrimPrefix(rec.TargetURI(), site))
		case record.Request:
			concurrent = append(concurrent, rec.Header.Get(record.FieldConcurrentTo))
		}
	}
	for _, c := range concurrent {
		if !ids[c] {
			t.Errorf("request concurrent to unknown record %s", c)
		}
	}
	sort.Strings(responses)
	return responses, types
}

// checkMirror checks that every link in the mirror's pages and style sheets
// is either a relative link to a file that exists or an absolute URL of a
// page that was not saved, and that no link points back at a saved URL.
func checkMirror(t *testing.T, dir, site string, absOK map[string]bool) (pages int) {
	t.Helper()
	const fake = "http://mirror.invalid/"
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.Contains(p, "hts-cache") {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		var parse func(io.Reader, *url.URL, links.Func) error
		switch {
		case strings.HasSuffix(rel, ".html"):
			parse = links.HTML
		case strings.HasSuffix(rel, ".css"):
			parse = links.CSS
		default:
			return nil
		}
		pages++
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		base, _ := url.Parse(fake + rel)
		return parse(bytes.NewReader(b), base, func(l links.Link) error {
			switch {
			case strings.HasPrefix(l.URL, fake):
				local, err := url.PathUnescape(strings.TrimPrefix(l.URL, fake))
				if err != nil {
					t.Errorf("%s: bad local link %q", rel, l.Value)
					return nil
				}
				if i := strings.IndexByte(local, '?'); i >= 0 {
					local = local[:i]
				}
				if st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(local))); err != nil || st.IsDir() {
					t.Errorf("%s: local link %q does not resolve to a file", rel, l.Value)
				}
			case strings.HasPrefix(l.URL, site):
				if !absOK[strings.TrimPrefix(l.URL, site)] {
					t.Errorf("%s: link %q left absolute though its target is mirrored", rel, l.Value)
				}
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return pages
}

func TestMirrorgetSite(t *testing.T) {
	mg := bin(t, "mirrorget")
	s := newMGSite(t)
	site := s.srv.URL
	dir := t.TempDir()
	mirrorDir := filepath.Join(dir, "mirror")

	// First run: ARC on stdout and a mirror.
	arcData, stderr, code := run(t, mg, nil, "-q", "-c", "4", "-O", mirrorDir, site+"/site/")
	if code != 0 {
		t.Fatalf("mirrorget exit %d: %s", code, stderr)
	}
	hits := s.hits()
	mgEq(t, "requests seen by the server", hitURIs(hits), mgExpected)
	for _, h := range hits {
		for _, no := range mgNotFetched {
			if h.uri == no {
				t.Errorf("%s was requested", no)
			}
		}
		if h.inm != "" || h.ims != "" {
			t.Errorf("first run sent a conditional request for %s", h.uri)
		}
	}
	mgEq(t, "ARC records", readARCURIs(t, arcData, site), mgExpected)

	// The ARC converts with arc2warc into a WARC whose digests verify...
	a2w := bin(t, "arc2warc")
	warcData, stderr, code := run(t, a2w, arcData)
	if code != 0 {
		t.Fatalf("arc2warc exit %d: %s", code, stderr)
	}
	resp, _ := warcResponses(t, warcData, site)
	mgEq(t, "arc2warc responses", resp, mgExpected)
	// ...and packs with waczpack into a valid WACZ.
	arcPath := filepath.Join(dir, "crawl.arc.gz")
	os.WriteFile(arcPath, arcData, 0o644)
	wz := bin(t, "waczpack")
	waczPath := filepath.Join(dir, "crawl.wacz")
	if _, stderr, code := run(t, wz, nil, "create", "-o", waczPath, arcPath); code != 0 {
		t.Fatalf("waczpack create exit %d: %s", code, stderr)
	}
	if out, stderr, code := run(t, wz, nil, "validate", waczPath); code != 0 {
		t.Fatalf("waczpack validate exit %d: %s%s", code, out, stderr)
	}
	if out, _, _ := run(t, wz, nil, "get", waczPath, site+"/site/css/more.css"); string(out) != "p { color: red }\n" {
		t.Errorf("waczpack get more.css = %q", out)
	}

	// The mirror: every local link resolves; what was not saved stays absolute.
	absOK := map[string]bool{"/site/missing.html": true, "/site/private/secret.html": true, "/outside.html": true}
	if n := checkMirror(t, mirrorDir, site, absOK); n < 20 {
		t.Errorf("only %d pages in the mirror", n)
	}
	hostDir := filepath.Join(mirrorDir, strings.ReplaceAll(s.host, ":", "_"))
	big, err := os.ReadFile(filepath.Join(hostDir, "site", "big.bin"))
	if err != nil || !bytes.Equal(big, s.files["/site/big.bin"].body) {
		t.Errorf("big.bin in the mirror: %d bytes, %v", len(big), err)
	}
	idx, err := os.ReadFile(filepath.Join(hostDir, "site", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`href="page%202.html"`, `href="r%c3%a9sum%c3%a9.html"`, `href="moved.html"`} {
		if want == `href="moved.html"` {
			// the redirect is followed to target.html's file
			want = `href="target.html"`
		}
		if !bytes.Contains(idx, []byte(want)) {
			t.Errorf("index.html lacks %s", want)
		}
	}
	// index_1.html, INDEX_1.HTML and index_1.cgi (HTML) are three files
	var titles []string
	for _, name := range []string{"index_1.html", "INDEX_1.HTML", "index_1.cgi"} {
		rel := mgLinkTarget(t, idx, name)
		b, err := os.ReadFile(filepath.Join(hostDir, "site", filepath.FromSlash(rel)))
		if err != nil {
			t.Errorf("%s saved as %q: %v", name, rel, err)
			continue
		}
		title := string(b[bytes.Index(b, []byte("<title>"))+7 : bytes.Index(b, []byte("</title>"))])
		if title != name {
			t.Errorf("link to %s leads to %s, the file of %s", name, rel, title)
		}
		titles = append(titles, rel+" "+title)
	}
	// which of them gets index_1.html depends on which answer comes first
	lower := map[string]bool{}
	for _, tl := range titles {
		rel, title, _ := strings.Cut(tl, " ")
		lower[strings.ToLower(rel)] = true
		if !strings.EqualFold(filepath.Ext(rel), ".html") {
			t.Errorf("%s saved as %s: not an .html name", title, rel)
		}
	}
	if len(titles) != 3 || len(lower) != 3 {
		t.Errorf("collisions: %q are not three distinct files", titles)
	}
	if !bytes.Contains(idx, []byte(`href="`+site+`/outside.html"`)) {
		t.Errorf("out-of-scope link not made absolute in index.html")
	}
	cache, err := htcache.Open(mirrorDir)
	if err != nil {
		t.Fatal(err)
	}
	e, err := cache.Find(site + "/site/")
	if err != nil || e.Meta.ETag == "" || !e.Meta.InCache || e.Meta.Save == "" {
		t.Errorf("cache entry of the index: %+v, %v", e, err)
	}
	cache.Close()

	// Second run: an update. One page changed; everything else answers 304.
	s.mu.Lock()
	f := s.files["/site/frame1.html"]
	f.body = []byte(`<html><body>changed <a href="/site/">home</a></body></html>`)
	f.mod = f.mod.Add(time.Hour)
	s.files["/site/frame1.html"] = f
	s.mu.Unlock()
	warc2, stderr, code := run(t, mg, nil, "-q", "--format", "warc", "-O", mirrorDir, site+"/site/")
	if code != 0 {
		t.Fatalf("update run exit %d: %s", code, stderr)
	}
	hits = s.hits()
	mgEq(t, "requests of the update run", hitURIs(hits), mgExpected)
	sent, notModified, conditional := 0, 0, 0
	for _, h := range hits {
		sent += h.bytes
		if h.status == 304 {
			notModified++
		}
		if h.inm != "" {
			conditional++
		}
	}
	// 200s of the first run: all but robots (200 too), 404s and the 301
	if conditional != len(mgExpected)-5 || notModified != conditional-1 {
		t.Errorf("update: %d conditional requests, %d answered 304", conditional, notModified)
	}
	if sent > 2000 {
		t.Errorf("update run: the server sent %d body bytes", sent)
	}
	resp, types := warcResponses(t, warc2, site)
	mgEq(t, "update WARC responses", resp, mgExpected)
	if types["warcinfo"] != 1 || types["request"] != len(mgExpected) {
		t.Errorf("update WARC record types %v", types)
	}
	changed, _ := os.ReadFile(filepath.Join(hostDir, "site", "frame1.html"))
	if !bytes.Contains(changed, []byte("changed")) || !bytes.Contains(changed, []byte(`href="index.html"`)) {
		t.Errorf("changed page not replaced and rewritten: %s", changed)
	}
	checkMirror(t, mirrorDir, site, absOK)
	if _, err := os.Stat(filepath.Join(mirrorDir, "hts-cache", "old.zip")); err == nil {
		t.Error("hts-cache/old.zip left after a complete update")
	}

	// Scan rules as bare arguments: later rule wins.
	out, stderr, code := run(t, mg, nil, "-q", "--format", "warc", "--robots", "off", site+"/site/", "-*.gif", "+*/outside.html", "-*/big.bin")
	if code != 0 {
		t.Fatalf("filters run exit %d: %s", code, stderr)
	}
	hits = s.hits()
	var want []string
	for _, u := range append(mgExpected, "/outside.html", "/site/private/secret.html") {
		if !strings.HasSuffix(u, ".gif") && u != "/site/big.bin" && u != "/robots.txt" {
			want = append(want, u)
		}
	}
	sort.Strings(want)
	mgEq(t, "requests with filters", hitURIs(hits), want)
	warcResponses(t, out, site)

	// warcio.js (the indexer behind ReplayWeb.page) reads the update run's
	// WARC too; last, so that a missing warcio.js (needPeer: skip locally,
	// fail under CI) leaves the checks above done
	warcio := warcioCLI(t)
	wp := filepath.Join(dir, "update.warc.gz")
	if err := os.WriteFile(wp, warc2, 0o644); err != nil {
		t.Fatal(err)
	}
	idx, err = exec.Command(warcio, "index", wp, "-f", "warc-type,warc-target-uri").Output()
	if err != nil {
		t.Fatalf("warcio index: %v", err)
	}
	if n := strings.Count(string(idx), `"response"`); n != len(mgExpected) {
		t.Errorf("warcio index found %d responses, want %d", n, len(mgExpected))
	}
}

// -c 2 --rate 10 as seen by the server.
func TestMirrorgetPoliteness(t *testing.T) {
	mg := bin(t, "mirrorget")
	s := newMGSite(t)
	s.delay = 20 * time.Millisecond
	out, stderr, code := run(t, mg, nil, "-q", "-c", "2", "--rate", "10", "--format", "warc", s.srv.URL+"/site/")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	s.mu.Lock()
	maxConc := s.max
	s.mu.Unlock()
	hits := s.hits()
	if len(hits) != len(mgExpected) {
		t.Fatalf("%d requests", len(hits))
	}
	if maxConc > 2 {
		t.Errorf("server saw %d concurrent requests under -c 2", maxConc)
	}
	var ts []time.Time
	for _, h := range hits {
		ts = append(ts, h.at)
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].Before(ts[j]) })
	// handler start times lag the wire by the server's scheduling delay
	const lag = 25 * time.Millisecond
	worst := 0
	for i := range ts {
		n := 0
		for j := i; j < len(ts) && ts[j].Sub(ts[i]) < time.Second-lag; j++ {
			n++
		}
		worst = max(worst, n)
	}
	if worst > 10 {
		t.Errorf("server saw %d requests within one second under --rate 10", worst)
	}
	warcResponses(t, out, s.srv.URL)
}

// Ctrl-C: exit status 130 and a stream of complete records.
func TestMirrorgetInterrupt(t *testing.T) {
	mg := bin(t, "mirrorget")
	s := newMGSite(t)
	s.delay = 150 * time.Millisecond
	dir := t.TempDir()
	for _, format := range []string{"warc", "arc"} {
		outPath := filepath.Join(dir, "out."+format+".gz")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, mg, "-q", "-c", "1", "--format", format, "-o", outPath, "-O", filepath.Join(dir, "m-"+format), s.srv.URL+"/site/")
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(1200 * time.Millisecond)
		cmd.Process.Signal(syscall.SIGINT)
		err := cmd.Wait()
		cancel()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 130 {
			t.Fatalf("%s: exit %v, want 130; stderr %s", format, err, errb.String())
		}
		data, err := os.ReadFile(outPath)
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if format == "warc" {
			resp, _ := warcResponses(t, data, s.srv.URL)
			n = len(resp)
		} else {
			n = len(readARCURIs(t, data, s.srv.URL))
		}
		if n < 2 || n >= len(mgExpected) {
			t.Errorf("%s: %d records after an interrupt", format, n)
		}
		s.hits()
	}
}
