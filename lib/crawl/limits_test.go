package crawl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/arcport/arcport/lib/record"
)

// TestDistinctLinks: a capture's links are one per distinct URL and role
// (navigational, embedded, redirect), in the order of their first
// occurrence, whatever the number of occurrences: a page of 200,000
// <a href=x> costs one Link (it cost one per occurrence, 90 bytes of memory
// per HTML byte), and Src is that first occurrence.
func TestDistinctLinks(t *testing.T) {
	const repeats = 200000
	page := `<html><head><meta http-equiv=refresh content="5; url=x"></head><body>` +
		strings.Repeat("<a href=x>", repeats) + `<img src=x><a href="x#top">top</a><a href=y>` +
		strings.Repeat(`<img src="./x">`, 1000) + `<a href=y>`
	srv := newServer(t, &requestLog{}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/d/" {
			html(w, page)
			return
		}
		http.NotFound(w, r)
	}))
	cfg := testConfig(srv.URL + "/d/")
	cfg.Robots = false
	cfg.MaxDepth = 0
	col := run(t, cfg)
	c := col.get(srv.URL + "/d/")
	if c == nil {
		t.Fatal("no capture of the page")
	}
	var got []string
	for _, l := range c.Links {
		got = append(got, fmt.Sprintf("%s embedded=%v redirect=%v taken=%v %q src=%d-%d",
			strings.TrimPrefix(l.URL, srv.URL), l.Embedded, l.Redirect, l.Taken, l.Reason, l.Src.Start, l.Src.End))
	}
	first := int64(len(`<html><head><meta http-equiv=refresh content="5; url=x"></head><body><a href=`))
	img := first - 8 + int64(10*repeats) + int64(len(`<img src=`))
	y := img + int64(len(`x><a href="x#top">top</a><a href=`))
	eq(t, "links", got, []string{
		`/d/x embedded=false redirect=true taken=true "" src=53-54`,
		fmt.Sprintf(`/d/x embedded=false redirect=false taken=false "depth" src=%d-%d`, first, first+1),
		fmt.Sprintf(`/d/x embedded=true redirect=false taken=true "duplicate" src=%d-%d`, img, img+1),
		fmt.Sprintf(`/d/y embedded=false redirect=false taken=false "depth" src=%d-%d`, y, y+1),
	})
}

func TestParseLimit(t *testing.T) {
	for _, tc := range []struct{ maxParse, maxSize, want int64 }{
		{0, 0, DefaultMaxParse},
		{1 << 20, 0, 1 << 20},
		{0, 2 << 20, 2 << 20},
		{8 << 20, 2 << 20, 2 << 20},
		{1 << 20, 2 << 20, 1 << 20},
		{0, 1 << 30, DefaultMaxParse},
	} {
		cfg := Config{MaxParse: tc.maxParse, MaxSize: tc.maxSize}
		if got := cfg.ParseLimit(); got != tc.want {
			t.Errorf("MaxParse %d, MaxSize %d: ParseLimit %d, want %d", tc.maxParse, tc.maxSize, got, tc.want)
		}
	}
}

// gzipBomb is a gzip member of prefix, n zeros and suffix.
func gzipBomb(t testing.TB, prefix string, n int, suffix string) []byte {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	zw.Write([]byte(prefix))
	zeros := make([]byte, 1<<20)
	for ; n > 0; n -= len(zeros) {
		zw.Write(zeros[:min(n, len(zeros))])
	}
	zw.Write([]byte(suffix))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestGzipBombPage: an HTML page whose gzip coding inflates to 64 MiB is
// read for links up to the parse limit only, with one warning; the
// capture keeps the response as received (the 64 KiB of gzip), and the
// crawl goes on to the links found before the limit.
func TestGzipBombPage(t *testing.T) {
	bomb := gzipBomb(t, `<html><body><a href=before.html>`, 64<<20, `<a href=after.html></body></html>`)
	srv := newServer(t, &requestLog{}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/bomb.html":
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Encoding", "gzip")
			w.Header().Set("Content-Length", strconv.Itoa(len(bomb)))
			w.Write(bomb)
		case "/before.html":
			html(w, "before")
		default:
			http.NotFound(w, r)
		}
	}))
	for _, tc := range []struct {
		name              string
		maxParse, maxSize int64
		limit             int
	}{
		{"max-parse", 4 << 20, 0, 4 << 20},
		{"max-size", 0, 2 << 20, 2 << 20}, // the gzip is smaller than that
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(srv.URL + "/bomb.html")
			cfg.Robots = false
			cfg.MaxParse, cfg.MaxSize = tc.maxParse, tc.maxSize
			var bc *Capture
			var raw int64
			var captured []string
			sink := SinkFunc(func(c *Capture) error {
				captured = append(captured, strings.TrimPrefix(c.URL, srv.URL))
				if strings.HasSuffix(c.URL, "/bomb.html") {
					cc := *c
					bc, raw = &cc, c.Response.Size()-c.BodyOffset
				}
				return nil
			})
			cr, err := New(cfg, sink)
			if err != nil {
				t.Fatal(err)
			}
			if err := cr.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			eq(t, "captured", captured, []string{"/bomb.html", "/before.html"})
			if bc == nil {
				t.Fatal("no capture of the bomb")
			}
			if raw != int64(len(bomb)) || bc.Truncated != "" || bc.Err != nil {
				t.Errorf("capture: %d body bytes (sent %d), truncated %q, err %v", raw, len(bomb), bc.Truncated, bc.Err)
			}
			want := fmt.Sprintf("decoded body larger than %d bytes: links read from the first %d bytes only", tc.limit, tc.limit)
			if fmt.Sprint(bc.Warnings) != "["+want+"]" {
				t.Errorf("warnings %q, want [%q]", bc.Warnings, want)
			}
			var urls []string
			for _, l := range bc.Links {
				urls = append(urls, strings.TrimPrefix(l.URL, srv.URL))
			}
			eq(t, "links", urls, []string{"/before.html"})
		})
	}
}

// TestTransferLimits: a tarpit trickling a byte every 50 ms is cut by the
// minimum rate, a fast server that never ends by the request time limit;
// both captures are recorded as received so far with WARC-Truncated
// "time", not fetched again, and the links of what came are followed. Time
// spent under our own bandwidth cap is not held against the server.
func TestTransferLimits(t *testing.T) {
	drip := func(w http.ResponseWriter, r *http.Request, chunk []byte, every time.Duration) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<html><a href="next.html">next</a>`)
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			time.Sleep(every)
		}
	}
	srv := newServer(t, &requestLog{}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/tarpit/", "/endless/":
			if r.URL.Path == "/tarpit/" {
				drip(w, r, []byte("x"), 50*time.Millisecond)
			} else {
				drip(w, r, bytes.Repeat([]byte("y"), 2048), 20*time.Millisecond)
			}
		case "/capped/":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, `<a href="next.html">next</a>`+strings.Repeat(" ", 20000))
		default:
			html(w, "ok")
		}
	}))
	for _, tc := range []struct {
		path      string
		configure func(*Config)
		cut       error // nil: the transfer completes
	}{
		{"/tarpit/", func(c *Config) { c.MinRate = 1000 }, ErrMinRate}, // 120 bytes/s with the chunk framing
		{"/endless/", func(c *Config) { c.MaxRequestTime = time.Second }, ErrRequestTime},
		// 20 KB at 10 KiB/s of our own cap: 2 s, far under 100 KiB/s
		{"/capped/", func(c *Config) { c.MinRate = 100 << 10; c.MaxRate = 10 << 10 }, nil},
	} {
		t.Run(strings.Trim(tc.path, "/"), func(t *testing.T) {
			cfg := testConfig(srv.URL + tc.path)
			cfg.Robots = false
			cfg.Timeout = 500 * time.Millisecond
			cfg.MinRate, cfg.Retries = 0, 2
			tc.configure(&cfg)
			col := run(t, cfg)
			eq(t, "captured", col.urls(srv.URL), []string{tc.path, tc.path + "next.html"})
			c := col.get(srv.URL + tc.path)
			if tc.cut == nil {
				if c.Err != nil || c.Truncated != "" || len(c.body) != 20028 {
					t.Errorf("capped transfer: err %v, truncated %q, %d body bytes", c.Err, c.Truncated, len(c.body))
				}
				return
			}
			if !errors.Is(c.Err, tc.cut) || c.Truncated != "time" || c.Attempts != 1 {
				t.Errorf("err %v, truncated %q, %d attempts; want %v, time, 1", c.Err, c.Truncated, c.Attempts, tc.cut)
			}
			if got := c.respRec.Get(record.FieldTruncated); got != "time" {
				t.Errorf("WARC-Truncated %q", got)
			}
			if !bytes.HasPrefix(c.body, []byte(`<html><a href="next.html">next</a>`)) || int64(len(c.raw)) <= c.BodyOffset {
				t.Errorf("recorded body %.40q... (%d raw bytes)", c.body, len(c.raw))
			}
		})
	}
}
