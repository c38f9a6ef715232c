package crawl

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
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
