package waczpack

import (
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// uiGet asks serve for target as a browser does (Accept: text/html).
func uiGet(t *testing.T, u string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", u, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/html,*/*;q=0.8")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestServeUI: `waczpack create --text` packs pywb's sample WARCs, `waczpack
// serve` serves the WACZ with pywb's CDX folder: a browser gets the
// collections page, a collection's URLs, a URL's calendar, the pages with
// their titles and a record; curl still gets the text list.
func TestServeUI(t *testing.T) {
	sa := sampleArchiveDir(t)
	w := filepath.Join(t.TempDir(), "site.wacz")
	if _, se, code := run(t, nil, "create", "--text", "--title", "Sample <site>", "-o", w, filepath.Join(sa, "warcs", "iana.warc.gz"), filepath.Join(sa, "warcs", "example.warc.gz")); code != 0 {
		t.Fatalf("create: %d %s", code, se)
	}
	base, stop := startServe(t, w, filepath.Join(sa, "cdx"), "--cache-dir", t.TempDir())
	defer stop()
	if _, _, b := getBody(t, base+"/"); !strings.Contains(b, "site\twacz\t") || strings.Contains(b, "<html") {
		t.Errorf("/ for curl: %q", b)
	}
	code, b := uiGet(t, base+"/")
	if code != 200 || !strings.Contains(b, `<a href="/site/"><b>site</b></a>`) || !strings.Contains(b, "Sample &lt;site&gt;") || !strings.Contains(b, `<a href="/cdx/"><b>cdx</b></a>`) {
		t.Errorf("/: %d %s", code, b)
	}
	code, b = uiGet(t, base+"/site/?url=iana.org&matchType=domain")
	if n := strings.Count(b, `<td class="url">`); code != 200 || n < 20 {
		t.Errorf("/site/ iana.org: %d, %d URLs", code, n)
	}
	code, b = uiGet(t, base+"/site/*/http://www.iana.org/")
	cells := regexp.MustCompile(`title="(Sun 26 Jan 2014: \d+ captures?)"`).FindStringSubmatch(b)
	if code != 200 || cells == nil {
		t.Fatalf("calendar: %d %v", code, cells)
	}
	code, b = uiGet(t, base+"/site/pages")
	if code != 200 || !strings.Contains(b, "Internet Assigned Numbers Authority") {
		t.Errorf("pages: %d", code)
	}
	code, b = uiGet(t, base+"/cdx/record?url=http://www.iana.org/&ts=20140126200624")
	if code != 200 || !strings.Contains(b, "WARC-Target-URI") || !strings.Contains(b, "iana.warc.gz") {
		t.Errorf("record: %d", code)
	}
	t.Logf("calendar: %s", cells[1])
}
