package replay

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// mementoReq is a request of the Memento corpus: a path and the
// Accept-Datetime sent with it ("" for none).
type mementoReq struct{ path, ad string }

func fetchMemento(t testing.TB, base string, q mementoReq) replayAnswer {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+q.path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if q.ad != "" {
		req.Header.Set("Accept-Datetime", q.ad)
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var hs []string
	for k, vs := range resp.Header {
		switch k {
		case "Date", "Transfer-Encoding", "Content-Length":
			continue
		}
		for _, v := range vs {
			hs = append(hs, strings.ToLower(k)+": "+strings.ReplaceAll(v, base, "BASE"))
		}
	}
	sort.Strings(hs)
	body := strings.ReplaceAll(string(b), base, "BASE")
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		body = ""
	}
	return replayAnswer{resp.StatusCode, strings.Join(hs, "\n"), body}
}

// mementoCorpus: for every URL of the sample CDX folder and every
// collection, its TimeMaps (link, json, cdxj; whole, from a year, from a
// range, at an Accept-Datetime) and its TimeGate (the latest; at each
// capture's time, a second later and a day earlier, in the RFC 1123, RFC
// 850 and asctime forms), bad Accept-Datetimes, an Accept-Datetime sent
// to a memento (ignored), and URLs with no capture.
func mementoCorpus(t testing.TB) []mementoReq {
	sa := sampleArchive(t)
	caps := map[string][]string{}
	var urls []string
	files, _ := filepath.Glob(filepath.Join(sa, "cdx", "*.cdx"))
	for _, f := range files {
		if strings.HasSuffix(f, "bad.cdx") {
			continue
		}
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			if len(fs) < 11 || len(fs[1]) != 14 || strings.Contains(fs[0], "__wb_method") {
				continue
			}
			if caps[fs[2]] == nil {
				urls = append(urls, fs[2])
			}
			caps[fs[2]] = append(caps[fs[2]], fs[1])
		}
		fh.Close()
	}
	sort.Strings(urls)
	var out []mementoReq
	add := func(p, ad string) { out = append(out, mementoReq{p, ad}) }
	for _, coll := range []string{"pywb", "cdxj", "zip", "warcs", "cluster"} {
		for _, u := range urls {
			for _, o := range []string{"link", "json", "cdxj"} {
				add("/"+coll+"/timemap/"+o+"/"+u, "")
			}
			add("/"+coll+"/timemap/link/2014/"+u, "")
			add("/"+coll+"/timemap/json/20140126-20140127/"+u, "")
			add("/"+coll+"/timemap/link/"+u, "Sun, 26 Jan 2014 20:07:00 GMT")
			add("/"+coll+"/id_/"+u, "")
			ts := caps[u][0]
			tm, err := time.Parse("20060102150405", ts)
			if err != nil {
				t.Fatal(err)
			}
			add("/"+coll+"/id_/"+u, tm.Format(http.TimeFormat))
			add("/"+coll+"/id_/"+u, tm.Add(time.Second).Format("Monday, 02-Jan-06 15:04:05 GMT"))
			add("/"+coll+"/id_/"+u, tm.Add(-24*time.Hour).Format(time.ANSIC))
			add("/"+coll+"/"+ts+"id_/"+u, "Sun, 26 Jan 2014 20:07:00 GMT")
		}
		for _, ad := range []string{"garbage", "Sun, 26 Jan 2014", "Sun, 32 Jan 2014 20:08:00 GMT", "Sun, 26 Foo 2014 20:08:00 GMT",
			"26 Jan 2014 20:08:00 GMT", "Sun, 26 Jan 2014 20:08:00 +0500", "Sun, 26 Jan 14 20:08", "Sun, 26 Jan 2014 24:00:00 GMT",
			"Sun, 29 Feb 2014 20:08:00 GMT", "Jan 26 2014 20:08:00", "Sun,26 Jan 2014 20.08.00 GMT", " ", "Sun, 26 jan 2014 20:08:00 GMT"} {
			add("/"+coll+"/id_/http://www.iana.org/", ad)
			add("/"+coll+"/timemap/link/http://www.iana.org/", ad)
		}
		add("/"+coll+"/timemap/link/http://nothing.example/", "")
		add("/"+coll+"/timemap/json/http://nothing.example/", "")
		add("/"+coll+"/timemap/foo/http://www.iana.org/", "")
		add("/"+coll+"/timemap/cdxj/www.iana.org/*", "")
		add("/"+coll+"/timemap/link/*.iana.org", "")
		// URL forms: no scheme, slashes merged, https, fuzzy (a
		// cache-busting query), a prefix
		for _, u := range []string{"www.iana.org/", "http:/www.iana.org/", "https://www.iana.org/", "example.com/?example=1",
			"http://www.iana.org/_css/2013.1/screen.css?v=3", "http://www.iana.org/?_=1234", "http://example.com/?example=1&cb=99",
			"httpbin.org/anything/resource.json", "http://www.iana.org/_css/*"} {
			for _, o := range []string{"link", "json"} {
				add("/"+coll+"/timemap/"+o+"/"+u, "")
			}
			add("/"+coll+"/timemap/link/*/"+u, "")
			add("/"+coll+"/id_/"+u, "")
			add("/"+coll+"/id_/"+u, "Mon, 27 Jan 2014 17:12:00 GMT")
		}
		add("/"+coll+"/id_/http://www.iana.org/nothere", "Sun, 26 Jan 2014 20:08:00 GMT")
		add("/"+coll+"/id_/http://example.com?example=1", "Fri, 03 Jan 2014 03:03:30 GMT")
	}
	return out
}

// mementoKnown names a difference from pywb 2.10.0, or "" when there is
// none to expect: pywb answers a bad Accept-Datetime (400), a URL
// without captures (404) and an unknown collection with its HTML error
// pages (templates, static files), arcport, which has no pages for
// people yet, with the JSON message of its other errors; status and all
// else must agree.
func mementoKnown(want, got replayAnswer) string {
	if want.code == got.code && (want.code == 400 || want.code == 404) &&
		strings.Contains(want.headers, "content-type: text/html") && strings.Contains(got.headers, "content-type: application/json") {
		return "error page: pywb's HTML, arcport's JSON message"
	}
	return ""
}

// TestMementoAgainstPywb asks pywb 2.10.0 (redirect_to_exact: true) and
// arcport for the TimeMaps and TimeGate answers of every URL of the
// sample archive and compares status, headers and body.
func TestMementoAgainstPywb(t *testing.T) {
	dir := t.TempDir()
	colls := diffSetup(t, dir)
	cfg, _ := os.ReadFile(filepath.Join(dir, "config.yaml"))
	os.WriteFile(filepath.Join(dir, "config.yaml"), append([]byte("redirect_to_exact: true\n"), cfg...), 0o644)
	base := startPywb(t, dir)
	srv, err := NewServer(colls...)
	if err != nil {
		t.Fatal(err)
	}
	ours := httptest.NewServer(srv)
	defer ours.Close()
	qs := mementoCorpus(t)
	type result struct {
		q         mementoReq
		want, got replayAnswer
	}
	res := make([]result, len(qs))
	var wg sync.WaitGroup
	work := make(chan int)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				res[i] = result{qs[i], fetchMemento(t, base, qs[i]), fetchMemento(t, ours.URL, qs[i])}
			}
		}()
	}
	for i := range qs {
		work <- i
	}
	close(work)
	wg.Wait()
	same, known, diff := 0, 0, 0
	kinds := map[string]int{}
	for _, r := range res {
		if r.got == r.want {
			same++
			continue
		}
		if why := mementoKnown(r.want, r.got); why != "" {
			known++
			kinds[why]++
			continue
		}
		diff++
		if diff <= 25 {
			t.Errorf("%s [Accept-Datetime: %q]:\n pywb:    %d\n%s\n%q\n arcport: %d\n%s\n%q", r.q.path, r.q.ad, r.want.code, r.want.headers, clip(r.want.body), r.got.code, r.got.headers, clip(r.got.body))
		}
	}
	codes := map[int]int{}
	for _, r := range res {
		codes[r.want.code]++
	}
	t.Logf("pywb's statuses: %v", codes)
	for k, n := range kinds {
		t.Logf("%d known differences: %s", n, k)
	}
	t.Logf("%d requests: %d equal (status, headers, body), %d known differences, %d others", len(qs), same, known, diff)
}
