package replay

import (
	"bytes"
	"context"
	"html"
	"html/template"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/internal/peertest"
	"github.com/arcport/arcport/lib/replay/access"
	"github.com/arcport/arcport/lib/wacz"
)

// oddCaptures are captures whose URLs hold bytes html/template and
// browsers escape in a link: parentheses, quotes (in the path, in the
// query), braces, non-ASCII as captured (not escaped).
var oddCaptures = []struct{ url, ts, text string }{
	{"http://garden.example/plants/rose(red).html", "20240310103000", "Red roses climb the wall"},
	{"http://garden.example/it's.html", "20240311103000", "It is the garden's page"},
	{"http://garden.example/search?q=it's", "20240312103000", "Results for its"},
	{`http://garden.example/say"hi".html`, "20240313103000", "Say hi to the gardeners"},
	{"http://garden.example/café.html", "20240314103000", "The café under the lime tree"},
	{"http://garden.example/beds/{north}.html", "20240315103000", "The northern beds"},
}

// oddWACZ packs oddCaptures into a WACZ.
func oddWACZ(t *testing.T) string {
	t.Helper()
	var caps []gardenCapture
	for _, c := range oddCaptures {
		caps = append(caps, gardenCapture{url: c.url, ts: c.ts, ctype: "text/html; charset=utf-8",
			body: []byte("<!doctype html><html><head><title>" + html.EscapeString(c.text) + "</title></head><body><p>" + html.EscapeString(c.text) + "</p></body></html>")})
	}
	dir := t.TempDir()
	wp := filepath.Join(dir, "odd.warc.gz")
	writeGardenWARC(t, wp, caps)
	p := filepath.Join(dir, "odd.wacz")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ww, err := wacz.NewWriter(f, wacz.Options{Title: "Odd URLs"})
	if err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(wp)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if err := ww.AddInput("odd.warc.gz", in); err != nil {
		t.Fatal(err)
	}
	if err := ww.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// templateHref is href as html/template writes it in a link.
func templateHref(t *testing.T, href string) string {
	t.Helper()
	var b bytes.Buffer
	if err := template.Must(template.New("").Parse(`<a href="{{.}}">`)).Execute(&b, href); err != nil {
		t.Fatal(err)
	}
	return html.UnescapeString(strings.TrimSuffix(strings.TrimPrefix(b.String(), `<a href="`), `">`))
}

// followed is the end of a chain of redirects asked for as a browser
// asks (Accept: text/html), each target sent as the Location wrote it.
type followed struct {
	code  int
	body  string
	hops  []string // the Locations
	first string   // the first answer's Location
}

func follow(t *testing.T, base, target string, html bool) followed {
	t.Helper()
	var f followed
	for range 10 {
		var a uiAnswer
		if html {
			a = uiGet(t, base, target)
		} else {
			a = uiGet(t, base, target, "")
		}
		if a.code != http.StatusTemporaryRedirect && a.code != http.StatusFound {
			f.code, f.body = a.code, a.body
			return f
		}
		loc := strings.TrimPrefix(a.hdr.Get("Location"), base)
		if len(f.hops) == 0 {
			f.first = loc
		}
		f.hops = append(f.hops, loc)
		target = loc
	}
	t.Fatalf("%s: more than 10 redirects: %q", target, f.hops)
	return f
}

// TestReplayUnescapedLink: a replay URL whose captured URL a link
// escaped (html/template: "(" as %28, "'" as %27, non-ASCII as %c3%a9,
// "{" as %7b) finds its capture: a redirect to the URL as captured at the
// same time-stamp (and modifier) when a browser would ask for it so,
// else the capture answered at the escaped URL (a redirect would come
// back as the same request); a URL with no capture either way is still
// the 404, and a capture the access rules exclude is no reason to
// redirect.
func TestReplayUnescapedLink(t *testing.T) {
	p := oddWACZ(t)
	var colls []*Collection
	for _, name := range []string{"odd", "ruled"} {
		c, err := Open(context.Background(), name, p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		colls = append(colls, c)
	}
	s, err := NewServer(colls...)
	if err != nil {
		t.Fatal(err)
	}
	rules := filepath.Join(t.TempDir(), "odd.aclj")
	os.WriteFile(rules, []byte("example,garden)/plants/rose(red).html - {\"access\": \"exclude\"}\n"), 0o644)
	a, err := access.ACL("", nil, rules)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetAccess("ruled", a); err != nil {
		t.Fatal(err)
	}
	base := newUITestServer(t, s)
	redirected := 0
	for _, c := range oddCaptures {
		for _, mode := range []struct{ ts, mod string }{{c.ts, "id_"}, {c.ts, "mp_"}, {c.ts, ""}, {c.ts[:8], "id_"}, {"", "id_"}} {
			raw := "/odd/" + mode.ts + mode.mod + "/" + c.url
			if mode.ts == "" && mode.mod == "" {
				raw = "/odd/" + c.url
			}
			target := templateHref(t, raw)
			for _, browser := range []bool{true, false} {
				f := follow(t, base, target, browser)
				if f.code != 200 {
					t.Errorf("%s (browser %v): %d after %q: %s", target, browser, f.code, f.hops, clip(f.body))
					continue
				}
				want := html.EscapeString(c.text)
				if mode.mod == "" {
					want = "<iframe"
				}
				if !strings.Contains(f.body, want) {
					t.Errorf("%s: %q not in %s", target, want, clip(f.body))
				}
				if len(f.hops) > 2 {
					t.Errorf("%s: %d redirects: %q", target, len(f.hops), f.hops)
				}
				// the first redirect of an escaped link that has no
				// capture as it is: the URL as captured, a browser's
				// escapes kept, at the same time-stamp
				if target != raw && mode.ts == c.ts && f.first != "" {
					want := "/odd/" + c.ts + mode.mod + "/" + linkEscape(c.url)
					if f.first != want {
						t.Errorf("%s: Location %q, want %q", target, f.first, want)
					}
					redirected++
				}
			}
		}
	}
	if redirected == 0 {
		t.Error("no escaped link was redirected")
	}
	t.Logf("%d escaped links at their exact time-stamp redirected to the URL as captured", redirected)
	// "(" and "'" are redirected to, the others answered in place
	for _, c := range []struct{ target, loc string }{
		{"/odd/20240310103000id_/http://garden.example/plants/rose%28red%29.html", "/odd/20240310103000id_/http://garden.example/plants/rose(red).html"},
		{"/odd/20240310103000/http://garden.example/plants/rose%28red%29.html", "/odd/20240310103000/http://garden.example/plants/rose(red).html"},
		{"/odd/20240311103000mp_/http://garden.example/it%27s.html", "/odd/20240311103000mp_/http://garden.example/it's.html"},
		{"/odd/20240314103000id_/http://garden.example/caf%c3%a9.html", "/odd/20240314103000id_/http://garden.example/caf%C3%A9.html"},
		{"/odd/20240314103000id_/http://garden.example/caf%C3%A9.html", ""},
		{"/odd/20240312103000id_/http://garden.example/search?q=it%27s", ""},
	} {
		a := uiGet(t, base, c.target)
		if loc := strings.TrimPrefix(a.hdr.Get("Location"), base); loc != c.loc || (c.loc == "") != (a.code == 200) {
			t.Errorf("%s: %d Location %q, want %q", c.target, a.code, loc, c.loc)
		}
	}
	// no capture either way: the 404 as before
	for _, target := range []string{"/odd/20240310103000id_/http://garden.example/plants/rose%28blue%29.html", "/odd/2024id_/http://garden.example/caf%c3%a8.html"} {
		if a := uiGet(t, base, target, ""); a.code != 404 || a.hdr.Get("Location") != "" || !strings.Contains(a.body, `"No Captures found for: `) {
			t.Errorf("%s: %d %q %s", target, a.code, a.hdr.Get("Location"), clip(a.body))
		}
		if a := uiGet(t, base, target); a.code != 404 || !strings.Contains(a.body, "Not in the archive") {
			t.Errorf("%s (browser): %d %s", target, a.code, clip(a.body))
		}
	}
	// an excluded capture: 404 for its URL escaped or not, no redirect
	for _, target := range []string{"/ruled/20240310103000id_/http://garden.example/plants/rose%28red%29.html", "/ruled/20240310103000/http://garden.example/plants/rose(red).html"} {
		if a := uiGet(t, base, target); a.code != 404 || a.hdr.Get("Location") != "" {
			t.Errorf("%s: %d %q", target, a.code, a.hdr.Get("Location"))
		}
	}
	if a := uiGet(t, base, "/ruled/20240311103000id_/http://garden.example/it%27s.html"); a.code != 307 {
		t.Errorf("ruled it%%27s: %d", a.code)
	}
	// a real browser: the escaped links replay, no redirect loop
	chromium := peertest.Chromium(t)
	for _, c := range oddCaptures {
		target := templateHref(t, "/odd/"+c.ts[:8]+"mp_/"+c.url)
		ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
		cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
			"--user-data-dir="+t.TempDir(), "--dump-dom", base+target)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		cancel()
		if err != nil {
			t.Fatalf("chromium %s: %v\n%s", target, err, errb.String())
		}
		if !strings.Contains(out.String(), c.text) {
			t.Errorf("chromium %s: %q not in %s", target, c.text, clip(out.String()))
		}
	}
}
