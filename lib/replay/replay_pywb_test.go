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
)

// replayAnswer is what a replay request got: status, the headers (but
// the server's own Date and the body's framing, which differ by server
// and not by capture) as sorted "Name: value" lines with the server's
// address made BASE, and the body.
type replayAnswer struct {
	code    int
	headers string
	body    string
}

var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func fetchReplay(t testing.TB, base, p string) replayAnswer {
	t.Helper()
	resp, err := noRedirect.Get(base + p)
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
	body := string(b)
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		body = "" // pywb's redirect pages are not ours
	}
	return replayAnswer{resp.StatusCode, strings.Join(hs, "\n"), body}
}

// replayCorpus: every capture of the sample CDX folder at its exact
// time-stamp and at its day (a redirect to the closest), and a few
// missing ones.
func replayCorpus(t testing.TB) []string {
	sa := sampleArchive(t)
	var out []string
	seen := map[string]bool{}
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
			for _, p := range []string{"/pywb/" + fs[1] + "id_/" + fs[2], "/pywb/" + fs[1][:8] + "id_/" + fs[2]} {
				if !seen[p] {
					seen[p] = true
					out = append(out, p)
				}
			}
		}
		fh.Close()
	}
	out = append(out, "/pywb/2014id_/http://www.iana.org/not-there", "/pywb/20140126200624id_/http://nothing.example/",
		"/warcs/20140126200624id_/http://www.iana.org/", "/warcs/2014id_/http://example.com/", "/warcs/20171130220904id_/http://httpbin.org/anything/resource.json")
	return out
}

// replayKnown are the replay differences from pywb 2.10.0, by a
// substring of the request, with their reason.
var replayKnown = map[string]string{
	// pywb answers a URL it has no capture of with its HTML "URL Not
	// Found" page (templates, static files); arcport, which has no
	// pages for people yet, with the JSON message of its other errors
	"/not-there":             "404: pywb's HTML page, arcport's JSON message",
	"http://nothing.example": "404: pywb's HTML page, arcport's JSON message",
}

// TestReplayAgainstPywb asks pywb 2.10.0 (redirect_to_exact: true) and
// arcport for every capture of the sample archive in id_ mode and
// compares status, headers and payload.
func TestReplayAgainstPywb(t *testing.T) {
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
	qs := replayCorpus(t)
	type result struct {
		p         string
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
				res[i] = result{qs[i], fetchReplay(t, base, qs[i]), fetchReplay(t, ours.URL, qs[i])}
			}
		}()
	}
	for i := range qs {
		work <- i
	}
	close(work)
	wg.Wait()
	same, known, diff := 0, 0, 0
	for _, r := range res {
		if r.got == r.want {
			same++
			continue
		}
		why := ""
		for k, v := range replayKnown {
			if strings.Contains(r.p, k) {
				why = v
			}
		}
		if why != "" {
			known++
			t.Logf("%s: differs as expected (%s)", r.p, why)
			continue
		}
		diff++
		if diff <= 25 {
			t.Errorf("%s:\n pywb:    %d\n%s\n%q\n arcport: %d\n%s\n%q", r.p, r.want.code, r.want.headers, clip(r.want.body), r.got.code, r.got.headers, clip(r.got.body))
		}
	}
	t.Logf("%d requests: %d equal (status, headers, payload), %d known differences, %d others", len(qs), same, known, diff)
}
