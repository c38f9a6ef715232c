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
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/arcport/arcport/lib/crawl"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/warc"
)

// capsSite exceeds each of the crawler's default caps: a 3 MiB body, a
// robots.txt of 600 KiB whose last rule (past 500 KiB) disallows /private,
// a link 2100 bytes long, links that repeat a path segment four times and
// nest 70 segments deep, and a chain of 14 redirects.
func capsSite(t *testing.T) *httptest.Server {
	longPath := "/long/" + strings.Repeat("x", 2100)
	deep := ""
	for i := 0; i < 70; i++ {
		deep += fmt.Sprintf("/s%d", i)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		switch {
		case p == "/robots.txt":
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "User-agent: *\n")
			for i := 0; i < 600; i++ {
				io.WriteString(w, "# "+strings.Repeat("c", 1021)+"\n")
			}
			io.WriteString(w, "Disallow: /private\n")
		case p == "/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, `<html><body><a href="/big">big</a> <a href="/private">p</a> <a href="%s">long</a>
<a href="/a/a/a/a/trap.html">trap</a> <a href="%s/deep.html">deep</a> <a href="/r/1">redirects</a></body></html>`, longPath, deep)
		case p == "/big":
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write(bytes.Repeat([]byte("0123456789abcdef"), 3<<16))
		case strings.HasPrefix(p, "/r/"):
			var n int
			fmt.Sscanf(p, "/r/%d", &n)
			if n < 14 {
				http.Redirect(w, r, fmt.Sprintf("/r/%d", n+1), http.StatusFound)
				return
			}
			io.WriteString(w, "end of the chain")
		default:
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<html><body>page</body></html>")
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// capsRun crawls srv with args and returns the response records by target
// URI (path only) and stderr.
func capsRun(t *testing.T, bin string, srv *httptest.Server, args ...string) (map[string]*record.Record, map[string][]byte, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "x.warc.gz")
	cmd := exec.Command(bin, append(append([]string{"-v", "-c", "1", "--format", "warc", "-o", out}, args...), srv.URL+"/")...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("mirrorget %q: %v\n%s", args, err, stderr.String())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := warc.NewReader(f, warc.WithPolicy(record.Fail))
	if err != nil {
		t.Fatal(err)
	}
	recs, blocks := map[string]*record.Record{}, map[string][]byte{}
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
		if rec.Type() == record.Response {
			p := strings.TrimPrefix(rec.TargetURI(), srv.URL)
			recs[p], blocks[p] = rec, b
		}
	}
	return recs, blocks, stderr.String()
}

// TestCaps: each default cap of the crawler holds against a site that
// exceeds it, and its flag moves it.
func TestCaps(t *testing.T) {
	bin := buildMirrorget(t)
	srv := capsSite(t)
	deepPath := ""
	for i := 0; i < 70; i++ {
		deepPath += fmt.Sprintf("/s%d", i)
	}
	deepPath += "/deep.html"
	longPath := "/long/" + strings.Repeat("x", 2100)

	t.Run("defaults", func(t *testing.T) {
		recs, blocks, stderr := capsRun(t, bin, srv)
		// robots.txt: cut at 500 KiB, the rules read obeyed, the last not seen
		rb := recs["/robots.txt"]
		if rb == nil || rb.Header.Get("WARC-Truncated") != "length" {
			t.Fatalf("robots.txt record: %+v", rb)
		}
		if body := blocks["/robots.txt"][bytes.Index(blocks["/robots.txt"], []byte("\r\n\r\n"))+4:]; len(body) != 500<<10 {
			t.Errorf("robots.txt: %d body bytes recorded, want %d", len(body), 500<<10)
		}
		if recs["/private"] == nil {
			t.Errorf("/private, disallowed past 500 KiB of robots.txt, was not fetched")
		}
		if recs["/big"] == nil || recs["/big"].Header.Get("WARC-Truncated") != "" {
			t.Errorf("/big (3 MiB) cut under the 1 GiB default")
		}
		for _, p := range []string{longPath, "/a/a/a/a/trap.html", deepPath, "/r/12"} {
			if recs[p] != nil {
				t.Errorf("%.60s... fetched past the default cap", p)
			}
		}
		if recs["/r/11"] == nil {
			t.Errorf("/r/11, 10 redirects from /r/1, not fetched")
		}
		for _, want := range []string{
			"skip " + srv.URL + "/long/xxx",
			"(trap: URL longer than 2048 bytes)",
			"skip " + srv.URL + "/a/a/a/a/trap.html (trap: path segment \"a\" repeated more than 3 times)",
			"(trap: more than 64 path segments)",
			"skip " + srv.URL + "/r/12 (too many redirects)",
		} {
			if !strings.Contains(stderr, want) {
				t.Errorf("-v did not report %q:\n%s", want, stderr)
			}
		}
	})

	t.Run("flags", func(t *testing.T) {
		recs, blocks, _ := capsRun(t, bin, srv, "--max-size", "1m", "--max-robots-size", "1m", "--max-url-length", "4096",
			"--max-segment-repeat", "4", "--max-path-segments", "100", "--max-redirects", "3")
		if rb := recs["/robots.txt"]; rb == nil || rb.Header.Get("WARC-Truncated") != "" {
			t.Errorf("robots.txt cut under --max-robots-size 1m")
		}
		if recs["/private"] != nil {
			t.Errorf("/private fetched, disallowed by robots.txt read in full")
		}
		big := recs["/big"]
		if big == nil || big.Header.Get("WARC-Truncated") != "length" {
			t.Fatalf("/big not marked WARC-Truncated: length under --max-size 1m: %+v", big)
		}
		if body := blocks["/big"][bytes.Index(blocks["/big"], []byte("\r\n\r\n"))+4:]; len(body) != 1<<20 {
			t.Errorf("/big: %d body bytes recorded, want %d", len(body), 1<<20)
		}
		for _, p := range []string{longPath, "/a/a/a/a/trap.html", deepPath, "/r/4"} {
			if recs[p] == nil {
				t.Errorf("%.60s... not fetched with the cap raised", p)
			}
		}
		if recs["/r/5"] != nil {
			t.Errorf("/r/5 fetched, 4 redirects from /r/1, with --max-redirects 3")
		}
	})

	t.Run("off", func(t *testing.T) {
		recs, _, _ := capsRun(t, bin, srv, "--max-url-length", "0", "--max-segment-repeat", "0", "--max-path-segments", "0", "--max-redirects", "0")
		for _, p := range []string{longPath, "/a/a/a/a/trap.html", deepPath} {
			if recs[p] == nil {
				t.Errorf("%.60s... not fetched with the cap off", p)
			}
		}
		if recs["/r/1"] == nil || recs["/r/2"] != nil {
			t.Errorf("--max-redirects 0 followed a redirect")
		}
	})
}

// The flags' defaults are the crawler's.
func TestCapDefaults(t *testing.T) {
	var got *Options
	app := App()
	app.Action = func(c *cli.Context) error {
		o, err := options(c)
		got = o
		return err
	}
	if err := app.Run([]string{"mirrorget", "http://127.0.0.1:1/"}); err != nil {
		t.Fatal(err)
	}
	cfg := got.Crawl
	if cfg.MaxSize != 1<<30 || cfg.MaxRobotsSize != 500<<10 || cfg.MaxRedirects != 10 ||
		cfg.Traps.MaxURLLength != 2048 || cfg.Traps.MaxRepeat != 3 || cfg.Traps.MaxSegments != 64 {
		t.Errorf("defaults: MaxSize %d, MaxRobotsSize %d, MaxRedirects %d, Traps %+v", cfg.MaxSize, cfg.MaxRobotsSize, cfg.MaxRedirects, cfg.Traps)
	}
	if d := crawl.DefaultConfig(); d.MaxSize != cfg.MaxSize || d.MaxRobotsSize != cfg.MaxRobotsSize {
		t.Errorf("crawl.DefaultConfig: MaxSize %d, MaxRobotsSize %d", d.MaxSize, d.MaxRobotsSize)
	}
}
