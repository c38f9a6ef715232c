package replay

import (
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"encoding/base32"
	"fmt"
	"html"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/wacz"
	"github.com/arcport/arcport/lib/warc"
)

// gardenCapture is one record of the garden WARC the UI tests make.
type gardenCapture struct {
	url, ts, file string // file: under testdata/htcache/garden-origin
	body          []byte
	ctype         string
	revisit       bool
}

// hostileURL and hostileTitle are a page the pages must show as text.
const (
	hostileURL   = `http://garden.example/x?q="><script>alert(1)</script>`
	hostileTitle = `<script>alert("title")</script> Tom & Jerry's <b>garden</b>`
)

func sha1b32(b []byte) string {
	s := sha1.Sum(b)
	return "sha1:" + base32.StdEncoding.EncodeToString(s[:])
}

// gardenCaptures are the captures of the garden site: its home page
// 74 times over 2023-2025 (uneven, as crawls are), its other pages and
// files a few times, a revisit, and a hostile page.
func gardenCaptures(t testing.TB) []gardenCapture {
	t.Helper()
	origin := filepath.Join("..", "..", "testdata", "htcache", "garden-origin")
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(origin, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	rng := rand.New(rand.NewPCG(25, 2026))
	var out []gardenCapture
	home := read("index.html")
	// months with captures per year: a quiet 2023, a busy spring 2024
	plan := map[int][]int{2023: {0, 0, 0, 2, 3, 0, 0, 4, 0, 3, 0, 2}, 2024: {1, 2, 9, 40, 3, 0, 1, 2, 2, 0, 1, 3}, 2025: {2, 3, 4, 0, 2, 5, 0, 3, 1, 0, 2, 0}}
	for y := 2023; y <= 2025; y++ {
		for m, n := range plan[y] {
			for range n {
				d := 1 + rng.IntN(28)
				if y == 2024 && m == 3 {
					// a busy April 2024: some days many times
					d = []int{15, 15, 15, 15, 16, 16, 9, 22, 3, 15, 16, 22, 28, 9}[rng.IntN(14)]
				}
				ts := time.Date(y, time.Month(m+1), d, rng.IntN(24), rng.IntN(60), rng.IntN(60), 0, time.UTC).Format("20060102150405")
				out = append(out, gardenCapture{url: "http://garden.example/", ts: ts, body: home, ctype: "text/html"})
			}
		}
	}
	for i, f := range []string{"members.html", "news/2024.html", "news/2025.html", "style.css", "img/rose.gif", "résumé.html"} {
		ct := "text/html"
		switch filepath.Ext(f) {
		case ".css":
			ct = "text/css"
		case ".gif":
			ct = "image/gif"
		}
		u := "http://garden.example/" + strings.ReplaceAll(url.PathEscape(f), "%2F", "/")
		for j := 0; j <= i%3; j++ {
			ts := fmt.Sprintf("2024%02d%02d1%d3000", 3+j, 10+i, j)
			out = append(out, gardenCapture{url: u, ts: ts, body: read(f), ctype: ct})
		}
	}
	out = append(out, gardenCapture{url: "http://garden.example/", ts: "20251224120000", body: home, ctype: "text/html", revisit: true})
	out = append(out, gardenCapture{url: hostileURL, ts: "20240601000000", ctype: "text/html",
		body: []byte("<html><head><title>" + strings.NewReplacer("<", "&lt;", ">", "&gt;", "&", "&amp;").Replace(hostileTitle) + "</title></head><body><p>A page with a hidden treasure under the roses.</p></body></html>")})
	sort.SliceStable(out, func(i, j int) bool { return out[i].ts < out[j].ts })
	return out
}

// writeGardenWARC writes the captures as a WARC, a gzip member a record,
// and returns the offset of each capture's record.
func writeGardenWARC(t testing.TB, p string, caps []gardenCapture) []int64 {
	t.Helper()
	var buf bytes.Buffer
	var offs []int64
	for i, c := range caps {
		offs = append(offs, int64(buf.Len()))
		date := c.ts[:4] + "-" + c.ts[4:6] + "-" + c.ts[6:8] + "T" + c.ts[8:10] + ":" + c.ts[10:12] + ":" + c.ts[12:14] + "Z"
		head := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %d\r\nServer: garden\r\n\r\n", c.ctype, len(c.body))
		typ := "response"
		block := append([]byte(head), c.body...)
		extra := ""
		if c.revisit {
			typ = "revisit"
			block = []byte(head)
			extra = "WARC-Profile: http://netpreserve.org/warc/1.1/revisit/identical-payload-digest\r\nWARC-Refers-To-Target-URI: http://garden.example/\r\nWARC-Refers-To-Date: 2025-11-01T00:00:00Z\r\n"
		}
		hdr := fmt.Sprintf("WARC/1.1\r\nWARC-Type: %s\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-%012d>\r\nWARC-Date: %s\r\nWARC-Target-URI: %s\r\n%sContent-Type: application/http; msgtype=response\r\nWARC-Payload-Digest: %s\r\nWARC-Block-Digest: %s\r\nContent-Length: %d\r\n\r\n",
			typ, i, date, c.url, extra, sha1b32(c.body), sha1b32(block), len(block))
		zw := gzip.NewWriter(&buf)
		zw.Write([]byte(hdr))
		zw.Write(block)
		zw.Write([]byte("\r\n\r\n"))
		zw.Close()
	}
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return offs
}

// gardenWACZ packs the garden WARC into a WACZ with page text.
func gardenWACZ(t testing.TB) (string, []gardenCapture) {
	t.Helper()
	caps := gardenCaptures(t)
	dir := t.TempDir()
	wp := filepath.Join(dir, "garden.warc.gz")
	writeGardenWARC(t, wp, caps)
	p := filepath.Join(dir, "garden.wacz")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	ww, err := wacz.NewWriter(f, wacz.Options{Title: "Garden Club", Description: "Three years of the garden club's site.", Text: true, Seeds: []string{"http://garden.example/"}})
	if err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(wp)
	if err != nil {
		t.Fatal(err)
	}
	if err := ww.AddInput("garden.warc.gz", in); err != nil {
		t.Fatal(err)
	}
	in.Close()
	if err := ww.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return p, caps
}

// uiServer serves the garden WACZ as "garden", and pywb's sample CDX
// folder as "sample" when the fixtures are there.
func uiServer(t testing.TB) (*httptest.Server, []gardenCapture) {
	t.Helper()
	p, caps := gardenWACZ(t)
	g, err := Open(t.Context(), "garden", p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	colls := []*Collection{g}
	if sa := sampleArchiveDir(); sa != "" {
		c, err := Open(t.Context(), "sample", filepath.Join(sa, "cdx"), Options{CacheDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		zn, err := Open(t.Context(), "zn", filepath.Join(sa, "zipcdx", "zipnum-sample.idx"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		colls = append(colls, c, zn)
	}
	s, err := NewServer(colls...)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return ts, caps
}

// newUITestServer serves s on loopback and returns its base URL.
func newUITestServer(t testing.TB, s *Server) string {
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return ts.URL
}

// sampleArchiveDir is pywb's sample collection in the shared fixtures, or
// "".
func sampleArchiveDir() string {
	p, _ := filepath.Abs(filepath.Join("..", "..", "..", "shared", "fixtures", "pywb", "sample_archive"))
	if _, err := os.Stat(filepath.Join(p, "cdx", "iana.cdx")); err != nil {
		return ""
	}
	return p
}

type uiAnswer struct {
	code int
	hdr  http.Header
	body string
}

// uiGet asks for target as a browser would (Accept: text/html), the
// target sent as it is written.
func uiGet(t testing.TB, base, target string, accept ...string) uiAnswer {
	t.Helper()
	req, err := http.NewRequest("GET", base, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.URL.Opaque = target
	if strings.Contains(target, "?") && !strings.HasPrefix(target, "//") {
		p, q, _ := strings.Cut(target, "?")
		req.URL.Opaque, req.URL.RawQuery = p, q
	}
	if len(accept) > 0 {
		if accept[0] != "" {
			req.Header.Set("Accept", accept[0])
		}
	} else {
		req.Header.Set("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return uiAnswer{resp.StatusCode, resp.Header, string(b)}
}

// text is a page's visible text, tags removed and entities decoded, its
// white space collapsed.
func text(html string) string {
	html = regexp.MustCompile(`(?s)<head>.*?</head>`).ReplaceAllString(html, "")
	s := regexp.MustCompile(`<[^>]*>`).ReplaceAllString(html, " ")
	s = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&#34;", `"`, "&#39;", "'", "&quot;", `"`, "&amp;", "&").Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

// TestUIHome: / is an HTML table of the collections for a browser, with
// their kinds and capture counts (those of the index), the text list for
// a client that does not ask for HTML (curl's */*, none, text/plain).
func TestUIHome(t *testing.T) {
	ts, caps := uiServer(t)
	a := uiGet(t, ts.URL, "/")
	if a.code != 200 || !strings.HasPrefix(a.hdr.Get("Content-Type"), "text/html") || a.hdr.Get("Content-Security-Policy") == "" || a.hdr.Get("Vary") != "Accept" {
		t.Fatalf("/: %d %v", a.code, a.hdr)
	}
	txt := text(a.body)
	want := fmt.Sprintf("garden Garden Club wacz")
	if !strings.Contains(txt, want) || !strings.Contains(txt, fmt.Sprintf(" %d ", len(caps))) {
		t.Errorf("/: want %q and %d captures in %q", want, len(caps), txt)
	}
	if sampleArchiveDir() != "" {
		// the sample CDX folder: as many captures as its index lines
		n := 0
		for _, f := range []string{"dupes.cdx", "iana.cdx", "example.cdx", "post-test.cdx", "x-forwarded.cdx"} {
			b, err := os.ReadFile(filepath.Join(sampleArchiveDir(), "cdx", f))
			if err != nil {
				continue
			}
			for _, l := range strings.Split(string(b), "\n") {
				if l != "" && !strings.HasPrefix(l, " ") {
					n++
				}
			}
		}
		ents, _ := os.ReadDir(filepath.Join(sampleArchiveDir(), "cdx"))
		total := 0
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".cdx") || strings.HasSuffix(e.Name(), ".cdxj") {
				b, _ := os.ReadFile(filepath.Join(sampleArchiveDir(), "cdx", e.Name()))
				for _, l := range strings.Split(string(b), "\n") {
					if l != "" && !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, "!") {
						total++
					}
				}
			}
		}
		if !strings.Contains(txt, fmt.Sprintf("sample index-folder")) || !strings.Contains(txt, fmt.Sprintf(" %s ", fmtCount(int64(total)))) {
			t.Errorf("/: want sample with %d captures in %q", total, txt)
		}
		// the ZipNum cluster: the lines of all its blocks (each a gzip
		// member, its last line without a newline)
		zn := zipNumLines(t, filepath.Join(sampleArchiveDir(), "zipcdx", "zipnum-sample.cdx.gz"))
		if !strings.Contains(txt, fmt.Sprintf("zn zipnum %s %d ", filepath.Join(sampleArchiveDir(), "zipcdx", "zipnum-sample.idx"), zn)) {
			t.Errorf("/: want zn with %d captures in %q", zn, txt)
		}
		t.Logf("sample: %d captures; zn: %d; garden: %d", total, zn, len(caps))
	}
	for _, accept := range []string{"", "*/*", "text/plain", "text/html;q=0"} {
		a := uiGet(t, ts.URL, "/", accept)
		if a.code != 200 || a.hdr.Get("Content-Type") != "text/plain; charset=utf-8" || a.hdr.Get("Vary") != "Accept" || !strings.Contains(a.body, "garden\twacz\t") {
			t.Errorf("/ Accept %q: %d %s %q", accept, a.code, a.hdr.Get("Content-Type"), a.body)
		}
	}
	css := uiGet(t, ts.URL, "/static/ui.css")
	if css.code != 200 || css.hdr.Get("Content-Type") != "text/css; charset=utf-8" || !strings.Contains(css.body, ".grid") {
		t.Errorf("/static/ui.css: %d %v", css.code, css.hdr)
	}
}

// zipNumLines counts the lines of a ZipNum part, member by member.
func zipNumLines(t *testing.T, p string) int {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	br := bytes.NewReader(b)
	zr, err := gzip.NewReader(br)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		zr.Multistream(false)
		m, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		n += len(strings.Split(strings.TrimSuffix(string(m), "\n"), "\n"))
		if err := zr.Reset(br); err == io.EOF {
			return n
		} else if err != nil {
			t.Fatal(err)
		}
	}
}

// TestUICalendar: /COLL/*/URL counts a URL's captures by year, month and
// day as the index has them; /COLL/YYYY*/URL shows that year,
// /COLL/YYYYMMDD*/URL lists the day's captures with their links.
func TestUICalendar(t *testing.T) {
	ts, caps := uiServer(t)
	years, days := map[string]int{}, map[string]int{}
	var home []gardenCapture
	for _, c := range caps {
		if c.url == "http://garden.example/" {
			years[c.ts[:4]]++
			days[c.ts[:8]]++
			home = append(home, c)
		}
	}
	a := uiGet(t, ts.URL, "/garden/*/http://garden.example/")
	if a.code != 200 {
		t.Fatalf("calendar: %d %s", a.code, a.body)
	}
	txt := text(a.body)
	if want := fmt.Sprintf("%d captures between %s and %s", len(home), fmtTS(home[0].ts), fmtTS(home[len(home)-1].ts)); !strings.Contains(txt, want) {
		t.Errorf("want %q in %q", want, txt)
	}
	for _, y := range []string{"2023", "2024", "2025"} {
		if want := fmt.Sprintf("%s %d", y, years[y]); !strings.Contains(txt, want) {
			t.Errorf("year %s: want %q in %q", y, want, txt)
		}
	}
	// the latest year is shown: each of its days with captures is a cell
	check := func(body, year string) {
		t.Helper()
		cells := regexp.MustCompile(`<a class="d (h\d)[^"]*" href="/garden/(\d{8})\*/http://garden.example/#day" title="[^"]*: (\d+) captures?">(\d+)</a>`).FindAllStringSubmatch(body, -1)
		n := 0
		for k, v := range days {
			if strings.HasPrefix(k, year) && v > 0 {
				n++
			}
		}
		if len(cells) != n {
			t.Errorf("%s: %d day cells, want %d", year, len(cells), n)
		}
		for _, c := range cells {
			if fmt.Sprint(days[c[2]]) != c[3] || c[1] != heat(days[c[2]]) || strings.TrimLeft(c[2][6:], "0") != c[4] {
				t.Errorf("%s: cell %v, want %d captures", year, c[1:], days[c[2]])
			}
		}
	}
	check(a.body, "2025")
	b := uiGet(t, ts.URL, "/garden/2024*/http://garden.example/")
	check(b.body, "2024")
	if want := fmt.Sprintf("2024 %d captures", years["2024"]); !strings.Contains(text(b.body), want) {
		t.Errorf("want %q in %q", want, text(b.body))
	}
	// the busiest day: its captures listed in time order, each with its
	// replay, id_ and record links
	busiest := ""
	for d, n := range days {
		if busiest == "" || n > days[busiest] || n == days[busiest] && d < busiest {
			busiest = d
		}
	}
	d := uiGet(t, ts.URL, "/garden/"+busiest+"*/http://garden.example/")
	rows := regexp.MustCompile(`<td class="nowrap mono"><a href="/garden/(\d{14})/http://garden.example/">(\d\d:\d\d:\d\d)</a>`).FindAllStringSubmatch(d.body, -1)
	var want []string
	for _, c := range home {
		if c.ts[:8] == busiest {
			want = append(want, c.ts)
		}
	}
	if len(rows) != len(want) || len(want) < 3 {
		t.Fatalf("day %s: %d rows, want %d", busiest, len(rows), len(want))
	}
	for i, r := range rows {
		if r[1] != want[i] || r[2] != fmtTS(want[i])[11:] {
			t.Errorf("row %d: %v, want %s", i, r[1:], want[i])
		}
		if !strings.Contains(d.body, `href="/garden/`+want[i]+`id_/http://garden.example/"`) {
			t.Errorf("no id_ link for %s", want[i])
		}
	}
	if !strings.Contains(d.body, `class="d h`) || !strings.Contains(d.body, " sel\"") {
		t.Errorf("day %s not marked in its month", busiest)
	}
	t.Logf("home page: %d captures, %v by year; busiest day %s: %d", len(home), years, busiest, len(rows))

	// no captures: 404 with the page; "*" forms go to the search
	if a := uiGet(t, ts.URL, "/garden/*/http://nothing.example/"); a.code != 404 || !strings.Contains(a.body, "No captures of this URL") {
		t.Errorf("no captures: %d", a.code)
	}
	if a := uiGet(t, ts.URL, "/garden/*/http://garden.example/news/*"); a.code != 302 || a.hdr.Get("Location") != "/garden/?matchType=prefix&url=http%3A%2F%2Fgarden.example%2Fnews%2F" {
		t.Errorf("prefix form: %d %q", a.code, a.hdr.Get("Location"))
	}
	if a := uiGet(t, ts.URL, "/garden/*/*.garden.example"); a.code != 302 || a.hdr.Get("Location") != "/garden/?matchType=domain&url=garden.example" {
		t.Errorf("domain form: %d %q", a.code, a.hdr.Get("Location"))
	}
	if sampleArchiveDir() != "" {
		// pywb's sample: www.iana.org/ captured on 26 and 27 January 2014
		a := uiGet(t, ts.URL, "/sample/*/http://www.iana.org/")
		cells := regexp.MustCompile(`href="/sample/(\d{8})\*/http://www.iana.org/#day" title="[^"]*: (\d+) captures?"`).FindAllStringSubmatch(a.body, -1)
		got := fmt.Sprint(cells)
		if a.code != 200 || got != "[[href=\"/sample/20140126*/http://www.iana.org/#day\" title=\"Sun 26 Jan 2014: 1 capture\" 20140126 1] [href=\"/sample/20140127*/http://www.iana.org/#day\" title=\"Mon 27 Jan 2014: 2 captures\" 20140127 2]]" {
			t.Errorf("sample calendar: %d %s", a.code, got)
		}
		// the same from the ZipNum cluster
		a = uiGet(t, ts.URL, "/zn/*/http://www.iana.org/")
		got = fmt.Sprint(regexp.MustCompile(`href="/zn/(\d{8})\*/http://www.iana.org/#day" title="[^"]*: (\d+) captures?"`).FindAllStringSubmatch(a.body, -1))
		if a.code != 200 || !strings.Contains(got, "20140126 1]") || !strings.Contains(got, "20140127 2]") {
			t.Errorf("zn calendar: %d %s", a.code, got)
		}
	}
}

// TestUICollection: the collection page lists the URLs a search finds,
// with their capture counts; exact goes to the calendar; bad parameters
// are 400 with one line.
func TestUICollection(t *testing.T) {
	ts, caps := uiServer(t)
	count := map[string]int{} // by URL, unescaped
	for _, c := range caps {
		u, _ := url.PathUnescape(c.url)
		count[u]++
	}
	a := uiGet(t, ts.URL, "/garden/")
	if a.code != 200 {
		t.Fatalf("/garden/: %d", a.code)
	}
	txt := text(a.body)
	if want := fmt.Sprintf("%d captures", len(caps)); !strings.Contains(txt, want) || !strings.Contains(txt, "Garden Club") || !strings.Contains(txt, "Three years of the garden club's site.") {
		t.Errorf("/garden/: want %q in %q", want, txt)
	}
	rows := regexp.MustCompile(`<tr>\s*<td class="url"><a href="/garden/\*/([^"]+)"[^>]*>[^<]*</a>\s*</td>\s*<td class="num">(\d+)</td>`).FindAllStringSubmatch(a.body, -1)
	if len(rows) != len(count) {
		t.Errorf("/garden/: %d URL rows, want %d", len(rows), len(count))
	}
	for _, r := range rows {
		u, err := url.PathUnescape(html.UnescapeString(r[1]))
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(count[u]) != r[2] {
			t.Errorf("row %s: %s captures, want %d", u, r[2], count[u])
		}
	}
	// prefix, host, domain
	for _, c := range []struct {
		q    string
		urls int
	}{
		{"url=http://garden.example/news/&matchType=prefix", 2},
		{"url=garden.example/news/*", 2},
		{"url=garden.example&matchType=host", len(count)},
		{"url=example&matchType=domain", len(count)},
		{"url=nothing.example&matchType=host", 0},
	} {
		a := uiGet(t, ts.URL, "/garden/?"+c.q)
		n := strings.Count(a.body, `<td class="url">`)
		if a.code != 200 || n != c.urls {
			t.Errorf("%s: %d, %d URLs, want %d", c.q, a.code, n, c.urls)
		}
	}
	if a := uiGet(t, ts.URL, "/garden/?url=garden.example/"); a.code != 302 || a.hdr.Get("Location") != "/garden/*/http://garden.example/" {
		t.Errorf("exact: %d %q", a.code, a.hdr.Get("Location"))
	}
	for q, want := range map[string]string{
		"url=x&matchType=regex": "matchType=regex: one of exact, prefix, host, domain\n",
		"page=0":                "page=0: a number from 1 to 10000\n",
		"page=x":                "page=x: a number from 1 to 10000\n",
		"url=" + strings.Repeat("a", MaxURL+1) + "&matchType=prefix": fmt.Sprintf("url of %d bytes: at most %d\n", MaxURL+1, MaxURL),
	} {
		a := uiGet(t, ts.URL, "/garden/?"+q, "*/*")
		if a.code != 400 || a.body != want {
			t.Errorf("%.40s: %d %q, want %q", q, a.code, a.body, want)
		}
	}
	if a := uiGet(t, ts.URL, "/garden"); a.code != 302 || a.hdr.Get("Location") != "/garden/" {
		t.Errorf("/garden: %d %q", a.code, a.hdr.Get("Location"))
	}
	if a := uiGet(t, ts.URL, "/nosuch/", "*/*"); a.code != 404 || a.body != "No such collection: nosuch\n" {
		t.Errorf("/nosuch/: %d %q", a.code, a.body)
	}
	// paging: past the last key nothing is left, and the first page is
	// linked; from a key, the URLs after it
	if a := uiGet(t, ts.URL, "/garden/?after=example,garden)/zzz&page=2"); a.code != 200 || strings.Contains(a.body, `<td class="url">`) || !strings.Contains(a.body, `<a href="/garden/">« first page</a>`) {
		t.Errorf("page 2: %d %q", a.code, text(a.body))
	}
	if a := uiGet(t, ts.URL, "/garden/?url=garden.example&matchType=host&after=example,garden)/news/2024.html"); strings.Count(a.body, `<td class="url">`) != 4 || !strings.Contains(a.body, `<a href="/garden/?matchType=host&amp;url=garden.example">« first page</a>`) {
		t.Errorf("after news/2024.html: %q", text(a.body))
	}
	if sampleArchiveDir() != "" {
		// all: www.iana.org/ 3 times in the CDX folder, 3 in the ZipNum
		a := uiGet(t, ts.URL, "/all/?url=iana.org&matchType=domain")
		want := `<a href="/all/*/http://www.iana.org/" title="all captures of this URL">http://www.iana.org/</a> <span class="pill">sample</span> <span class="pill">zn</span></td>
<td class="num">6</td>`
		if !strings.Contains(a.body, want) {
			t.Errorf("/all/ iana.org: no %q", want)
		}
	}
	// all: every collection's URLs, each with its collection
	if a := uiGet(t, ts.URL, "/all/?url=garden.example&matchType=host"); a.code != 200 || strings.Count(a.body, `<span class="pill">garden</span>`) != len(count) {
		t.Errorf("/all/: %d, %d garden rows", a.code, strings.Count(a.body, `<span class="pill">garden</span>`))
	}
}

// TestUIPages: /COLL/pages lists pages.jsonl with the titles, searched
// in titles, URLs and text; a title with markup is shown as text.
func TestUIPages(t *testing.T) {
	ts, _ := uiServer(t)
	r, err := wacz.OpenFile(gardenPath(t, ts))
	if err != nil {
		t.Fatal(err)
	}
	_, pages, err := r.Pages()
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	a := uiGet(t, ts.URL, "/garden/pages")
	if a.code != 200 {
		t.Fatalf("pages: %d %s", a.code, a.body)
	}
	txt := text(a.body)
	if want := fmt.Sprintf("%d pages in pages/pages.jsonl, with their text", len(pages)); !strings.Contains(txt, want) {
		t.Errorf("want %q in %q", want, txt)
	}
	if n := strings.Count(a.body, `<td class="title-cell">`); n != min(len(pages), uiPageSize) {
		t.Errorf("%d rows, want %d", n, len(pages))
	}
	titles := 0
	for _, p := range pages {
		if p.Title != "" && strings.Contains(txt, p.Title) {
			titles++
		}
	}
	if titles < 5 || !strings.Contains(txt, hostileTitle) {
		t.Errorf("%d titles shown of %d pages; hostile title shown: %v", titles, len(pages), strings.Contains(txt, hostileTitle))
	}
	if strings.Contains(a.body, "<script>") || !strings.Contains(a.body, "&lt;script&gt;alert(&#34;title&#34;)&lt;/script&gt;") {
		t.Errorf("the hostile title is not escaped")
	}
	for q, want := range map[string]int{"news": 3, "NEWS 2025": 1, "résumé": 1, "treasure": 1, "nothing at all": 0} {
		a := uiGet(t, ts.URL, "/garden/pages?q="+url.QueryEscape(q))
		n := strings.Count(a.body, `<td class="title-cell">`)
		if a.code != 200 || n != want {
			t.Errorf("q=%s: %d, %d pages, want %d", q, a.code, n, want)
		}
		if q == "treasure" && !strings.Contains(a.body, "<mark>treasure</mark>") {
			t.Errorf("q=treasure: no snippet")
		}
	}
	if a := uiGet(t, ts.URL, "/sample/pages", "*/*"); sampleArchiveDir() != "" && (a.code != 404 || a.body != "sample: not a WACZ, no pages\n") {
		t.Errorf("sample pages: %d %q", a.code, a.body)
	}
	if a := uiGet(t, ts.URL, "/garden/pages?q="+strings.Repeat("x", 1001), "*/*"); a.code != 400 || a.body != "q of 1001 bytes: at most 1000\n" {
		t.Errorf("long q: %d %q", a.code, a.body)
	}
}

// gardenPath is the file of the server's garden collection.
func gardenPath(t testing.TB, ts *httptest.Server) string {
	t.Helper()
	a := uiGet(t, ts.URL, "/", "")
	for _, l := range strings.Split(a.body, "\n") {
		if f := strings.Split(l, "\t"); len(f) >= 3 && f[0] == "garden" {
			return f[2]
		}
	}
	t.Fatal("no garden collection")
	return ""
}

// TestUIRecord: a capture's page shows its index line, its WARC and
// HTTP headers, its digests checked; raw=1 is the record as stored.
func TestUIRecord(t *testing.T) {
	ts, caps := uiServer(t)
	var c gardenCapture
	idx := 0
	for i, x := range caps {
		if x.url == "http://garden.example/news/2025.html" {
			c, idx = x, i
			break
		}
	}
	a := uiGet(t, ts.URL, "/garden/record?"+url.Values{"url": {c.url}, "ts": {c.ts}}.Encode())
	if a.code != 200 {
		t.Fatalf("record: %d %s", a.code, a.body)
	}
	txt := text(a.body)
	for _, want := range []string{
		fmt.Sprintf("WARC-Record-ID <urn:uuid:00000000-0000-4000-8000-%012d>", idx),
		"WARC-Target-URI " + c.url,
		"WARC-Block-Digest " + sha1b32(append([]byte(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\nServer: garden\r\n\r\n", len(c.body))), c.body...)) + " ✓ matches the block",
		"WARC-Payload-Digest " + sha1b32(c.body) + " ✓ matches the payload",
		"HTTP/1.1 200 OK",
		"Server garden",
		"filename garden.warc.gz",
		"News 2025",
	} {
		if !strings.Contains(txt, want) {
			t.Errorf("want %q in %q", want, txt)
		}
	}
	// the download: one gzip member, the record
	m := regexp.MustCompile(`href="(/garden/record\?[^"]*raw=1[^"]*)"`).FindStringSubmatch(a.body)
	if m == nil {
		t.Fatal("no download link")
	}
	d := uiGet(t, ts.URL, strings.ReplaceAll(m[1], "&amp;", "&"))
	if d.code != 200 || d.hdr.Get("Content-Type") != "application/gzip" || !strings.HasPrefix(d.hdr.Get("Content-Disposition"), `attachment; filename="garden-`+c.ts+`-`) {
		t.Fatalf("download: %d %v", d.code, d.hdr)
	}
	rd, err := warc.NewReader(strings.NewReader(d.body))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := rd.Next()
	if err != nil || rec.TargetURI() != c.url {
		t.Fatalf("download: %v %v", err, rec)
	}
	if _, err := rd.Next(); err != io.EOF {
		t.Errorf("download: more than one record (%v)", err)
	}
	// the revisit: its original linked
	var rv gardenCapture
	for _, x := range caps {
		if x.revisit {
			rv = x
		}
	}
	a = uiGet(t, ts.URL, "/garden/record?"+url.Values{"url": {rv.url}, "ts": {rv.ts}}.Encode())
	if !strings.Contains(text(a.body), "A revisit: its payload is that of the capture of http://garden.example/ at 2025-11-01 00:00:00") {
		t.Errorf("revisit: %d %q", a.code, text(a.body))
	}
	// the hostile URL: escaped
	a = uiGet(t, ts.URL, "/garden/record?"+url.Values{"url": {hostileURL}, "ts": {"20240601000000"}}.Encode())
	if a.code != 200 || strings.Contains(a.body, "<script>") || !strings.Contains(text(a.body), hostileURL) {
		t.Errorf("hostile record: %d %v", a.code, strings.Contains(a.body, "<script>"))
	}
	for q, want := range map[string]string{
		"ts=2024":                            "url= is required\n",
		"url=x&ts=20x4":                      "ts=: a time-stamp of 4 to 14 digits\n",
		"url=http://garden.example/&ts=2001": "No capture of http://garden.example/ at 2001\n",
		"url=" + url.QueryEscape(c.url) + "&ts=" + c.ts + "&file=../../../etc/passwd": "No capture of " + c.url + " at " + c.ts + "\n",
		"url=" + url.QueryEscape(c.url) + "&ts=" + c.ts + "&offset=1":                 "No capture of " + c.url + " at " + c.ts + "\n",
	} {
		a := uiGet(t, ts.URL, "/garden/record?"+q, "*/*")
		if a.code/100 != 4 || a.body != want {
			t.Errorf("%s: %d %q, want %q", q, a.code, a.body, want)
		}
	}
}

// TestUIHostile: hostile URLs in the calendar are text; a URL of a
// megabyte is 400; HEAD has no body; other methods are not the pages'.
func TestUIHostile(t *testing.T) {
	ts, _ := uiServer(t)
	a := uiGet(t, ts.URL, "/garden/*/"+hostileURL)
	if a.code != 200 || strings.Contains(a.body, "<script>") || !strings.Contains(text(a.body), "1 capture between") {
		t.Errorf("hostile calendar: %d %v %q", a.code, strings.Contains(a.body, "<script>"), text(a.body))
	}
	// the links the pages make to it (escaped by html/template) find it
	col := uiGet(t, ts.URL, "/garden/?url=garden.example/x&matchType=prefix")
	m := regexp.MustCompile(`<td class="url"><a href="([^"]+)"`).FindStringSubmatch(col.body)
	if m == nil {
		t.Fatalf("no link to the hostile URL: %q", text(col.body))
	}
	if a := uiGet(t, ts.URL, html.UnescapeString(m[1])); a.code != 200 || !strings.Contains(text(a.body), "1 capture between") {
		t.Errorf("%s: %d %q", m[1], a.code, text(a.body))
	}
	a = uiGet(t, ts.URL, "/garden/*/"+`http://x/"><script>alert(2)</script>`)
	if a.code != 404 || strings.Contains(a.body, "<script>") || !strings.Contains(a.body, "&lt;script&gt;") {
		t.Errorf("hostile absent URL: %d %q", a.code, a.body)
	}
	big := "/garden/*/http://x/" + strings.Repeat("a", 1<<20)
	if a := uiGet(t, ts.URL, big, "*/*"); a.code != 400 || a.body != fmt.Sprintf("URL of %d bytes: at most %d\n", len("http://x/")+1<<20, MaxURL) {
		t.Errorf("1 MB URL: %d %q", a.code, a.body)
	}
	req, _ := http.NewRequest("HEAD", ts.URL+"/garden/", nil)
	req.Header.Set("Accept", "text/html")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || len(b) != 0 || resp.ContentLength <= 0 {
		t.Errorf("HEAD: %d, %d bytes, length %d", resp.StatusCode, len(b), resp.ContentLength)
	}
	resp, err = http.Post(ts.URL+"/garden/", "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 {
		t.Errorf("POST /garden/: %d", resp.StatusCode)
	}
	// the id_ and CDX routes are still theirs
	if a := uiGet(t, ts.URL, "/garden/cdx?url=garden.example/&output=json&limit=1", ""); a.code != 200 || !strings.Contains(a.body, `"urlkey": "example,garden)/"`) {
		t.Errorf("cdx: %d %q", a.code, a.body)
	}
}
