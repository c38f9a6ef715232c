package wacz

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/warcgen"
	"github.com/klauspost/compress/gzip"
)

// pagesCorpus is a WARC of html pages with what page detection must get
// right when pages go to disk: URLs captured several times (the first
// capture is the page), a first capture that is no page (404) before one
// that is, pages embedded as frames by later pages, a seed, and titles.
func pagesCorpus(n int) []byte {
	var recs [][]byte
	resp := func(uri, date, status, body string) []byte {
		msg := fmt.Sprintf("HTTP/1.1 %s\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s", status, len(body), body)
		fs := warcgen.Response(uri, "", "")
		for i := range fs {
			if fs[i].Name == "WARC-Date" {
				fs[i].Value = date
			}
			if fs[i].Name == "WARC-Record-ID" {
				fs[i].Value = fmt.Sprintf("<urn:uuid:%08x-0000-4000-8000-%012x>", len(recs), len(recs))
			}
		}
		return warcgen.Record(fs, []byte(msg))
	}
	for i := 0; i < n; i++ {
		u := fmt.Sprintf("https://example.com/p/%d.html", i%(n/3+1)) // each URL about three times
		date := fmt.Sprintf("2024-01-02T03:%02d:%02dZ", i/60%60, i%60)
		status := "200 OK"
		if i%17 == 0 {
			status = "404 Not Found"
		}
		body := fmt.Sprintf("<html><head><title>Page %d of %s</title></head><body>", i, strings.Repeat("x", i%50))
		if i%11 == 0 {
			body += fmt.Sprintf(`<iframe src="/p/%d.html"></iframe>`, (i+5)%(n/3+1))
		}
		recs = append(recs, resp(u, date, status, body+"</body></html>"))
	}
	return warcgen.Gzip(recs...)
}

func zipMembers(t *testing.T, path string) map[string][]byte {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	out := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name] = b
	}
	return out
}

// TestPagesSpill: with a page memory bound of a few pages, the pages go
// through temporary files, and the WACZ is byte for byte the one built
// with all pages in memory; both for the fast path (gzip members, page
// detection deferred to workers) and the plain one (an uncompressed WARC).
func TestPagesSpill(t *testing.T) {
	gz := pagesCorpus(3000)
	var plain bytes.Buffer
	{
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			t.Fatal(err)
		}
		plain.ReadFrom(zr)
	}
	for _, in := range []input{{"pages.warc.gz", gz}, {"pages.warc", plain.Bytes()}} {
		t.Run(in.name, func(t *testing.T) {
			// Frames: the corpus declares its iframes after </title>, which
			// a titles-only read does not reach
			opts := Options{Seeds: []string{"https://example.com/p/7.html"}, Frames: true, DraftFiles: true}
			memPath, memStats, err := buildWACZ(t, opts, in)
			if err != nil {
				t.Fatal(err)
			}
			opts.PageMemory = 2000 // a few pages
			diskPath, diskStats, err := buildWACZ(t, opts, in)
			if err != nil {
				t.Fatal(err)
			}
			if memStats.PagesSpilled != 0 || diskStats.PagesSpilled < diskStats.Pages/2 {
				t.Fatalf("pages spilled: %d with the default bound, %d with 2000 bytes (of %d pages)", memStats.PagesSpilled, diskStats.PagesSpilled, diskStats.Pages)
			}
			if memStats.Pages < 500 || memStats.Pages != diskStats.Pages {
				t.Fatalf("pages: %d in memory, %d through disk", memStats.Pages, diskStats.Pages)
			}
			a, b := zipMembers(t, memPath), zipMembers(t, diskPath)
			for _, name := range []string{PagesPath, PagesCSVPath, WebArchiveYAMLPath, DataPackagePath} {
				if !bytes.Equal(a[name], b[name]) {
					t.Errorf("%s differs:\n%.600s\nthrough disk:\n%.600s", name, a[name], b[name])
				}
			}
			ma, _ := os.ReadFile(memPath)
			mb, _ := os.ReadFile(diskPath)
			if !bytes.Equal(ma, mb) {
				t.Errorf("WACZ differs (%d vs %d bytes)", len(ma), len(mb))
			}
			// the page list is what the rules say: framed pages left out, one
			// page per URL (its first 200 capture), the seed first
			pj := string(a[PagesPath])
			if !strings.Contains(strings.SplitN(pj, "\n", 3)[1], `"url":"https://example.com/p/7.html"`) {
				t.Errorf("seed not first:\n%.300s", pj)
			}
			if strings.Count(pj, `"url":"https://example.com/p/7.html"`) != 1 {
				t.Errorf("seed's URL listed twice")
			}
			if strings.Contains(pj, `"url":"https://example.com/p/5.html"`) {
				t.Errorf("p/5.html is framed by the first page, yet listed")
			}
			if !strings.Contains(pj, `"url":"https://example.com/p/0.html","ts":"2024-01-02T03:16:41Z","title":"Page 1001 of x"`) {
				t.Errorf("p/0.html (404 first, then 200 at record 1001) missing: %s", pj[max(0, strings.Index(pj, "/p/0.html")-60):][:200])
			}
		})
	}
}
