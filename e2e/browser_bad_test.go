package e2e

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/record"
)

// badSite serves pages a browser crawl must survive: one whose scripts
// keep the network busy forever, one that grows on every scroll, one that
// builds 100 MB of DOM, one whose renderer runs out of memory and dies,
// and a good page after each; / links them all.
func badSite(t *testing.T) *httptest.Server {
	t.Helper()
	page := func(title, script string) string {
		return "<!doctype html><html><head><title>" + title + "</title></head><body><h1>" + title + "</h1><p><a href=\"/ok.html\">ok</a></p><script>" + script + "</script></body></html>"
	}
	pages := map[string]string{
		"/": "<!doctype html><html><head><title>Bad pages</title></head><body>" +
			`<a href="/busy.html">busy</a> <a href="/endless.html">endless</a> <a href="/huge.html">huge</a> <a href="/oom.html">oom</a> <a href="/ok.html">ok</a></body></html>`,
		"/busy.html":    page("Busy", `setInterval(() => fetch("/poll?" + Date.now()), 150);`),
		"/endless.html": page("Endless", `document.body.style.minHeight = "3000px"; addEventListener("scroll", () => { const d = document.createElement("div"); d.style.height = "3000px"; d.textContent = "more " + document.body.children.length; document.body.appendChild(d); });`),
		"/huge.html":    page("Huge", `const p = document.createElement("pre"); p.textContent = "x".repeat(100 * 1024 * 1024); document.body.appendChild(p);`),
		"/oom.html":     page("OOM", `setTimeout(() => { const a = []; for (;;) a.push(new Array(1 << 20).fill(a.length)); }, 100);`),
		"/ok.html":      page("OK page", `document.querySelector("h1").textContent = "OK page rendered";`),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/poll", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("{}")) })
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		b, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(b))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestMirrorgetBrowserBadPages: a --browser crawl of pages that never go
// idle, scroll forever, build 100 MB of DOM or crash their renderer: one
// line on stderr for each bad page, the crawl goes on, every page's
// response is recorded, the good page is rendered, and the WARC passes
// waczpack check.
func TestMirrorgetBrowserBadPages(t *testing.T) {
	chromium := needCmd(t, "chromium", "chromium")
	site := badSite(t)
	mg, wp := bin(t, "mirrorget"), bin(t, "waczpack")
	out := filepath.Join(t.TempDir(), "bad.warc.gz")
	t0 := time.Now()
	so, se, code := run(t, mg, nil, "--browser", "--browser-path", chromium, "--page-timeout", "20s", "--scroll-max", "10",
		"--format", "warc", "-o", out, site.URL+"/")
	took := time.Since(t0)
	t.Logf("mirrorget: exit %d after %v\n%s", code, took.Round(time.Second), se)
	if len(so) != 0 {
		t.Errorf("stdout with -o: %d bytes", len(so))
	}
	// a page the browser gave up is a warning, not a failed crawl
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(se), "\n")
	badLines := map[string][]string{}
	for _, l := range lines {
		for _, p := range []string{"/busy.html", "/endless.html", "/huge.html", "/oom.html"} {
			if strings.Contains(l, p) && (strings.Contains(l, "browser") || strings.Contains(l, "render")) {
				badLines[p] = append(badLines[p], l)
			}
		}
	}
	for _, p := range []string{"/busy.html", "/huge.html", "/oom.html"} {
		if len(badLines[p]) != 1 {
			t.Errorf("%s: %d stderr lines about its rendering, want 1: %q", p, len(badLines[p]), badLines[p])
		}
	}
	// the endless page is bounded by --scroll-max: rendered, or one line
	if n := len(badLines["/endless.html"]); n > 1 {
		t.Errorf("/endless.html: %d lines: %q", n, badLines["/endless.html"])
	}
	data := readFile(t, out)
	responses, texts := map[string]bool{}, map[string]string{}
	for _, c := range readWARC(t, data) {
		u := strings.TrimPrefix(c.rec.TargetURI(), site.URL)
		switch c.rec.Type() {
		case record.Response:
			responses[u] = true
		case record.Resource:
			if s, ok := strings.CutPrefix(c.rec.TargetURI(), "urn:text:"+site.URL); ok {
				texts[s] = string(c.body)
			}
		}
	}
	for _, p := range []string{"/", "/busy.html", "/endless.html", "/huge.html", "/oom.html", "/ok.html"} {
		if !responses[p] {
			t.Errorf("no response record for %s", p)
		}
	}
	if !strings.Contains(texts["/ok.html"], "OK page rendered") {
		t.Errorf("/ok.html not rendered: urn:text: %.100q", texts["/ok.html"])
	}
	if len(texts["/huge.html"]) > 70<<20 {
		t.Errorf("/huge.html: %d bytes of text recorded", len(texts["/huge.html"]))
	}
	if so, se, code := run(t, wp, nil, "check", out); code != 0 {
		t.Errorf("waczpack check: exit %d\n%s%s", code, so, se)
	} else {
		t.Logf("waczpack check: %s", strings.TrimSpace(string(so)+se))
	}
	t.Logf("bad-page lines: %q", badLines)
}

// TestMirrorgetBrowserSIGINT: SIGINT in the middle of a --browser crawl
// (after the first page is rendered, while a page keeps the browser busy)
// ends mirrorget with 130 within seconds, leaves no Chromium process, and
// the WARC written so far is whole (waczpack check passes every record).
func TestMirrorgetBrowserSIGINT(t *testing.T) {
	chromium := needCmd(t, "chromium", "chromium")
	site := badSite(t)
	mg, wp := bin(t, "mirrorget"), bin(t, "waczpack")
	dir := t.TempDir()
	out := filepath.Join(dir, "int.warc.gz")
	home := filepath.Join(dir, "home") // Chromium's profile lives under $TMPDIR
	os.Mkdir(home, 0o755)
	cmd := exec.Command(mg, "-v", "-c", "1", "--browser", "--browser-path", chromium, "--page-timeout", "60s",
		"--format", "warc", "-o", out, site.URL+"/")
	cmd.Env = append(os.Environ(), "TMPDIR="+home)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	sent := make(chan time.Time, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			l := sc.Text()
			log.WriteString(l + "\n")
			// the start page is rendered: the busy page is next (-c 1)
			if strings.HasPrefix(l, "rendered ") && len(sent) == 0 {
				time.Sleep(time.Second)
				cmd.Process.Signal(syscall.SIGINT)
				sent <- time.Now()
			}
		}
	}()
	werr := cmd.Wait()
	<-done
	var at time.Time
	select {
	case at = <-sent:
	default:
		t.Fatalf("no page rendered before mirrorget ended (%v):\n%s", werr, log.String())
	}
	stopIn := time.Since(at)
	code := cmd.ProcessState.ExitCode()
	t.Logf("exit %d, %v after SIGINT\n%s", code, stopIn.Round(100*time.Millisecond), log.String())
	if code != 130 {
		t.Errorf("exit %d, want 130", code)
	}
	if stopIn > 15*time.Second {
		t.Errorf("took %v to stop after SIGINT", stopIn)
	}
	// no Chromium left: none has its profile under our TMPDIR
	time.Sleep(500 * time.Millisecond)
	if left := chromiumUnder(home); len(left) > 0 {
		t.Errorf("Chromium processes left after SIGINT: %v", left)
	}
	so, se, c := run(t, wp, nil, "check", out)
	if c != 0 {
		t.Errorf("waczpack check of the interrupted WARC: exit %d\n%s%s", c, so, se)
	}
	n := 0
	for _, cp := range readWARC(t, readFile(t, out)) {
		if cp.rec.Type() == record.Response {
			n++
		}
	}
	if n == 0 {
		t.Errorf("no response record kept")
	}
	t.Logf("waczpack check: %s (%d responses kept)", strings.TrimSpace(string(so)+se), n)
}

// chromiumUnder lists the processes whose command line names dir (the
// Chromium that mirrorget started with its profile there).
func chromiumUnder(dir string) []string {
	var left []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		cl := strings.ReplaceAll(string(b), "\x00", " ")
		if strings.Contains(cl, dir) && strings.Contains(cl, "chrom") {
			left = append(left, fmt.Sprintf("%s: %.120s", e.Name(), cl))
		}
	}
	return left
}
