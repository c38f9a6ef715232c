package replay

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/store"
	"github.com/arcport/arcport/lib/store/s3test"
)

// fileAnswer is an answer of the WACZ file route.
type fileAnswer struct {
	code int
	h    http.Header
	body []byte
}

func fileReq(t *testing.T, method, u string, hdr ...string) fileAnswer {
	t.Helper()
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fileAnswer{resp.StatusCode, resp.Header, b}
}

// checkWACZFile asks the file route of collection w at base for the
// WACZ whose bytes are want: HEAD, the whole file, ranges at its start,
// middle and end, a suffix range, an open range, an unsatisfiable one
// (416), two ranges (206 multipart, as http.ServeContent answers),
// conditional requests on the ETag, and CORS on each answer.
func checkWACZFile(t *testing.T, base string, want []byte, local bool) {
	t.Helper()
	u := base + "/w/file/site.wacz"
	n := int64(len(want))
	cors := func(what string, a fileAnswer) {
		t.Helper()
		if a.h.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s: Access-Control-Allow-Origin %q", what, a.h.Get("Access-Control-Allow-Origin"))
		}
		ex := strings.ToLower(a.h.Get("Access-Control-Expose-Headers"))
		for _, h := range []string{"content-range", "content-length", "accept-ranges", "etag"} {
			if !strings.Contains(ex, h) {
				t.Errorf("%s: Access-Control-Expose-Headers %q lacks %s", what, ex, h)
			}
		}
	}

	head := fileReq(t, "HEAD", u)
	cors("HEAD", head)
	if head.code != 200 || head.h.Get("Content-Length") != fmt.Sprint(n) || head.h.Get("Accept-Ranges") != "bytes" || len(head.body) != 0 {
		t.Errorf("HEAD: %d %v, %d body bytes", head.code, head.h, len(head.body))
	}
	etag := head.h.Get("ETag")
	if !strings.HasPrefix(etag, `"`) {
		t.Errorf("HEAD: ETag %q", etag)
	}
	if lm := head.h.Get("Last-Modified"); local && lm == "" {
		t.Errorf("HEAD: no Last-Modified for a local file")
	}

	all := fileReq(t, "GET", u)
	cors("GET", all)
	if all.code != 200 || !bytes.Equal(all.body, want) || all.h.Get("Content-Type") != "application/zip" {
		t.Errorf("GET: %d %q, %d bytes, want %d", all.code, all.h.Get("Content-Type"), len(all.body), n)
	}

	mid := n / 2
	for _, c := range []struct {
		rng        string
		start, end int64 // the bytes [start, end] expected
	}{
		{"bytes=0-99", 0, 99},
		{"bytes=0-0", 0, 0},
		{fmt.Sprintf("bytes=%d-%d", mid, mid+4095), mid, mid + 4095},
		{fmt.Sprintf("bytes=%d-%d", n-100, n-1), n - 100, n - 1},
		{fmt.Sprintf("bytes=%d-%d", n-100, n+5000), n - 100, n - 1}, // an end past the file is cut
		{fmt.Sprintf("bytes=%d-", n-22), n - 22, n - 1},             // the end of central directory
		{"bytes=-22", n - 22, n - 1},                                // suffix
		{fmt.Sprintf("bytes=-%d", n+10), 0, n - 1},                  // suffix longer than the file
	} {
		a := fileReq(t, "GET", u, "Range", c.rng)
		cors(c.rng, a)
		cr := fmt.Sprintf("bytes %d-%d/%d", c.start, c.end, n)
		if a.code != 206 || a.h.Get("Content-Range") != cr || !bytes.Equal(a.body, want[c.start:c.end+1]) || a.h.Get("Content-Length") != fmt.Sprint(c.end-c.start+1) {
			t.Errorf("%s: %d %q (want 206 %q), %d bytes", c.rng, a.code, a.h.Get("Content-Range"), cr, len(a.body))
		}
	}
	for _, rng := range []string{fmt.Sprintf("bytes=%d-", n), fmt.Sprintf("bytes=%d-%d", n+10, n+20)} {
		a := fileReq(t, "GET", u, "Range", rng)
		cors(rng, a)
		if a.code != 416 || a.h.Get("Content-Range") != fmt.Sprintf("bytes */%d", n) {
			t.Errorf("%s: %d %q, want 416 bytes */%d", rng, a.code, a.h.Get("Content-Range"), n)
		}
	}
	multi := fileReq(t, "GET", u, "Range", "bytes=0-9,100-109")
	if multi.code != 206 || !strings.HasPrefix(multi.h.Get("Content-Type"), "multipart/byteranges") || !bytes.Contains(multi.body, want[100:110]) {
		t.Errorf("two ranges: %d %q", multi.code, multi.h.Get("Content-Type"))
	}
	// a range on HEAD: the headers of the 206
	hr := fileReq(t, "HEAD", u, "Range", "bytes=10-19")
	if hr.code != 206 || hr.h.Get("Content-Range") != fmt.Sprintf("bytes 10-19/%d", n) || len(hr.body) != 0 {
		t.Errorf("HEAD with Range: %d %q", hr.code, hr.h.Get("Content-Range"))
	}

	// conditional requests on the ETag
	if a := fileReq(t, "GET", u, "If-None-Match", etag); a.code != 304 {
		t.Errorf("If-None-Match: %d", a.code)
	}
	if a := fileReq(t, "GET", u, "Range", "bytes=0-9", "If-Range", etag); a.code != 206 || !bytes.Equal(a.body, want[:10]) {
		t.Errorf("If-Range same ETag: %d", a.code)
	}
	if a := fileReq(t, "GET", u, "Range", "bytes=0-9", "If-Range", `"other"`); a.code != 200 || !bytes.Equal(a.body, want) {
		t.Errorf("If-Range other ETag: %d, %d bytes", a.code, len(a.body))
	}

	// a CORS preflight for a ranged GET
	pre := fileReq(t, "OPTIONS", u, "Origin", "https://replayweb.page", "Access-Control-Request-Method", "GET", "Access-Control-Request-Headers", "range")
	cors("OPTIONS", pre)
	if pre.code != 204 || !strings.Contains(pre.h.Get("Access-Control-Allow-Methods"), "GET") || !strings.Contains(strings.ToLower(pre.h.Get("Access-Control-Allow-Headers")), "range") || len(pre.body) != 0 {
		t.Errorf("preflight: %d %v", pre.code, pre.h)
	}
	if a := fileReq(t, "PUT", u); a.code != 405 {
		t.Errorf("PUT: %d", a.code)
	}
}

// TestWACZFileLocal: a local WACZ served at /w/file/site.wacz, listed on
// the index page; traversal and other names answer 404 with none of its
// bytes nor those of any other file.
func TestWACZFileLocal(t *testing.T) {
	p := makeWACZ(t, "iana.warc.gz", "example.warc.gz")
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	// a file beside the WACZ that traversal would reach
	if err := os.WriteFile(filepath.Join(filepath.Dir(p), "secret.txt"), []byte("SECRET"), 0o644); err != nil {
		t.Fatal(err)
	}
	ts := serveOne(t, "w", p)
	checkWACZFile(t, ts.URL, want, true)
	t.Logf("%d bytes served", len(want))

	idx := fileReq(t, "GET", ts.URL+"/")
	if !strings.Contains(string(idx.body), "w\twacz\t"+p+"\t/w/file/site.wacz\n") {
		t.Errorf("index: %q", idx.body)
	}

	for _, target := range []string{
		"/w/file/secret.txt",
		"/w/file/../secret.txt",
		"/w/file/..%2fsecret.txt",
		"/w/file/%2e%2e%2fsecret.txt",
		"/w/file/..%2f..%2f..%2f..%2fetc%2fpasswd",
		"/w/file/../../../../etc/passwd",
		"/w/file//etc/passwd",
		"/w/file/site.wacz/..",
		"/w/file/site.wacz/x",
		"/w/file/site.wacz%00",
		"/w/file/SITE.wacz",
		"/w/file/",
		"/all/file/site.wacz",
		"/x/file/site.wacz",
	} {
		a := fileReq(t, "GET", ts.URL+target)
		if a.code != 404 || bytes.Contains(a.body, []byte("SECRET")) || bytes.Contains(a.body, []byte("root:")) || bytes.HasPrefix(a.body, []byte("PK")) {
			t.Errorf("%s: %d %q", target, a.code, clip(string(a.body)))
		}
	}
}

// TestWACZFileHTTP: a WACZ read over http:// is served from the store's
// ranged reads, with the origin's ETag.
func TestWACZFileHTTP(t *testing.T) {
	p := makeWACZ(t, "iana.warc.gz", "example.warc.gz")
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var gets int
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gets++
		w.Header().Set("ETag", `"v1"`)
		http.ServeFile(w, r, p)
	}))
	defer origin.Close()
	ts := serveOne(t, "w", origin.URL+"/dir/site.wacz")
	checkWACZFile(t, ts.URL, want, false)
	if a := fileReq(t, "HEAD", ts.URL+"/w/file/site.wacz"); a.h.Get("ETag") != `"v1"` {
		t.Errorf("ETag %q, want the origin's", a.h.Get("ETag"))
	}
	t.Logf("%d requests to the origin", gets)
}

// TestWACZFileS3: the same from s3:// (versitygw on loopback).
func TestWACZFileS3(t *testing.T) {
	srv := s3test.Start(t)
	srv.Bucket(t, "coll")
	srv.Setenv(t, srv.URL)
	p := makeWACZ(t, "iana.warc.gz", "example.warc.gz")
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	// uploaded through S3, so that the server keeps an ETag
	st := store.New(store.Options{})
	wr, err := st.Create(context.Background(), "s3://coll/site.wacz")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wr.Write(want); err != nil {
		t.Fatal(err)
	}
	if err := wr.Commit(); err != nil {
		t.Fatal(err)
	}
	ts := serveOneStore(t, "w", "s3://coll/site.wacz", st)
	checkWACZFile(t, ts.URL, want, false)
}
