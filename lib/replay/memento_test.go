package replay

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/peertest"
)

// mementoGet asks the sample server for path with an Accept-Datetime
// ("" for none), without following redirects.
func mementoGet(t *testing.T, base, path, ad string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+path, nil)
	if ad != "" {
		req.Header.Set("Accept-Datetime", ad)
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestPywbMemento holds pywb's tests/test_memento.py expectations, for
// id_ replay with redirect_to_exact (the TimeGate redirects; the
// memento answers): the TimeMaps, the TimeGate latest and at an
// Accept-Datetime, a 302 memento, not found and a bad Accept-Datetime.
func TestPywbMemento(t *testing.T) {
	ts := sampleServer(t)
	base := ts.URL
	links := func(resp *http.Response) []string {
		var out []string
		for _, l := range strings.Split(resp.Header.Get("Link"), ", <") {
			out = append(out, strings.TrimPrefix(l, "<"))
		}
		return out
	}
	has := func(t *testing.T, resp *http.Response, want string) {
		t.Helper()
		for _, l := range links(resp) {
			if "<"+l == want {
				return
			}
		}
		t.Errorf("no link %s in %q", want, resp.Header.Get("Link"))
	}
	assertLinks := func(t *testing.T, resp *http.Response, u, ts, dt, coll string) {
		t.Helper()
		has(t, resp, fmt.Sprintf(`<%s>; rel="original"`, u))
		has(t, resp, fmt.Sprintf(`<%s/pywb/%s>; rel="timegate"`, base, u))
		has(t, resp, fmt.Sprintf(`<%s/pywb/timemap/link/%s>; rel="timemap"; type="application/link-format"`, base, u))
		m := fmt.Sprintf(`<%s/pywb/%smp_/%s>; rel="memento"; datetime="%s"`, base, ts, u, dt)
		if coll != "" {
			m += `; collection="` + coll + `"`
		}
		has(t, resp, m)
	}
	t.Run("test_memento_at_timegate_latest", func(t *testing.T) {
		resp, _ := mementoGet(t, base, "/pywb/id_/http://www.iana.org/_css/2013.1/screen.css", "")
		if resp.StatusCode != 307 || resp.Header.Get("Vary") != "accept-datetime" || resp.Header.Get("Memento-Datetime") != "" {
			t.Fatalf("%d %v", resp.StatusCode, resp.Header)
		}
		if loc := resp.Header.Get("Location"); loc != base+"/pywb/20140127171239id_/http://www.iana.org/_css/2013.1/screen.css" {
			t.Errorf("Location %s", loc)
		}
		assertLinks(t, resp, "http://www.iana.org/_css/2013.1/screen.css", "20140127171239", "Mon, 27 Jan 2014 17:12:39 GMT", "")
	})
	t.Run("test_memento_at_timegate", func(t *testing.T) {
		resp, _ := mementoGet(t, base, "/pywb/id_/http://www.iana.org/_css/2013.1/screen.css", "Sun, 26 Jan 2014 20:08:00 GMT")
		if resp.StatusCode != 307 || resp.Header.Get("Vary") != "accept-datetime" {
			t.Fatalf("%d %v", resp.StatusCode, resp.Header)
		}
		if loc := resp.Header.Get("Location"); loc != base+"/pywb/20140126200804id_/http://www.iana.org/_css/2013.1/screen.css" {
			t.Errorf("Location %s", loc)
		}
		assertLinks(t, resp, "http://www.iana.org/_css/2013.1/screen.css", "20140126200804", "Sun, 26 Jan 2014 20:08:04 GMT", "")
		// the memento it sends to
		resp, _ = mementoGet(t, base, "/pywb/20140126200804id_/http://www.iana.org/_css/2013.1/screen.css", "")
		if resp.StatusCode != 200 || resp.Header.Get("Memento-Datetime") != "Sun, 26 Jan 2014 20:08:04 GMT" || resp.Header.Get("Vary") != "" {
			t.Fatalf("%d %v", resp.StatusCode, resp.Header)
		}
		assertLinks(t, resp, "http://www.iana.org/_css/2013.1/screen.css", "20140126200804", "Sun, 26 Jan 2014 20:08:04 GMT", "pywb")
	})
	t.Run("test_302_memento", func(t *testing.T) {
		resp, _ := mementoGet(t, base, "/pywb/20140128051539id_/http://www.iana.org/domains/example", "")
		if resp.StatusCode != 302 || resp.Header.Get("Vary") != "" || resp.Header.Get("Memento-Datetime") != "Tue, 28 Jan 2014 05:15:39 GMT" {
			t.Fatalf("%d %v", resp.StatusCode, resp.Header)
		}
		assertLinks(t, resp, "http://www.iana.org/domains/example", "20140128051539", "Tue, 28 Jan 2014 05:15:39 GMT", "pywb")
	})
	t.Run("test_timemap", func(t *testing.T) {
		resp, body := mementoGet(t, base, "/pywb/timemap/link/http://example.com?example=1", "")
		want := strings.ReplaceAll(`<http://localhost:80/pywb/timemap/link/http://example.com?example=1>; rel="self"; type="application/link-format"; from="Fri, 03 Jan 2014 03:03:21 GMT",
<http://localhost:80/pywb/http://example.com?example=1>; rel="timegate",
<http://example.com?example=1>; rel="original",
<http://localhost:80/pywb/20140103030321mp_/http://example.com?example=1>; rel="memento"; datetime="Fri, 03 Jan 2014 03:03:21 GMT"; collection="pywb",
<http://localhost:80/pywb/20140103030341mp_/http://example.com?example=1>; rel="memento"; datetime="Fri, 03 Jan 2014 03:03:41 GMT"; collection="pywb"
`, "http://localhost:80", base)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/link-format" || body != want {
			t.Errorf("%d %s\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	})
	t.Run("test_timemap_cdxj", func(t *testing.T) {
		resp, body := mementoGet(t, base, "/pywb/timemap/cdxj/http://example.com?example=1", "")
		want := `com,example)/?example=1 20140103030321 {"url": "http://example.com?example=1", "mime": "text/html", "status": "200", "digest": "B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A", "redirect": "-", "robotflags": "-", "length": "1043", "offset": "333", "filename": "example.warc.gz", "source": "pywb:example.cdx", "source-coll": "pywb"}
com,example)/?example=1 20140103030341 {"url": "http://example.com?example=1", "mime": "warc/revisit", "status": "-", "digest": "B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A", "redirect": "-", "robotflags": "-", "length": "553", "offset": "1864", "filename": "example.warc.gz", "source": "pywb:example.cdx", "source-coll": "pywb"}
`
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/x-cdxj" || body != want {
			t.Errorf("%d %s\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	})
	t.Run("test_timemap_2", func(t *testing.T) {
		resp, body := mementoGet(t, base, "/pywb/timemap/link/http://example.com", "")
		if n := len(strings.Split(body, "\n")); resp.StatusCode != 200 || n != 7 {
			t.Errorf("%d, %d lines: %q", resp.StatusCode, n, body)
		}
	})
	t.Run("test_timemap_error_not_found", func(t *testing.T) {
		resp, body := mementoGet(t, base, "/pywb/timemap/link/http://example.com/x-not-found", "")
		if resp.StatusCode != 404 || body != "" {
			t.Errorf("%d %q", resp.StatusCode, body)
		}
	})
	t.Run("test_timemap_error_invalid_format", func(t *testing.T) {
		resp, body := mementoGet(t, base, "/pywb/timemap/foo/http://example.com", "")
		if resp.StatusCode != 400 || body != `{"message": "output=foo not supported"}` {
			t.Errorf("%d %q", resp.StatusCode, body)
		}
	})
	t.Run("test_timegate_error_not_found", func(t *testing.T) {
		resp, _ := mementoGet(t, base, "/pywb/id_/http://example.com/x-not-found", "")
		if resp.StatusCode != 404 || resp.Header.Get("Vary") != "" || resp.Header.Get("Memento-Datetime") != "" || resp.Header.Get("Link") != "" {
			t.Errorf("%d %v", resp.StatusCode, resp.Header)
		}
	})
	t.Run("test_error_bad_accept_datetime", func(t *testing.T) {
		for _, p := range []string{"/pywb/id_/http://www.iana.org/_css/2013.1/screen.css", "/pywb/timemap/link/http://www.iana.org/_css/2013.1/screen.css"} {
			if resp, _ := mementoGet(t, base, p, "Sun"); resp.StatusCode != 400 {
				t.Errorf("%s: %d", p, resp.StatusCode)
			}
		}
	})
}

// acceptDatetimeCases are Accept-Datetime values in the forms pywb takes
// (RFC 1123, RFC 850, asctime, no day name, two-digit years, zones,
// dotted times) and in forms it refuses.
func acceptDatetimeCases() []string {
	cs := []string{"", " ", "Sun", "garbage", "Sun, 26 Jan 2014", "Sun, 26 Jan 2014 20:08:00 GMT", "26 Jan 2014 20:08:00 GMT",
		"Sunday, 26-Jan-14 20:08:00 GMT", "Sun Jan 26 20:08:00 2014", "Sun, 26 Jan 2014 20:08:00 +0500", "Sun, 26 Jan 2014 20:08 GMT",
		"Sun, 26 Jan 2014 20.08.00 GMT", "Sun, 26 Jan 2014 20.08 GMT", "Sun, 26 Jan 2014 20.08.00.1 GMT", "Sun,26 Jan 2014 20:08:00 GMT",
		"Sun, 26 Jan 2014 20:08:00+0500", "Sun, 26 Jan 2014 20:08:00-0500", "Jan 26 2014 20:08:00", "26 january 2014 20:08:00",
		"Sun, 26 JANUARY 2014 20:08:00 GMT", "Sun, 26, Jan, 2014, 20:08:00,", "Sun, 26 Jan 69 20:08:00 GMT", "Sun, 26 Jan 68 20:08:00 GMT",
		"Sun, 26 Jan 0 20:08:00 GMT", "Sun, 26 Jan 100 20:08:00 GMT", "Sun, 26 Jan 999 20:08:00 GMT", "Sun, 26 Jan 10000 20:08:00 GMT",
		"Sun, 29 Feb 2014 20:08:00 GMT", "Sun, 29 Feb 2016 20:08:00 GMT", "Sun, 31 Apr 2014 20:08:00 GMT", "Sun, 0 Jan 2014 20:08:00 GMT",
		"Sun, 26 Jan 2014 24:00:00 GMT", "Sun, 26 Jan 2014 23:60:00 GMT", "Sun, 26 Jan 2014 23:59:60 GMT", "Sun, -1 Jan 2014 20:08:00 GMT",
		"Sun, +1 Jan 2014 20:08:00 GMT", "Sun, 1_0 Jan 2014 20:08:00 GMT", "Sun, 10_ Jan 2014 20:08:00 GMT", "Sun, 26 Jan 2014 20:08:00",
		"Sun, 26 Jan 2014 20:08:00 GMT extra words", "Sun, 26 Jan 2014 20:08:00 EST", "Mon 26 Jan 2014 20:08:00", "x,26 Jan 2014 20:08:00",
		"26 Jan 2014, 20:08:00", "26 Jan 20:08:00 2014", "26 Jan 2014 20:08:00:00", "Jan Jan 2014 20:08:00", "26 Foo 2014 20:08:00",
		"26 Jan GMT 20:08:00", "26-Jan-2014 20:08:00 GMT", "26-Jan-2014 20:08:00", "Sun, 26 Jan 2014 20:08:0x GMT", "Sun, 26 Jan 2014 ::",
		"Sun, 26 Jan ,, 20:08:00", "Sun, 26 Jan 2014 20:08:00 -", "Sun, 26 Jan 2014 -20:08:00", "Tue, 1 Dec 1970 00:00:00 GMT",
	}
	for _, d := range []string{"Mon, 02 Jan 2006 15:04:05 GMT", "Monday, 02-Jan-06 15:04:05 GMT", "Mon Jan _2 15:04:05 2006", "2 Jan 2006 15:04 -0700"} {
		for _, s := range []string{"Fri, 03 Jan 2014 03:03:21 GMT", "Thu, 01 Jan 1970 00:00:00 GMT", "Sun, 31 Dec 2068 23:59:59 GMT", "Sat, 29 Feb 2020 12:00:00 GMT"} {
			tm, err := http.ParseTime(s)
			if err == nil {
				cs = append(cs, tm.Format(d))
			}
		}
	}
	return cs
}

// TestAcceptDatetimeAgainstPython reads Accept-Datetime values as pywb
// does (warcio's http_date_to_timestamp: email.utils.parsedate, then
// datetime and strftime) with python3 and with acceptDatetime.
func TestAcceptDatetimeAgainstPython(t *testing.T) {
	py := peertest.Need(t, "python3", "python3")
	const prog = `import sys, datetime
from email.utils import parsedate
for line in sys.stdin:
    s = line.rstrip("\n")
    try:
        print(datetime.datetime(*parsedate(s)[:6]).strftime("%Y%m%d%H%M%S") if s else "-")
    except Exception:
        print("-")
`
	cs := acceptDatetimeCases()
	cmd := exec.Command(py, "-c", prog)
	cmd.Stdin = strings.NewReader(strings.Join(cs, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	ok := 0
	for i, c := range cs {
		if !sc.Scan() {
			t.Fatalf("python3 printed %d lines for %d values", i, len(cs))
		}
		want := sc.Text()
		got, valid := acceptDatetime(c)
		if !valid {
			got = "-"
		}
		if got != want {
			t.Errorf("%q: python %s, arcport %s", c, want, got)
			continue
		}
		ok++
	}
	t.Logf("%d Accept-Datetime values, %d read alike", len(cs), ok)
}

// TestMementoHostile: huge or odd Accept-Datetime values, huge and
// traversing URLs, HEAD, unknown collections and "all" on the Memento
// routes: pywb's statuses, no panic, nothing read outside the archive.
func TestMementoHostile(t *testing.T) {
	ts := sampleServer(t)
	base := ts.URL
	huge := strings.Repeat("Sun, 26 Jan 2014 20:08:00 GMT ", 1<<15) // ~1 MB
	for _, c := range []struct {
		path, ad string
		code     int
	}{
		// parsedate reads the first five words and ignores the rest
		{"/pywb/id_/http://www.iana.org/", huge, 307},
		{"/pywb/timemap/link/http://www.iana.org/", huge, 200},
		{"/pywb/id_/http://www.iana.org/", strings.Repeat("1", 1<<20), 400},
		{"/pywb/id_/http://www.iana.org/", "Sun, 26 Jan 99999999999999999999999 20:08:00 GMT", 400},
		{"/pywb/id_/http://www.iana.org/", "Sun, 26 Jan 2014 20:08:00:00:00 GMT", 400},
		{"/pywb/id_/http://www.iana.org/", "\xff\xfe", 400},
		{"/pywb/id_/http://example.com/" + strings.Repeat("a", MaxURL), "", 400},
		{"/pywb/timemap/link/http://example.com/" + strings.Repeat("a", MaxURL), "", 400},
		{"/pywb/timemap/link/../../../../etc/passwd", "", 404},
		{"/pywb/id_/../../../../etc/passwd", "", 404},
		{"/pywb/timemap/link/file:///etc/passwd", "", 404},
		{"/../timemap/link/http://www.iana.org/", "", 404},
		{"/nosuch/timemap/link/http://www.iana.org/", "", 404},
		{"/nosuch/id_/http://www.iana.org/", "", 404},
		{"/all/timemap/link/http://www.iana.org/", "", 200},
		{"/all/id_/http://www.iana.org/", "Sun, 26 Jan 2014 20:08:00 GMT", 307},
		{"/pywb/timemap/link/http://www.iana.org/", "Sun, 26 Jan 2014 20:08:00 GMT", 200},
	} {
		resp, body := mementoGet(t, base, c.path, c.ad)
		if resp.StatusCode != c.code {
			t.Errorf("%.80s [%.40q]: %d, want %d: %.200s", c.path, c.ad, resp.StatusCode, c.code, body)
		}
		if strings.Contains(body, "root:") {
			t.Errorf("%.80s: %.200s", c.path, body)
		}
	}
	// /all: each memento names its collection
	_, body := mementoGet(t, base, "/all/timemap/link/http://www.iana.org/", "")
	for _, coll := range []string{"pywb", "cdxj", "zip"} {
		if !strings.Contains(body, `mp_/http://www.iana.org/>; rel="memento"; datetime="Sun, 26 Jan 2014 20:06:24 GMT"; collection="`+coll+`"`) {
			t.Errorf("/all: no memento of %s: %s", coll, body)
		}
	}
	// HEAD: the TimeMap's status and headers, no body
	req, _ := http.NewRequest(http.MethodHead, base+"/pywb/timemap/link/http://www.iana.org/", nil)
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/link-format" || resp.Header.Get("Vary") != "accept-datetime" || len(b) != 0 {
		t.Errorf("HEAD: %d %v %q", resp.StatusCode, resp.Header, b)
	}
}
