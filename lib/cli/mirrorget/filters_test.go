package mirrorget

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/arcport/arcport/lib/frontier/redistest"
	"github.com/arcport/arcport/lib/internal/sitetest"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/warc"
)

// TestFilterFlags: the filter and limit flags as the crawl gets them.
func TestFilterFlags(t *testing.T) {
	var o *Options
	app := App()
	app.Action = func(c *cli.Context) (err error) { o, err = options(c); return err }
	args := SplitFilters(strings.Fields("mirrorget http://127.0.0.1:1/ --accept-mime Image/* --accept-mime text/html,text/css " +
		"--reject-mime image/svg+xml --max-size-html 2m --max-size-other 500k --min-size 1k --max-time 90 " +
		"--max-pages 50 --max-bytes 1g"))
	if err := app.Run(args); err != nil {
		t.Fatal(err)
	}
	cfg := o.Crawl
	got := fmt.Sprintf("%q %q %d %d %d %v %d %d", cfg.AcceptMIME, cfg.RejectMIME, cfg.MaxSizeHTML, cfg.MaxSizeOther, cfg.MinSize,
		cfg.MaxTime, cfg.MaxPages, cfg.MaxBytes)
	want := fmt.Sprintf("%q %q %d %d %d %v %d %d", []string{"image/*", "text/html", "text/css"}, []string{"image/svg+xml"},
		2<<20, 500<<10, 1<<10, 90*time.Second, 50, 1<<30)
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if err := app.Run([]string{"mirrorget", "--max-time", "1h30m", "http://127.0.0.1:1/"}); err != nil || o.Crawl.MaxTime != 90*time.Minute {
		t.Errorf("--max-time 1h30m: %v, %v", err, o.Crawl.MaxTime)
	}
	if err := app.Run([]string{"mirrorget", "http://127.0.0.1:1/"}); err != nil ||
		o.Crawl.MaxTime != 0 || o.Crawl.MaxPages != 0 || o.Crawl.MaxBytes != 0 || o.Crawl.MinSize != 0 ||
		o.Crawl.MaxSizeHTML != 0 || o.Crawl.MaxSizeOther != 0 || o.Crawl.AcceptMIME != nil || o.Crawl.RejectMIME != nil {
		t.Errorf("defaults: %v, %+v", err, o.Crawl)
	}
}

func TestReadURLList(t *testing.T) {
	in := "\ufeff# start URLs\nhttp://a.example/\n\n   https://b.example/x?y=1  \n# http://not.example/\nc.example/dir/\r\n"
	got, err := readURLList(strings.NewReader(in), "urls.txt")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"http://a.example/", "https://b.example/x?y=1", "c.example/dir/"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, tc := range []struct{ in, want string }{
		{"http://a.example/\n\nftp://b.example/\n", "urls.txt:3: bad URL \"ftp://b.example/\""},
		{"# x\nhttp://a b/\n", "urls.txt:2: bad URL \"http://a b/\": one URL a line"},
		{"http://user:secret@exa mple/\n", "urls.txt:1: bad URL \"http://exa mple/\""},
		{"http://a/\n" + strings.Repeat("x", maxURLLine+1) + "\n", "urls.txt:2: line longer than"},
	} {
		_, err := readURLList(strings.NewReader(tc.in), "urls.txt")
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "secret") {
			t.Errorf("%.40q: error %v, want %s...", tc.in, err, tc.want)
		}
	}
}

// filterSite serves a page linking a page, two images, a style sheet, a
// small text file and a 1 MiB binary; the page c.html holds 3000 bytes
// with a link at each end, and a.png again.
func filterSite(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, `<html><head><link rel=stylesheet href=style.css></head><body>`+strings.Repeat(" ", 200)+
				`<a href=b.html>b</a> <img src=a.png> <a href=tiny.txt>tiny</a> <a href=big.bin>big</a> <a href=c.html>c</a></body></html>`)
		case "/b.html":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, `<html><body><img src=b.gif>`+strings.Repeat(" ", 200)+`</body></html>`)
		case "/c.html":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, `<html><body><a href=early.html>e</a><img src=a.png>`+strings.Repeat(" ", 3000)+`<a href=late.html>l</a></body></html>`)
		case "/early.html", "/late.html":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<html><body>"+strings.Repeat("x", 200)+"</body></html>")
		case "/a.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write(append([]byte("\x89PNG"), make([]byte, 300)...))
		case "/b.gif":
			w.Header().Set("Content-Type", "image/gif")
			w.Write(append([]byte("GIF89a"), make([]byte, 300)...))
		case "/style.css":
			w.Header().Set("Content-Type", "text/css")
			io.WriteString(w, "body { color: black }"+strings.Repeat(" ", 200))
		case "/tiny.txt":
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "tiny")
		case "/big.bin":
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write(make([]byte, 1<<20))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// readWARC reads a WARC file strictly (any error fails t) and returns its
// response and revisit records by target URI.
func readWARC(t *testing.T, file string) map[string]*record.Record {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := warc.NewReader(f, warc.WithPolicy(record.Fail))
	if err != nil {
		t.Fatal(err)
	}
	recs := map[string]*record.Record{}
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return recs
		}
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if _, err := io.Copy(io.Discard, rec.Block); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if rec.Type() == record.Response || rec.Type() == record.Revisit {
			recs[rec.TargetURI()] = rec
		}
	}
}

// paths lists the response records' URIs without base, sorted.
func paths(recs map[string]*record.Record, base string) []string {
	var out []string
	for u := range recs {
		out = append(out, strings.TrimPrefix(u, base))
	}
	sort.Strings(out)
	return out
}

// crawlModes are the schedulers as mirrorget picks them: a stream alone
// crawls in memory, --state through the embedded frontier (Bolt),
// --frontier through Redis (a redis-server of the test's own).
var crawlModes = []struct {
	name string
	args func(t *testing.T, dir string) []string
}{
	{"memory", func(*testing.T, string) []string { return nil }},
	{"state", func(_ *testing.T, dir string) []string { return []string{"--state", filepath.Join(dir, "state")} }},
	{"redis", func(t *testing.T, dir string) []string {
		srv := redistest.Start(t, redistest.Options{})
		return []string{"--frontier", "redis://" + srv.Addr + "/0", "--crawl-id", "limits"}
	}},
}

// TestMIMEFiltersBinary: --reject-mime and --accept-mime on the real
// binary, in each scheduler: refused responses are in neither the WARC
// nor the -O mirror, and -v says "skip URL (mime TYPE)"; rejecting
// text/html stops at the start page.
func TestMIMEFiltersBinary(t *testing.T) {
	bin := buildMirrorget(t)
	srv := filterSite(t)
	for _, mode := range crawlModes {
		for _, tc := range []struct {
			name     string
			args     []string
			captured []string
			skips    []string
		}{
			{"reject image", []string{"--reject-mime", "image/*"},
				[]string{"/", "/b.html", "/big.bin", "/c.html", "/early.html", "/late.html", "/robots.txt", "/style.css", "/tiny.txt"},
				[]string{"/a.png (mime image/png)", "/b.gif (mime image/gif)"}},
			{"accept html and css", []string{"--accept-mime", "text/html", "--accept-mime", "text/css"},
				[]string{"/", "/b.html", "/c.html", "/early.html", "/late.html", "/robots.txt", "/style.css"},
				[]string{"/a.png (mime image/png)", "/b.gif (mime image/gif)", "/big.bin (mime application/octet-stream)", "/tiny.txt (mime text/plain)"}},
			{"reject html", []string{"--reject-mime", "text/html"},
				[]string{"/robots.txt"}, []string{"/ (mime text/html)"}},
			{"scan rule", []string{"-*.png"}, // linked from two pages, shown once
				[]string{"/", "/b.gif", "/b.html", "/big.bin", "/c.html", "/early.html", "/late.html", "/robots.txt", "/style.css", "/tiny.txt"},
				[]string{"/a.png (filter -*.png)"}},
		} {
			t.Run(mode.name+"/"+tc.name, func(t *testing.T) {
				dir := t.TempDir()
				out := filepath.Join(dir, "out.warc.gz")
				args := append(append([]string{"-v", "--format", "warc", "-o", out}, mode.args(t, dir)...), tc.args...)
				_, stderr, code := runBin(t, bin, append(args, srv.URL+"/")...)
				if code != 0 {
					t.Fatalf("exit %d:\n%s", code, stderr)
				}
				eq(t, "captured", paths(readWARC(t, out), srv.URL), tc.captured)
				for _, s := range tc.skips {
					if strings.Count(stderr, "skip "+srv.URL+s+"\n") != 1 {
						t.Errorf("-v did not say skip %s:\n%s", s, stderr)
					}
				}
			})
		}
	}
	t.Run("mirror", func(t *testing.T) {
		dir := t.TempDir()
		mir := filepath.Join(dir, "m")
		_, stderr, code := runBin(t, bin, "-q", "-O", mir, "--reject-mime", "image/*", "--reject-mime", "text/plain", srv.URL+"/")
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, stderr)
		}
		var files []string
		filepath.Walk(mir, func(p string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() && !strings.Contains(p, "hts-cache") && p != filepath.Join(mir, "hts-log.txt") {
				files = append(files, filepath.Base(p))
			}
			return nil
		})
		sort.Strings(files)
		for _, f := range files {
			if strings.HasSuffix(f, ".png") || strings.HasSuffix(f, ".gif") || strings.HasSuffix(f, ".txt") {
				t.Errorf("refused %s saved in the mirror (%q)", f, files)
			}
		}
		if !strings.Contains(strings.Join(files, " "), "b.html") {
			t.Errorf("mirror: %q", files)
		}
	})
}

func eq(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

// TestSizeFiltersBinary: --max-size-html and --max-size-other cut bodies
// (WARC-Truncated: length; links past the cut not followed), --min-size
// drops small responses with a -v line, in each scheduler.
func TestSizeFiltersBinary(t *testing.T) {
	bin := buildMirrorget(t)
	srv := filterSite(t)
	for _, mode := range crawlModes {
		t.Run(mode.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out.warc.gz")
			args := append(append([]string{"-v", "--format", "warc", "-o", out}, mode.args(t, dir)...),
				"--max-size-html", "1k", "--max-size-other", "100k", "--min-size", "100", srv.URL+"/")
			_, stderr, code := runBin(t, bin, args...)
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, stderr)
			}
			recs := readWARC(t, out)
			eq(t, "captured", paths(recs, srv.URL), []string{"/", "/a.png", "/b.gif", "/b.html", "/big.bin", "/c.html", "/early.html", "/robots.txt", "/style.css"})
			for p, cut := range map[string]bool{"/": false, "/c.html": true, "/big.bin": true, "/a.png": false} {
				if got := recs[srv.URL+p].Header.Get("WARC-Truncated"); (got == "length") != cut {
					t.Errorf("%s: WARC-Truncated %q", p, got)
				}
			}
			if !strings.Contains(stderr, "skip "+srv.URL+"/tiny.txt (size 4 < min-size 100)\n") {
				t.Errorf("-v did not report the small file:\n%s", stderr)
			}
		})
	}
}

// TestInputFile: -i - reads three start URLs from stdin (comments and
// blank lines between), -i FILE and -i http://... a list beside the
// arguments; a bad line is a usage error naming the file and line.
func TestInputFile(t *testing.T) {
	bin := buildMirrorget(t)
	srv := filterSite(t)
	list := fmt.Sprintf("# three start URLs\n%s/b.html\n\n%s/tiny.txt\n   %s/style.css  \n", srv.URL, srv.URL, srv.URL)
	dir := t.TempDir()

	out := filepath.Join(dir, "stdin.warc.gz")
	cmd := exec.Command(bin, "-q", "--format", "warc", "-r", "0", "--robots", "off", "-o", out, "-i", "-")
	cmd.Stdin = strings.NewReader(list)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("-i -: %v\n%s", err, stderr.String())
	}
	// b.html's image is a requisite, taken at depth 0
	eq(t, "-i -", paths(readWARC(t, out), srv.URL), []string{"/b.gif", "/b.html", "/style.css", "/tiny.txt"})

	file := filepath.Join(dir, "urls.txt")
	os.WriteFile(file, []byte(list), 0o644)
	listSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, list) }))
	defer listSrv.Close()
	for _, src := range []string{file, listSrv.URL + "/urls.txt"} {
		out := filepath.Join(dir, "file.warc.gz")
		_, stderr, code := runBin(t, bin, "-q", "--format", "warc", "-r", "0", "--robots", "off", "-o", out, srv.URL+"/early.html", "--input-file", src)
		if code != 0 {
			t.Fatalf("-i %s: exit %d\n%s", src, code, stderr)
		}
		eq(t, "-i "+src, paths(readWARC(t, out), srv.URL), []string{"/b.gif", "/b.html", "/early.html", "/style.css", "/tiny.txt"})
	}

	os.WriteFile(file, []byte("# list\nhttp://ok.example/\n\nftp://bad.example/\n"), 0o644)
	_, stderr2, code := runBin(t, bin, "-o", filepath.Join(dir, "x.arc"), "-i", file)
	if code != 2 || !strings.Contains(stderr2, file+":4: bad URL \"ftp://bad.example/\"") {
		t.Errorf("bad list: exit %d, stderr %q", code, stderr2)
	}
	_, stderr2, code = runBin(t, bin, "-o", filepath.Join(dir, "x.arc"), "-i", filepath.Join(dir, "missing.txt"))
	if code != 1 || !strings.Contains(stderr2, "missing.txt") {
		t.Errorf("missing list: exit %d, stderr %q", code, stderr2)
	}
}

// TestMaxTimeBinary: --max-time 2s on a slow site (500 ms a page, 200
// pages) ends within 3 s with exit 0, one line naming the limit, and a
// valid WARC under its final name, in each scheduler.
func TestMaxTimeBinary(t *testing.T) {
	bin := buildMirrorget(t)
	srv := slowSite(200, 500*time.Millisecond)
	defer srv.Close()
	for _, mode := range crawlModes {
		t.Run(mode.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out.warc.gz")
			args := append(append([]string{"--format", "warc", "-c", "2", "-o", out}, mode.args(t, dir)...), "--max-time", "2s", srv.URL+"/")
			t0 := time.Now()
			_, stderr, code := runBin(t, bin, args...)
			elapsed := time.Since(t0)
			t.Logf("%s: --max-time 2s: exit %d after %v", mode.name, code, elapsed)
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, stderr)
			}
			if elapsed > 3*time.Second {
				t.Errorf("the crawl took %v with --max-time 2s", elapsed)
			}
			recs := readWARC(t, out)
			n := len(recs) - 1 // robots.txt
			if n < 2 || !strings.Contains(stderr, fmt.Sprintf("mirrorget: --max-time 2s reached: stopped after %d captures", n)) {
				t.Errorf("%d pages; stderr:\n%s", n, stderr)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".out*")); len(left) > 0 {
				t.Errorf("temporary files left: %q", left)
			}
		})
	}
}

// TestMaxPagesBinary: --max-pages 50 writes exactly 50 page records
// (robots.txt besides) and exits 0 with one line naming the limit, in
// each scheduler; with --state, --continue then fetches the other pages,
// each once over the two outputs.
func TestMaxPagesBinary(t *testing.T) {
	bin := buildMirrorget(t)
	for _, mode := range crawlModes {
		t.Run(mode.name, func(t *testing.T) {
			s := sitetest.Start(t, sitetest.Options{Pages: 200})
			dir := t.TempDir()
			out := filepath.Join(dir, "out.warc.gz")
			args := append(append([]string{"--format", "warc", "-c", "4", "-o", out}, mode.args(t, dir)...), "--max-pages", "50", s.StartURL())
			_, stderr, code := runBin(t, bin, args...)
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, stderr)
			}
			pages := sitetest.PagesIn(t, out)
			delete(pages, s.RobotsURL(0))
			want := "mirrorget: --max-pages 50 reached: stopped after 50 captures"
			if mode.name == "state" {
				want += "; --continue carries the crawl on"
			}
			if len(pages) != 50 || strings.TrimSpace(stderr) != want {
				t.Errorf("%d pages; stderr %q, want %q", len(pages), stderr, want)
			}
			if fetched, _ := pageFetches(s); fetched != 50 {
				t.Errorf("%d pages fetched, want 50", fetched)
			}
			if mode.name != "state" {
				return
			}
			_, stderr, code = runBin(t, bin, append(args[:len(args)-3], "--continue", s.StartURL())...)
			if code != 0 {
				t.Fatalf("--continue: exit %d:\n%s", code, stderr)
			}
			counts := sitetest.PagesIn(t, out, filepath.Join(dir, "out-00001.warc.gz"))
			if dups := checkAllOnce(t, s, counts); dups != 0 {
				t.Errorf("%d pages written twice", dups)
			}
			if total, dup := pageFetches(s); total != 200 || dup != 0 {
				t.Errorf("%d fetches, %d again, over the two runs", total, dup)
			}
		})
	}
	t.Run("mirror", func(t *testing.T) {
		s := sitetest.Start(t, sitetest.Options{Pages: 40})
		mir := filepath.Join(t.TempDir(), "m")
		_, stderr, code := runBin(t, bin, "-O", mir, "--max-pages", "10", s.StartURL())
		if code != 0 || !strings.Contains(stderr, "--max-pages 10 reached: stopped after 10 captures; --continue carries the crawl on") {
			t.Fatalf("exit %d:\n%s", code, stderr)
		}
		if _, err := os.Stat(filepath.Join(mir, "hts-cache", "frontier.db")); err != nil {
			t.Fatalf("the state of the stopped mirror: %v", err)
		}
		if _, stderr, code = runBin(t, bin, "-O", mir, s.StartURL()); code != 2 {
			t.Errorf("a run without --continue over the stopped mirror: exit %d\n%s", code, stderr)
		}
		if _, stderr, code = runBin(t, bin, "-q", "-O", mir, "--continue", s.StartURL()); code != 0 {
			t.Fatalf("--continue: exit %d\n%s", code, stderr)
		}
		if total, dup := pageFetches(s); total != 40 || dup != 0 {
			t.Errorf("%d fetches, %d again, over the two runs", total, dup)
		}
		if _, err := os.Stat(filepath.Join(mir, "hts-cache", "frontier.db")); !os.IsNotExist(err) {
			t.Errorf("the state of the finished mirror is still there: %v", err)
		}
	})
}

// TestMaxBytesBinary: --max-bytes with one connection stops right after
// the response that reaches the quota (written whole), exit 0, in each
// scheduler.
func TestMaxBytesBinary(t *testing.T) {
	bin := buildMirrorget(t)
	for _, mode := range crawlModes {
		t.Run(mode.name, func(t *testing.T) {
			s := sitetest.Start(t, sitetest.Options{Pages: 100, PageSize: 10000})
			dir := t.TempDir()
			out := filepath.Join(dir, "out.warc.gz")
			args := append(append([]string{"--format", "warc", "-c", "1", "--robots", "off", "-o", out}, mode.args(t, dir)...), "--max-bytes", "35k", s.StartURL())
			_, stderr, code := runBin(t, bin, args...)
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, stderr)
			}
			// a page is a little over 10000 bytes with its head: the 4th
			// passes 35 KiB
			pages := sitetest.PagesIn(t, out)
			fetched, _ := pageFetches(s)
			if len(pages) != 4 || fetched != 4 || !strings.Contains(stderr, "mirrorget: --max-bytes 35k reached: stopped after 4 captures, ") {
				t.Errorf("%d pages written, %d fetched; stderr:\n%s", len(pages), fetched, stderr)
			}
		})
	}
}
