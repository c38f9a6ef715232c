package hostile

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// hostileSite is a loopback server whose paths misbehave as crawl targets.
func hostileSite(t testing.TB) *httptest.Server {
	mux := http.NewServeMux()
	page := func(w http.ResponseWriter, links ...string) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html><head><title>t</title></head><body>")
		for _, l := range links {
			fmt.Fprintf(w, "<a href=%q>x</a>", l)
		}
		io.WriteString(w, "</body></html>")
	}
	// raw answers on the bare connection.
	raw := func(w http.ResponseWriter, f func(bw *bufio.Writer)) {
		conn, bw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		f(bw.Writer)
		bw.Flush()
	}
	mux.HandleFunc("/robots.txt", http.NotFound)
	// Redirects that never end: a counter and a self-loop.
	mux.HandleFunc("/redirect/", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/redirect/"))
		http.Redirect(w, r, fmt.Sprintf("/redirect/%d", n+1), http.StatusFound)
	})
	mux.HandleFunc("/loop/", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Path, http.StatusMovedPermanently)
	})
	// A body that never ends (close-delimited) and an endless chunked one.
	endless := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		buf := bytes.Repeat([]byte("x"), 64<<10)
		for r.Context().Err() == nil {
			if _, err := w.Write(buf); err != nil {
				return
			}
		}
	}
	mux.HandleFunc("/infinite/", endless) // Go's server chunks it
	mux.HandleFunc("/infinite-raw/", func(w http.ResponseWriter, r *http.Request) {
		raw(w, func(bw *bufio.Writer) {
			bw.WriteString("HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n<html><body>")
			for {
				if _, err := bw.WriteString(strings.Repeat("<a href=x>", 6000)); err != nil {
					return
				}
			}
		})
	})
	// Headers, then nothing: the connection stays open.
	mux.HandleFunc("/hang/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	// A tarpit: one byte every 100 ms, for ever (never idle long enough
	// for an idle timeout).
	mux.HandleFunc("/drip/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		for r.Context().Err() == nil {
			if _, err := w.Write([]byte("x")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			time.Sleep(100 * time.Millisecond)
		}
	})
	// A 100 MiB header line without a newline.
	mux.HandleFunc("/huge-header/", func(w http.ResponseWriter, r *http.Request) {
		raw(w, func(bw *bufio.Writer) {
			bw.WriteString("HTTP/1.1 200 OK\r\nX-Long: ")
			chunk := strings.Repeat("a", 1<<20)
			for i := 0; i < hugeLine>>20; i++ {
				if _, err := bw.WriteString(chunk); err != nil {
					return
				}
			}
		})
	})
	// A chunk size that overflows, then an endless chunk stream.
	mux.HandleFunc("/chunk-huge/", func(w http.ResponseWriter, r *http.Request) {
		raw(w, func(bw *bufio.Writer) {
			bw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n<html>")
		})
	})
	mux.HandleFunc("/chunk-endless/", func(w http.ResponseWriter, r *http.Request) {
		raw(w, func(bw *bufio.Writer) {
			bw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n")
			for {
				if _, err := bw.WriteString("1\r\na\r\n"); err != nil {
					return
				}
			}
		})
	})
	// Content-Length far beyond what is sent.
	mux.HandleFunc("/lying-length/", func(w http.ResponseWriter, r *http.Request) {
		raw(w, func(bw *bufio.Writer) {
			bw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 9000000000000000000\r\n\r\n<html><a href=/lying-length/a>a</a>")
		})
	})
	// An HTML page whose gzip content coding inflates to 1 GiB.
	mux.HandleFunc("/gzip-bomb/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		writeGzipBomb(w, []byte("<html><body><a href=/gzip-bomb/a>"), bombSize(), []byte("</body></html>"))
	})
	// Names that try to leave the -O directory.
	mux.HandleFunc("/slip/", func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/slip/":
			page(w, "/slip/..%2f..%2f..%2fescape1.html", "/slip/%2e%2e/%2e%2e/%2e%2e/escape2.html", "/slip/dispo",
				"/slip/x%00.html", "/slip/back\\..\\..\\escape3.html", "/slip/redir-file")
		case "/slip/dispo":
			w.Header().Set("Content-Disposition", `attachment; filename="../../../escape4.html"`)
			page(w)
		case "/slip/redir-file":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		default:
			page(w)
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv
}

// TestMirrorgetHostileTargets crawls each misbehaving target: mirrorget
// finishes within the time limit and memory bound, without a panic; its
// stream (-o, ARC and WARC) reads back whole; with -O it writes only
// inside its directory.
func TestMirrorgetHostileTargets(t *testing.T) {
	mg := bin(t, "mirrorget")
	srv := hostileSite(t)
	cases := []struct {
		path  string
		extra []string
		known string
	}{
		{path: "/redirect/0", extra: nil},
		{path: "/loop/a", extra: nil},
		{path: "/infinite/", extra: []string{"--max-size", "2m"}},
		{path: "/infinite-raw/", extra: []string{"--max-size", "2m"}},
		{path: "/hang/", extra: nil},
		{path: "/drip/", extra: []string{"--max-size", "1m"}},
		{path: "/huge-header/", extra: nil},
		{path: "/chunk-huge/", extra: nil},
		{path: "/chunk-endless/", extra: []string{"--max-size", "2m"}},
		{path: "/lying-length/", extra: nil},
		{path: "/gzip-bomb/", extra: nil},
		{path: "/slip/", extra: nil},
	}
	for _, tc := range cases {
		for _, format := range []string{"arc", "warc"} {
			name := strings.Trim(tc.path, "/") + "/" + format
			t.Run(name, func(t *testing.T) {
				if tc.known != "" {
					t.Skip(tc.known)
				}
				t.Parallel()
				acquire(t)
				c := newCase(t)
				c.freeze(t)
				out := filepath.Join(c.out, "x."+format)
				args := append([]string{"--format", format, "-o", out, "-O", filepath.Join(c.out, "mirror"),
					"--timeout", "2s", "--retries", "0", "-r", "3"}, tc.extra...)
				args = append(args, srv.URL+tc.path)
				res := c.cmd(mg, args...).exec(t)
				what := "mirrorget " + tc.path
				if !check(t, what, res, expect{rssMB: craftedRSS}) || !c.contained(t, what, res) {
					return
				}
				if n, err := readFileValid(out, format == "arc"); err != nil {
					t.Errorf("%s: the stream does not read back: %v\n  %s", what, err, res)
				} else {
					t.Logf("%s: %d records", what, n)
				}
			})
		}
	}
}
