package mirrorget

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/arcport/arcport/lib/htcache"
	"github.com/arcport/arcport/lib/internal/httracktest"
)

// purgeSite is a site whose pages change between runs: each path answers
// a status, a type and a body, with a fixed Last-Modified (a page that does
// not change answers a conditional request with 304).
type purgeSite struct {
	mu    sync.Mutex
	pages map[string]sitePage
	hits  map[string]int
	delay map[string]time.Duration
	srv   *httptest.Server
	host  string // the host's folder in a mirror
}

type sitePage struct {
	status int
	ctype  string
	body   string
	mod    time.Time
}

func htmlPage(body string) sitePage {
	return sitePage{200, "text/html", "<html><body>" + body + "</body></html>", time.Time{}}
}

func errPage(status int, body string) sitePage {
	return sitePage{status, "text/html", "<html><body>" + body + "</body></html>", time.Time{}}
}

func newPurgeSite(t *testing.T, pages map[string]sitePage) *purgeSite {
	s := &purgeSite{hits: map[string]int{}, delay: map[string]time.Duration{}}
	s.set(pages)
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	u, _ := url.Parse(s.srv.URL)
	s.host = strings.ReplaceAll(u.Host, ":", "_")
	return s
}

// set replaces pages; a page whose body changes gets a later date.
func (s *purgeSite) set(pages map[string]sitePage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.pages
	s.pages = map[string]sitePage{}
	for p, pg := range pages {
		pg.mod = time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
		if o, ok := old[p]; ok {
			pg.mod = o.mod
			if o.body != pg.body || o.status != pg.status {
				pg.mod = o.mod.Add(time.Hour)
			}
		}
		s.pages[p] = pg
	}
}

func (s *purgeSite) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	pg, ok := s.pages[r.URL.Path]
	s.hits[r.URL.Path]++
	d := s.delay[r.URL.Path]
	s.mu.Unlock()
	time.Sleep(d)
	if !ok {
		http.NotFound(w, r)
		return
	}
	if pg.status < 0 { // no answer: the connection is closed
		if c, _, err := http.NewResponseController(w).Hijack(); err == nil {
			c.Close()
		}
		return
	}
	w.Header().Set("Content-Type", pg.ctype)
	if pg.status == 200 {
		lm := pg.mod.Format(http.TimeFormat)
		w.Header().Set("Last-Modified", lm)
		if r.Header.Get("If-Modified-Since") == lm {
			w.WriteHeader(304)
			return
		}
	}
	w.WriteHeader(pg.status)
	w.Write([]byte(pg.body))
}

func (s *purgeSite) hitCount(p string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[p]
}

// mirrorgetRun runs mirrorget in this process and fails t on an error.
func mirrorgetRun(t *testing.T, args ...string) {
	t.Helper()
	if err := App().Run(append([]string{"mirrorget", "-q", "--retries", "0"}, args...)); err != nil {
		t.Fatalf("mirrorget %s: %v", strings.Join(args, " "), err)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Errorf("%v", err)
	}
	return string(b)
}

func mustExist(t *testing.T, p, holding string) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Errorf("%s: %v", p, err)
		return
	}
	if !strings.Contains(string(b), holding) {
		t.Errorf("%s holds %q, want %q in it", p, b, holding)
	}
}

func mustNotExist(t *testing.T, p string) {
	t.Helper()
	if _, err := os.Lstat(p); err == nil {
		t.Errorf("%s is still there", p)
	}
}

func contains(t *testing.T, what, s string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(s, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, s)
		}
	}
}

func lacks(t *testing.T, what, s string, unwanted ...string) {
	t.Helper()
	for _, w := range unwanted {
		if strings.Contains(s, w) {
			t.Errorf("%s holds %q:\n%s", what, w, s)
		}
	}
}

// siteV1 and siteV2 are a site before and after a change: a.html deleted
// (404, still linked from c.html and the home page), b.html and img/pic.gif
// no longer linked, d.html new, e.html still linked from c.html (which
// does not change: 304) but refused by the update's scan rule.
func siteV1() map[string]sitePage {
	return map[string]sitePage{
		"/": htmlPage(`<a href="a.html">a</a> <a href="b.html">b</a> <a href="c.html">c</a> <a href="e.html">e</a>
<img src="img/pic.gif"> <a href="broken.html">broken</a> <img src="missing.gif">`),
		"/a.html":      htmlPage("<p>page A</p>"),
		"/b.html":      htmlPage("<p>page B</p>"),
		"/c.html":      htmlPage(`<p>page C</p> <a href="a.html">a</a> <a href="e.html">e</a>`),
		"/e.html":      htmlPage("<p>page E</p>"),
		"/img/pic.gif": {200, "image/gif", "GIF89a-picture", time.Time{}},
		"/broken.html": errPage(404, "<p>no such page</p>"),
		"/missing.gif": errPage(404, "<p>no such image</p>"),
	}
}

func siteV2() map[string]sitePage {
	p := siteV1()
	p["/"] = htmlPage(`<a href="a.html">a</a> <a href="c.html">c</a> <a href="d.html">d</a>
<a href="broken.html">broken</a> <img src="missing.gif">`)
	p["/a.html"] = errPage(404, "<p>A was deleted</p>")
	p["/d.html"] = htmlPage("<p>page D</p>")
	return p
}

// TestUpdatePurges: a site mirrored with -O, then changed (a page deleted,
// pages no longer linked, a page refused by the new command's scan rule,
// a new page) and updated. With purge on (the default, as HTTrack's -X),
// the files of the pages no longer reached are removed with their emptied
// folder, listed in hts-log.txt as HTTrack lists them ("Purging ...",
// "Purging directory .../"), dropped from the cache, and the link to the
// refused one (from a page answering 304) is rewritten to the live URL; the
// deleted page, still linked, gets its 404 page in place of its copy, and
// the links to it lead there. With --purge=off every file, its content and
// its cache entry stay.
func TestUpdatePurges(t *testing.T) {
	for _, purge := range []bool{true, false} {
		t.Run(fmt.Sprintf("purge=%v", purge), func(t *testing.T) {
			s := newPurgeSite(t, siteV1())
			dir := filepath.Join(t.TempDir(), "m")
			out := filepath.Join(t.TempDir(), "x.arc.gz")
			mirrorgetRun(t, "-O", dir, "-o", out, s.srv.URL+"/")
			h := filepath.Join(dir, s.host)
			mustExist(t, filepath.Join(h, "b.html"), "page B")
			mustExist(t, filepath.Join(h, "img", "pic.gif"), "GIF89a")

			s.set(siteV2())
			args := []string{"-O", dir, "-o", out, "--filter=-*/e.html", s.srv.URL + "/"}
			if !purge {
				args = append([]string{"--purge=off"}, args...)
			}
			mirrorgetRun(t, args...)
			if n := s.hitCount("/c.html"); n != 2 {
				t.Errorf("c.html fetched %d times", n)
			}
			log := readFile(t, filepath.Join(dir, "hts-log.txt"))
			t.Logf("hts-log.txt:\n%s", log)
			index := readFile(t, filepath.Join(h, "index.html"))
			c := readFile(t, filepath.Join(h, "c.html"))
			mustExist(t, filepath.Join(h, "d.html"), "page D")
			contains(t, "index.html", index, `href="d.html"`, `href="a.html"`, `href="c.html"`, `href="broken.html"`, `src="missing.html"`)
			contains(t, "hts-log.txt", log, `"Not Found" (404) at link `+strings.TrimPrefix(s.srv.URL, "http://")+`/a.html (from `)
			cache, err := htcache.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer cache.Close()
			if purge {
				for _, f := range []string{"b.html", "e.html", "img/pic.gif"} {
					mustNotExist(t, filepath.Join(h, f))
					contains(t, "hts-log.txt", log, "Info: \tPurging "+filepath.Join(h, f)+"\n")
					if e, err := cache.Find(s.srv.URL + "/" + f); err == nil {
						t.Errorf("%s still in the cache: %+v", f, e.Meta)
					}
				}
				mustNotExist(t, filepath.Join(h, "img"))
				contains(t, "hts-log.txt", log, "Purging directory "+filepath.Join(h, "img")+"/\n",
					"Purging "+filepath.Join(h, "a.html")+` ("Not Found" (404): replaced by the error page)`)
				mustExist(t, filepath.Join(h, "a.html"), "A was deleted")
				contains(t, "c.html", c, `href="a.html"`, `href="`+s.srv.URL+`/e.html"`)
				if e, err := cache.Find(s.srv.URL + "/a.html"); err != nil || e.Meta.StatusCode != 404 || e.Meta.Save != s.host+"/a.html" {
					t.Errorf("cache entry of a.html: %v %+v", err, e)
				}
			} else {
				mustExist(t, filepath.Join(h, "b.html"), "page B")
				mustExist(t, filepath.Join(h, "e.html"), "page E")
				mustExist(t, filepath.Join(h, "img", "pic.gif"), "GIF89a")
				mustExist(t, filepath.Join(h, "a.html"), "page A")
				lacks(t, "hts-log.txt", log, "Purging")
				contains(t, "hts-log.txt", log, "--purge=off: keeping all previously mirrored files",
					"previous copy of "+strings.TrimPrefix(s.srv.URL, "http://")+"/a.html kept (--purge=off)")
				contains(t, "c.html", c, `href="a.html"`, `href="e.html"`)
				for _, f := range []string{"a.html", "b.html", "e.html", "img/pic.gif"} {
					if e, err := cache.Find(s.srv.URL + "/" + f); err != nil || e.Meta.StatusCode != 200 {
						t.Errorf("%s: cache entry %v %+v", f, err, e)
					}
				}
			}
		})
	}
}

// TestErrorPages: links to pages answering 404, 410 and 500 are saved as
// the server's error pages, named from their type as HTTrack names them (a
// missing .gif answered in HTML is .html), and the links lead there; an
// error page's own links are rewritten like any page's. A start URL
// answering an error is not saved (HTTrack saves error pages of links
// only). On an update, a page answering 503 keeps its earlier copy.
func TestErrorPages(t *testing.T) {
	s := newPurgeSite(t, map[string]sitePage{
		"/": htmlPage(`<a href="page.html">page</a> <a href="gone.html">gone</a> <a href="oops.html">oops</a>
<img src="logo.gif"> <a href="dir/">dir</a>`),
		"/page.html": htmlPage("<p>the page</p>"),
		"/gone.html": errPage(410, "<p>gone for good</p>"),
		"/oops.html": errPage(500, "<p>server error</p>"),
		"/logo.gif":  errPage(404, `<p>no logo</p> <a href="/">home</a> <a href="/elsewhere.html">x</a>`),
		"/dir/":      errPage(403, "<p>forbidden</p>"),
		"/nosuch":    errPage(404, "<p>not a start page</p>"),
	})
	dir := filepath.Join(t.TempDir(), "m")
	out := filepath.Join(t.TempDir(), "x.arc.gz")
	mirrorgetRun(t, "-O", dir, "-o", out, s.srv.URL+"/", s.srv.URL+"/nosuch")
	h := filepath.Join(dir, s.host)
	mustExist(t, filepath.Join(h, "gone.html"), "gone for good")
	mustExist(t, filepath.Join(h, "oops.html"), "server error")
	mustExist(t, filepath.Join(h, "dir", "index.html"), "forbidden")
	logo := readFile(t, filepath.Join(h, "logo.html"))
	contains(t, "logo.html", logo, "no logo", `href="index.html"`, `href="`+s.srv.URL+`/elsewhere.html"`)
	mustNotExist(t, filepath.Join(h, "logo.gif"))
	mustNotExist(t, filepath.Join(h, "nosuch"))
	mustNotExist(t, filepath.Join(h, "nosuch.html"))
	index := readFile(t, filepath.Join(h, "index.html"))
	contains(t, "index.html", index, `href="page.html"`, `href="gone.html"`, `href="oops.html"`, `src="logo.html"`, `href="dir/index.html"`)
	log := readFile(t, filepath.Join(dir, "hts-log.txt"))
	contains(t, "hts-log.txt", log, `"Gone" (410) at link `, `"Internal Server Error" (500) at link `, `"Not Found" (404) at link `)
	cache, err := htcache.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if e, err := cache.Find(s.srv.URL + "/logo.gif"); err != nil || e.Meta.StatusCode != 404 || e.Meta.Save != s.host+"/logo.html" {
		t.Errorf("cache entry of logo.gif: %v %+v", err, e)
	}
	cache.Close()

	// the update: the page fails for now; the logo is back as an image,
	// under its own name
	pages := map[string]sitePage{}
	s.mu.Lock()
	for k, v := range s.pages {
		pages[k] = v
	}
	s.mu.Unlock()
	pages["/page.html"] = errPage(503, "<p>down for maintenance</p>")
	pages["/logo.gif"] = sitePage{200, "image/gif", "GIF89a-logo", time.Time{}}
	s.set(pages)
	mirrorgetRun(t, "-O", dir, "-o", out, s.srv.URL+"/", s.srv.URL+"/nosuch")
	mustExist(t, filepath.Join(h, "page.html"), "the page")
	mustExist(t, filepath.Join(h, "logo.gif"), "GIF89a-logo")
	mustNotExist(t, filepath.Join(h, "logo.html")) // the old error page, purged
	index = readFile(t, filepath.Join(h, "index.html"))
	contains(t, "index.html", index, `href="page.html"`, `src="logo.gif"`)
	log = readFile(t, filepath.Join(dir, "hts-log.txt"))
	contains(t, "hts-log.txt", log, `"Service Unavailable" (503) at link `,
		"previous copy of "+strings.TrimPrefix(s.srv.URL, "http://")+"/page.html kept (answered 503 Service Unavailable)",
		"Purging "+filepath.Join(h, "logo.html")+"\n")
}

// TestInterruptedUpdatePurgesNothing: an update stopped by SIGINT half way
// removes nothing and replaces no copy by an error page, though it fetched
// the deleted page; the --continue that completes it does not purge what
// the stopped run fetched and it did not visit (nor anything else: a
// continued crawl never purges); the next update does.
func TestInterruptedUpdatePurgesNothing(t *testing.T) {
	mg := buildMirrorget(t)
	const n = 30
	v1 := map[string]sitePage{}
	links := `<a href="a.html">a</a> <a href="b.html">b</a>`
	for i := 0; i < n; i++ {
		links += fmt.Sprintf(` <a href="p%d.html">p%d</a>`, i, i)
		v1[fmt.Sprintf("/p%d.html", i)] = htmlPage(fmt.Sprintf("<p>page %d</p>", i))
	}
	v1["/"] = htmlPage(links)
	v1["/a.html"] = htmlPage("<p>page A</p>")
	v1["/b.html"] = htmlPage("<p>page B</p>")
	s := newPurgeSite(t, v1)
	dir := filepath.Join(t.TempDir(), "m")
	h := filepath.Join(dir, s.host)
	if _, stderr, code := runBin(t, mg, "-q", "-O", dir, s.srv.URL+"/"); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, stderr)
	}

	v2 := map[string]sitePage{}
	for k, v := range v1 {
		v2[k] = v
	}
	v2["/"] = htmlPage(strings.Replace(links, `<a href="b.html">b</a>`, "", 1))
	v2["/a.html"] = errPage(404, "<p>A was deleted</p>")
	s.set(v2)
	s.mu.Lock()
	for i := 0; i < n; i++ {
		s.delay[fmt.Sprintf("/p%d.html", i)] = 100 * time.Millisecond
	}
	s.mu.Unlock()
	w := startWorker(t, mg, "-q", "-c", "1", "-O", dir, s.srv.URL+"/")
	deadline := time.Now().Add(30 * time.Second)
	for s.hitCount("/p5.html") < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if s.hitCount("/a.html") != 2 {
		t.Fatalf("a.html fetched %d times before the signal; %v", s.hitCount("/a.html"), s.hits)
	}
	w.cmd.Process.Signal(syscall.SIGINT)
	if code := w.wait(t, 30*time.Second); code != 130 {
		t.Fatalf("exit %d after SIGINT: %s", code, w.stderr.String())
	}
	if s.hitCount(fmt.Sprintf("/p%d.html", n-1)) > 1 {
		t.Fatalf("the update was not stopped half way")
	}
	log := readFile(t, filepath.Join(dir, "hts-log.txt"))
	t.Logf("hts-log.txt of the stopped update:\n%s", log)
	mustExist(t, filepath.Join(h, "b.html"), "page B")
	mustExist(t, filepath.Join(h, "a.html"), "page A")
	lacks(t, "hts-log.txt", log, "Purging")
	contains(t, "hts-log.txt", log, "Mirror stopped before its end: keeping all previously mirrored files", "mirrorget mirror stopped in ")
	for i := 0; i < n; i++ {
		mustExist(t, filepath.Join(h, fmt.Sprintf("p%d.html", i)), fmt.Sprintf("page %d", i))
	}

	// carried on: the stopped run's pages are not fetched again, and stay
	s.mu.Lock()
	s.delay = map[string]time.Duration{}
	s.mu.Unlock()
	if _, stderr, code := runBin(t, mg, "-q", "-c", "1", "--continue", "-O", dir, s.srv.URL+"/"); code != 0 {
		t.Fatalf("--continue: exit %d: %s", code, stderr)
	}
	if s.hitCount("/a.html") != 2 || s.hitCount("/p0.html") != 2 {
		t.Errorf("--continue fetched again what the stopped run fetched")
	}
	log = readFile(t, filepath.Join(dir, "hts-log.txt"))
	lacks(t, "hts-log.txt", log, "Purging")
	contains(t, "hts-log.txt", log, "Continued mirror: keeping all previously mirrored files")
	mustExist(t, filepath.Join(h, "b.html"), "page B")
	mustExist(t, filepath.Join(h, "a.html"), "page A")
	for i := 0; i < n; i++ {
		mustExist(t, filepath.Join(h, fmt.Sprintf("p%d.html", i)), fmt.Sprintf("page %d", i))
	}

	// the next update purges
	_, stderr, code := runBin(t, mg, "-O", dir, s.srv.URL+"/")
	if code != 0 {
		t.Fatalf("update: exit %d: %s", code, stderr)
	}
	contains(t, "stderr", stderr, "2 file(s) no longer on the site purged (listed in "+filepath.Join(dir, "hts-log.txt")+")")
	mustNotExist(t, filepath.Join(h, "b.html"))
	mustExist(t, filepath.Join(h, "a.html"), "A was deleted")
	log = readFile(t, filepath.Join(dir, "hts-log.txt"))
	contains(t, "hts-log.txt", log, "Purging "+filepath.Join(h, "b.html")+"\n")
}

// TestPurgeLikeHTTrack mirrors and updates the same site with the real
// httrack and with mirrorget: after each run the host's folder holds the
// same files (error pages included, named alike), the home page links the
// same local names, and the update purges the same files and folders.
func TestPurgeLikeHTTrack(t *testing.T) {
	httracktest.Need(t)
	v1 := map[string]sitePage{
		"/": htmlPage(`<a href="a.html">a</a> <a href="b.html">b</a> <a href="c.html">c</a> <img src="img/pic.gif">
<a href="broken.html">broken</a> <img src="missing.gif">`),
		"/a.html":      htmlPage("<p>page A</p>"),
		"/b.html":      htmlPage("<p>page B</p>"),
		"/c.html":      htmlPage(`<p>page C</p> <a href="a.html">a</a>`),
		"/img/pic.gif": {200, "image/gif", "GIF89a-picture", time.Time{}},
		"/broken.html": errPage(404, "<p>no such page</p>"),
		"/missing.gif": errPage(404, "<p>no such image</p>"),
	}
	s := newPurgeSite(t, v1)
	hdir, mdir := filepath.Join(t.TempDir(), "h"), filepath.Join(t.TempDir(), "m")
	os.MkdirAll(hdir, 0o755)
	httrack := func(extra ...string) {
		t.Helper()
		cmd := exec.Command("httrack", append([]string{s.srv.URL + "/", "-O", hdir, "-q", "-%v0", "-c4", "-%!", "-s0", "-z"}, extra...)...)
		cmd.Dir = hdir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("httrack: %v\n%s", err, out)
		}
	}
	compare := func(when string) {
		t.Helper()
		hf, mf := tree(t, filepath.Join(hdir, s.host)), tree(t, filepath.Join(mdir, s.host))
		if strings.Join(hf, " ") != strings.Join(mf, " ") {
			t.Errorf("%s: httrack wrote %q, mirrorget %q", when, hf, mf)
		}
		hl, ml := localLinks(t, filepath.Join(hdir, s.host, "index.html")), localLinks(t, filepath.Join(mdir, s.host, "index.html"))
		if strings.Join(hl, " ") != strings.Join(ml, " ") {
			t.Errorf("%s: httrack's home page links %q, mirrorget's %q", when, hl, ml)
		}
	}
	httrack()
	mirrorgetRun(t, "-O", mdir, "-o", filepath.Join(t.TempDir(), "x.arc"), s.srv.URL+"/")
	compare("first run")

	v2 := map[string]sitePage{}
	for k, v := range v1 {
		v2[k] = v
	}
	v2["/"] = htmlPage(`<a href="a.html">a</a> <a href="c.html">c</a> <a href="d.html">d</a> <a href="broken.html">broken</a> <img src="missing.gif">`)
	v2["/a.html"] = errPage(404, "<p>A was deleted</p>")
	v2["/d.html"] = htmlPage("<p>page D</p>")
	s.set(v2)
	httrack("--update")
	mirrorgetRun(t, "-O", mdir, "-o", filepath.Join(t.TempDir(), "x.arc"), s.srv.URL+"/")
	compare("update")
	for f, want := range map[string]string{"a.html": "A was deleted", "d.html": "page D"} {
		mustExist(t, filepath.Join(hdir, s.host, f), want)
		mustExist(t, filepath.Join(mdir, s.host, f), want)
	}
	hp, mp := purgedIn(t, hdir), purgedIn(t, mdir)
	t.Logf("purged: httrack %q, mirrorget %q", hp, mp)
	if strings.Join(hp, " ") != strings.Join(mp, " ") || len(hp) == 0 {
		t.Errorf("purged: httrack %q, mirrorget %q", hp, mp)
	}
}

// tree lists the files and folders below root.
func tree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." {
			return nil
		}
		if d.IsDir() {
			rel += "/"
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

var reLink = regexp.MustCompile(`(?:href|src)="([^"]*)"`)

// localLinks lists the link targets of a saved page.
func localLinks(t *testing.T, p string) []string {
	var out []string
	for _, m := range reLink.FindAllStringSubmatch(readFile(t, p), -1) {
		out = append(out, m[1])
	}
	sort.Strings(out)
	return out
}

var rePurging = regexp.MustCompile(`(?m)\tPurging (?:directory )?(\S+)$`)

// purgedIn lists the files and folders hts-log.txt says were purged,
// relative to dir (the old copies mirrorget replaces by error pages, which
// HTTrack replaces without a word, are not in the list).
func purgedIn(t *testing.T, dir string) []string {
	var out []string
	for _, m := range rePurging.FindAllStringSubmatch(readFile(t, filepath.Join(dir, "hts-log.txt")), -1) {
		rel, err := filepath.Rel(dir, m[1])
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(m[1], "/") {
			rel += "/"
		}
		out = append(out, filepath.ToSlash(rel))
	}
	sort.Strings(out)
	return out
}

// TestPurgeRefusesSymlinks: files to purge are removed through the
// mirror's safefs root: a symbolic link planted where a purged file was
// (b.html), or in place of its folder (img), is not followed: the files it
// points at stay, the link is reported and the run exits 1, the rest of
// the purge is done.
func TestPurgeRefusesSymlinks(t *testing.T) {
	s := newPurgeSite(t, siteV1())
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "m")
	out := filepath.Join(tmp, "x.arc.gz")
	mirrorgetRun(t, "-O", dir, "-o", out, s.srv.URL+"/")
	h := filepath.Join(dir, s.host)
	outside := filepath.Join(tmp, "outside")
	os.MkdirAll(outside, 0o755)
	for _, f := range []string{"b.html", "pic.gif"} {
		if err := os.WriteFile(filepath.Join(outside, f), []byte("keep me"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Remove(filepath.Join(h, "b.html"))
	os.RemoveAll(filepath.Join(h, "img"))
	if err := os.Symlink(filepath.Join(outside, "b.html"), filepath.Join(h, "b.html")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(h, "img")); err != nil {
		t.Fatal(err)
	}

	s.set(siteV2())
	err := App().Run([]string{"mirrorget", "-q", "--retries", "0", "-O", dir, "-o", out, "--filter=-*/e.html", s.srv.URL + "/"})
	if err == nil || !strings.Contains(err.Error(), "2 path(s) refused") {
		t.Errorf("update: %v, want 2 paths refused", err)
	}
	for _, f := range []string{"b.html", "pic.gif"} {
		mustExist(t, filepath.Join(outside, f), "keep me")
	}
	for _, f := range []string{"b.html", "img"} {
		if fi, err := os.Lstat(filepath.Join(h, f)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s: the planted link is gone: %v", f, err)
		}
	}
	mustNotExist(t, filepath.Join(h, "e.html"))
	log := readFile(t, filepath.Join(dir, "hts-log.txt"))
	contains(t, "hts-log.txt", log, "Purging "+filepath.Join(h, "e.html")+"\n")
	lacks(t, "hts-log.txt", log, "Purging "+filepath.Join(h, "b.html"), "Purging "+filepath.Join(h, "img"))
}

// TestPurgeFlag: purge is on by default and with -X, --purge or
// --purge=on; off with --purge=off, --purge off, --purge-old=0, -X=0 and
// HTTrack's -X0 (after SplitFilters, as Main runs it), also placed after
// the URL.
func TestPurgeFlag(t *testing.T) {
	for _, tc := range []struct {
		args    string
		noPurge bool
	}{
		{"-O d http://h/", false},
		{"-X -O d http://h/", false},
		{"--purge -O d http://h/", false},
		{"--purge=on -O d http://h/", false},
		{"--purge=off -O d http://h/", true},
		{"--purge-old=0 -O d http://h/", true},
		{"-X=0 -O d http://h/", true},
		{"-X0 -O d http://h/", true},
		{"-O d http://h/ -X0", true},
		{"--purge off -O d http://h/", true},
		{"-O d http://h/ -X off", true},
		{"-X on -O d http://h/", false},
	} {
		app := App()
		var got *Options
		app.Action = func(c *cli.Context) error {
			o, err := options(c)
			got = o
			return err
		}
		args := SplitFilters(append([]string{"mirrorget"}, strings.Fields(tc.args)...))
		if err := app.Run(args); err != nil || got == nil {
			t.Errorf("%s: %v", tc.args, err)
			continue
		}
		if got.NoPurge != tc.noPurge || got.Mirror != "d" {
			t.Errorf("%s: NoPurge %v, -O %q", tc.args, got.NoPurge, got.Mirror)
		}
	}
	app := App()
	app.Writer, app.ErrWriter = io.Discard, io.Discard
	if err := app.Run([]string{"mirrorget", "--purge=sometimes", "-O", "d", "http://h/"}); err == nil {
		t.Errorf("--purge=sometimes accepted")
	}
}

// TestPurgeSiteDown: an update whose start URL answers 503 purges nothing,
// as HTTrack restores a mirror whose start URLs all failed, though no page
// was reached; a page that gets no answer at all keeps its copy too.
func TestPurgeSiteDown(t *testing.T) {
	s := newPurgeSite(t, siteV1())
	dir := filepath.Join(t.TempDir(), "m")
	out := filepath.Join(t.TempDir(), "x.arc.gz")
	mirrorgetRun(t, "-O", dir, "-o", out, s.srv.URL+"/", s.srv.URL+"/c.html")
	h := filepath.Join(dir, s.host)

	down := siteV1()
	down["/"] = errPage(503, "<p>down</p>")
	down["/c.html"] = sitePage{status: -1}
	s.set(down)
	err := App().Run([]string{"mirrorget", "-q", "--retries", "0", "-O", dir, "-o", out, s.srv.URL + "/", s.srv.URL + "/c.html"})
	t.Logf("update: %v", err)
	log := readFile(t, filepath.Join(dir, "hts-log.txt"))
	t.Logf("hts-log.txt:\n%s", log)
	for f, want := range map[string]string{"index.html": "b.html", "a.html": "page A", "b.html": "page B", "c.html": "page C", "e.html": "page E", "img/pic.gif": "GIF89a"} {
		mustExist(t, filepath.Join(h, f), want)
	}
	lacks(t, "hts-log.txt", log, "Purging")
	contains(t, "hts-log.txt", log, "No start URL could be fetched: keeping all previously mirrored files",
		"previous copy of "+strings.TrimPrefix(s.srv.URL, "http://")+"/ kept (answered 503 Service Unavailable)",
		" at link "+strings.TrimPrefix(s.srv.URL, "http://")+"/c.html\n")
	cache, err := htcache.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	for _, f := range []string{"", "b.html", "c.html", "img/pic.gif"} {
		if e, err := cache.Find(s.srv.URL + "/" + f); err != nil || e.Meta.StatusCode != 200 {
			t.Errorf("/%s: cache entry %v %+v", f, err, e)
		}
	}
}

// TestPurgeKeepsBelowFailedPage: a page answering 503 on an update keeps
// its copy, and so do the pages only it links to (their links could not be
// read from the site), down its old links; what is no longer linked from
// anywhere is purged as usual.
func TestPurgeKeepsBelowFailedPage(t *testing.T) {
	v1 := map[string]sitePage{
		"/":           htmlPage(`<a href="hub.html">hub</a> <a href="old.html">old</a>`),
		"/hub.html":   htmlPage(`<a href="leaf.html">leaf</a>`),
		"/leaf.html":  htmlPage(`<a href="deep.html">deep</a> <img src="leaf.gif">`),
		"/leaf.gif":   {200, "image/gif", "GIF89a-leaf", time.Time{}},
		"/deep.html":  htmlPage("<p>deep</p>"),
		"/old.html":   htmlPage("<p>old</p>"),
		"/other.html": htmlPage("<p>other</p>"),
	}
	s := newPurgeSite(t, v1)
	dir := filepath.Join(t.TempDir(), "m")
	out := filepath.Join(t.TempDir(), "x.arc.gz")
	mirrorgetRun(t, "-O", dir, "-o", out, s.srv.URL+"/")
	h := filepath.Join(dir, s.host)

	v2 := map[string]sitePage{}
	for k, v := range v1 {
		v2[k] = v
	}
	v2["/"] = htmlPage(`<a href="hub.html">hub</a>`)
	v2["/hub.html"] = errPage(503, "<p>busy</p>")
	s.set(v2)
	mirrorgetRun(t, "-O", dir, "-o", out, s.srv.URL+"/")
	log := readFile(t, filepath.Join(dir, "hts-log.txt"))
	t.Logf("hts-log.txt:\n%s", log)
	for f, want := range map[string]string{"hub.html": "leaf.html", "leaf.html": "deep.html", "leaf.gif": "GIF89a", "deep.html": "deep"} {
		mustExist(t, filepath.Join(h, f), want)
	}
	mustNotExist(t, filepath.Join(h, "old.html"))
	contains(t, "hts-log.txt", log, "Purging "+filepath.Join(h, "old.html")+"\n",
		"3 previous copies kept: linked from pages kept for want of an answer")
	contains(t, "leaf.html", readFile(t, filepath.Join(h, "leaf.html")), `href="deep.html"`, `src="leaf.gif"`)
	if s.hitCount("/leaf.html") != 1 {
		t.Errorf("leaf.html fetched again")
	}
	cache, err := htcache.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	for _, f := range []string{"hub.html", "leaf.html", "leaf.gif", "deep.html"} {
		if e, err := cache.Find(s.srv.URL + "/" + f); err != nil || e.Meta.StatusCode != 200 {
			t.Errorf("%s: cache entry %v %+v", f, err, e)
		}
	}
}
