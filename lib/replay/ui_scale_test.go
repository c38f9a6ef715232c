package replay

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestUIScale: on a CDXJ of 200,000 captures (20,000 of one URL over ten
// years, 180,000 other URLs) the pages stay bounded: 100 URLs a page and
// a link to the next, the calendar counts every capture of the URL, the
// home page's count reaches every line.
func TestUIScale(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	p := filepath.Join(t.TempDir(), "big.cdxj")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	line := func(key, u, ts string) {
		fmt.Fprintf(w, "%s %s {\"url\": \"%s\", \"mime\": \"text/html\", \"status\": \"200\", \"digest\": \"AAAA\", \"length\": \"100\", \"offset\": \"0\", \"filename\": \"big.warc.gz\"}\n", key, ts, u)
	}
	// "com,example)/" sorts before "com,example)/p..."
	start := time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 20000 {
		line("com,example)/", "http://example.com/", start.Add(time.Duration(i)*4*time.Hour+time.Duration(i%3600)*time.Second).Format("20060102150405"))
	}
	for i := range 180000 {
		u := fmt.Sprintf("http://example.com/p%06d", i)
		line(fmt.Sprintf("com,example)/p%06d", i), u, "20200101000000")
	}
	w.Flush()
	f.Close()
	c, err := Open(t.Context(), "big", p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewServer(c)
	if err != nil {
		t.Fatal(err)
	}
	ts := newUITestServer(t, s)
	timed := func(target string) (uiAnswer, time.Duration) {
		t0 := time.Now()
		a := uiGet(t, ts, target)
		return a, time.Since(t0)
	}
	// the count, made in the background: at most 10 s
	var home uiAnswer
	var dh time.Duration
	for range 20 {
		home, dh = timed("/")
		if !strings.Contains(home.body, "≥") {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if !strings.Contains(text(home.body), "big cdx "+p+" 200,000") {
		t.Errorf("/: %q", text(home.body))
	}
	a, dc := timed("/big/")
	if n := strings.Count(a.body, `<td class="url">`); n != uiPageSize || !strings.Contains(a.body, `href="/big/?after=com%2Cexample%29%2Fp000098&amp;page=2">next`) {
		t.Errorf("/big/: %d rows", n)
	}
	// the pages follow one another: page 1000 is reached by 999 next
	// links, each read past the last key of the one before
	next := regexp.MustCompile(`href="(/big/\?after=[^"]+)">next`)
	var a2 uiAnswer
	var dp time.Duration
	for i := 2; i <= 1000; i++ {
		m := next.FindStringSubmatch(a.body)
		if m == nil {
			t.Fatalf("page %d: no next link", i-1)
		}
		a, dp = timed(strings.ReplaceAll(m[1], "&amp;", "&"))
		a2 = a
	}
	if n := strings.Count(a2.body, `<td class="url">`); n != uiPageSize || !strings.Contains(a2.body, "p099899") || !strings.Contains(a2.body, "p099998") || !strings.Contains(text(a2.body), "URLs 99,901–100,000 of more") {
		t.Errorf("page 1000: %d rows: %.400q", n, text(a2.body))
	}
	cal, dk := timed("/big/*/http://example.com/")
	txt := text(cal.body)
	if !strings.Contains(txt, "20,000 captures between 2015-01-01 00:00:00") {
		t.Errorf("calendar: %.300q", txt)
	}
	years := regexp.MustCompile(`(20\d\d) ([\d,]+)`).FindAllStringSubmatch(txt[:min(len(txt), 600)], -1)
	t.Logf("200,000 lines: / %v, /big/ %v, page 1000 %v (each page), calendar of 20,000 captures %v (%d years)", dh.Round(time.Millisecond), dc.Round(time.Millisecond), dp.Round(time.Millisecond), dk.Round(time.Millisecond), len(years))
}
