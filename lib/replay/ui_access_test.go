package replay

import (
	"encoding/json"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/peertest"
	"github.com/arcport/arcport/lib/replay/access"
	"github.com/arcport/arcport/lib/wacz"
)

// The garden pages the access rules of TestUIPagesAccess name.
const (
	gardenExcluded = "http://garden.example/members.html" // excluded
	gardenBlocked  = "http://garden.example/news/2024.html"
	gardenEmbargo  = "2024031200" // garden2's embargo: captures before it
)

// accessGarden serves the garden WACZ twice behind access rules: "garden"
// with gardenExcluded excluded and gardenBlocked blocked (allowed for the
// user "staff"), "garden2" with an embargo of the captures before 12 March 2024;
// with trust, the X-Pywb-Acl-User header names the user.
func accessGarden(t *testing.T, trust bool) (string, []gardenCapture, []wacz.Page) {
	t.Helper()
	p, caps := gardenWACZ(t)
	rules := filepath.Join(t.TempDir(), "garden.aclj")
	if err := os.WriteFile(rules, []byte(`example,garden)/news/2024.html - {"access": "block"}
example,garden)/news/2024.html - {"access": "allow", "user": "staff"}
example,garden)/members.html - {"access": "exclude"}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	var colls []*Collection
	for _, name := range []string{"garden", "garden2"} {
		c, err := Open(t.Context(), name, p, Options{})
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
	a, err := access.ACL("", nil, rules)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetAccess("garden", a); err != nil {
		t.Fatal(err)
	}
	emb, err := access.ParseEmbargo("before=" + gardenEmbargo)
	if err != nil {
		t.Fatal(err)
	}
	a2, err := access.ACL("", emb)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetAccess("garden2", a2); err != nil {
		t.Fatal(err)
	}
	s.ACLUserHeader = trust
	r, err := wacz.OpenFile(p)
	if err != nil {
		t.Fatal(err)
	}
	_, pages, err := r.Pages()
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	return newUITestServer(t, s), caps, pages
}

// uiGetAs is uiGet (as a browser) with the X-Pywb-Acl-User header when
// user is not "".
func uiGetAs(t *testing.T, base, target, user string) uiAnswer {
	t.Helper()
	if user == "" {
		return uiGet(t, base, target)
	}
	code, body := aclGet(t, base+target, "Accept", "text/html", "X-Pywb-Acl-User", user)
	return uiAnswer{code: code, body: body}
}

var (
	homeRowRe  = regexp.MustCompile(`(?s)<a href="/([^/"]+)/"><b>[^<]*</b></a>.*?<td class="num">([^<]*)</td>\s*<td class="num">(?:<a [^>]*>)?([^<]*)<`)
	collFactRe = regexp.MustCompile(`<li><b>([^<]*)</b><span>captures?</span></li>\s*(?:<li><b><a href="[^"]*/pages">([^<]*)</a></b>)?`)
)

// homeCounts are the capture and page counts of each collection on /.
func homeCounts(t *testing.T, body string) map[string][2]string {
	t.Helper()
	out := map[string][2]string{}
	for _, m := range homeRowRe.FindAllStringSubmatch(body, -1) {
		out[m[1]] = [2]string{m[2], m[3]}
	}
	return out
}

// cdxAllowed counts the captures the CDX API lists for the host of the
// garden with "access": "allow" (the others it marks "block"; the
// excluded ones it leaves out).
func cdxAllowed(t *testing.T, base, coll, user string) (allowed, listed int) {
	t.Helper()
	hdr := []string{}
	if user != "" {
		hdr = []string{"X-Pywb-Acl-User", user}
	}
	code, body := aclGet(t, base+"/"+coll+"/cdx?url=garden.example&matchType=host&output=json", hdr...)
	if code != 200 {
		t.Fatalf("cdx: %d %s", code, clip(body))
	}
	for _, l := range strings.Split(strings.TrimSpace(body), "\n") {
		var m map[string]string
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("cdx line %q: %v", l, err)
		}
		listed++
		if m["access"] == "allow" {
			allowed++
		}
	}
	return allowed, listed
}

// pageRows are the URLs of the rows of a /COLL/pages answer.
func pageRows(body string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<span class="u mono">([^<]*)</span>`).FindAllStringSubmatch(body, -1) {
		out = append(out, html.UnescapeString(m[1]))
	}
	return out
}

// TestUIPagesAccess: with access rules (.aclj, embargo), /COLL/pages
// lists no page whose capture is excluded or blocked for the user (the
// X-Pywb-Acl-User header when trusted), and the counts on / and /COLL/
// are those of the captures the CDX API lists as "allow" and of the
// pages listed.
func TestUIPagesAccess(t *testing.T) {
	base, caps, pages := accessGarden(t, true)
	hidden := func(coll, user string, p wacz.Page) bool {
		if coll == "garden2" {
			return pageTS(p.TS) < gardenEmbargo
		}
		return p.URL == gardenExcluded || p.URL == gardenBlocked && user != "staff"
	}
	hiddenCap := func(coll, user string, c gardenCapture) bool {
		if coll == "garden2" {
			return c.ts < gardenEmbargo
		}
		return c.url == gardenExcluded || c.url == gardenBlocked && user != "staff"
	}
	for _, c := range []struct{ coll, user string }{{"garden", ""}, {"garden", "staff"}, {"garden", "other"}, {"garden2", ""}} {
		var want []wacz.Page
		for _, p := range pages {
			if !hidden(c.coll, c.user, p) {
				want = append(want, p)
			}
		}
		wantCaps := 0
		for _, x := range caps {
			if !hiddenCap(c.coll, c.user, x) {
				wantCaps++
			}
		}
		if len(want) == len(pages) || len(want) == 0 || wantCaps == len(caps) {
			t.Fatalf("%s %q: %d of %d pages, %d of %d captures shown: the rules hide nothing or everything", c.coll, c.user, len(want), len(pages), wantCaps, len(caps))
		}
		a := uiGetAs(t, base, "/"+c.coll+"/pages", c.user)
		if a.code != 200 {
			t.Fatalf("%s pages: %d %s", c.coll, a.code, clip(a.body))
		}
		txt := text(a.body)
		if w := fmt.Sprintf("%d pages in pages/pages.jsonl", len(want)); !strings.Contains(txt, w) {
			t.Errorf("%s %q: want %q in %q", c.coll, c.user, w, clip(txt))
		}
		if n := strings.Count(a.body, `<td class="title-cell">`); n != len(want) {
			t.Errorf("%s %q: %d rows, want %d", c.coll, c.user, n, len(want))
		}
		for _, p := range pages {
			shown := slices.Contains(pageRows(a.body), p.URL)
			if shown == hidden(c.coll, c.user, p) {
				t.Errorf("%s %q: %s %s shown: %v", c.coll, c.user, p.URL, p.TS, shown)
			}
		}
		// a search finds no hidden page either
		for _, q := range []string{"members", "2024"} {
			a := uiGetAs(t, base, "/"+c.coll+"/pages?q="+q, c.user)
			for _, p := range pages {
				if hidden(c.coll, c.user, p) && slices.Contains(pageRows(a.body), p.URL) {
					t.Errorf("%s %q q=%s: hidden page %s listed", c.coll, c.user, q, p.URL)
				}
			}
		}
		// the counts: the captures the CDX API lists as "allow", the
		// pages listed
		allowed, listed := cdxAllowed(t, base, c.coll, c.user)
		if allowed != wantCaps {
			t.Errorf("%s %q: the CDX API allows %d captures (lists %d), want %d", c.coll, c.user, allowed, listed, wantCaps)
		}
		home := homeCounts(t, uiGetAs(t, base, "/", c.user).body)
		if got := home[c.coll]; got != [2]string{fmtCount(int64(wantCaps)), strconv.Itoa(len(want))} {
			t.Errorf("/ %s %q: captures, pages %q, want %d, %d", c.coll, c.user, got, wantCaps, len(want))
		}
		m := collFactRe.FindStringSubmatch(uiGetAs(t, base, "/"+c.coll+"/", c.user).body)
		if m == nil || m[1] != fmtCount(int64(wantCaps)) || m[2] != strconv.Itoa(len(want)) {
			t.Errorf("/%s/ %q: counts %q, want %d captures, %d pages", c.coll, c.user, m, wantCaps, len(want))
		}
		t.Logf("%s %q: %d of %d pages listed, %d of %d captures counted (the CDX API lists %d)", c.coll, c.user, len(want), len(pages), wantCaps, len(caps), listed)
	}
	// the header is the user only when trusted: otherwise staff sees what
	// anyone sees
	base2, _, _ := accessGarden(t, false)
	a := uiGetAs(t, base2, "/garden/pages", "staff")
	if slices.Contains(pageRows(a.body), gardenBlocked) {
		t.Errorf("untrusted header: the blocked page is listed")
	}
}

// pyWACZExtra packs the garden WARC with py-wacz 0.6.0 as Browsertrix
// Crawler does (--copy-pages): pages/pages.jsonl with the seed (the home
// page), pages/extraPages.jsonl with the other pages of the garden WACZ,
// with their text.
func pyWACZExtra(t *testing.T) (string, []wacz.Page, []wacz.Page) {
	t.Helper()
	waczCmd := peertest.NeedPy(t, "wacz")
	p, caps := gardenWACZ(t)
	r, err := wacz.OpenFile(p)
	if err != nil {
		t.Fatal(err)
	}
	_, pages, err := r.Pages()
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	var seeds, extra []wacz.Page
	for _, pg := range pages {
		if pg.URL == "http://garden.example/" {
			seeds = append(seeds, pg)
		} else {
			extra = append(extra, pg)
		}
	}
	if len(seeds) == 0 || len(extra) < 5 {
		t.Fatalf("%d seeds, %d extra pages", len(seeds), len(extra))
	}
	dir := t.TempDir()
	write := func(name, id, title string, ps []wacz.Page) string {
		var b strings.Builder
		fmt.Fprintf(&b, `{"format": "json-pages-1.0", "id": %q, "title": %q, "hasText": true}`+"\n", id, title)
		for _, pg := range ps {
			j, _ := json.Marshal(pg)
			b.Write(j)
			b.WriteByte('\n')
		}
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	pj := write("pages.jsonl", "pages", "Seed Pages", seeds)
	ej := write("extraPages.jsonl", "extra-pages", "Non-Seed Pages", extra)
	wp := filepath.Join(dir, "garden.warc.gz")
	writeGardenWARC(t, wp, caps)
	out := filepath.Join(dir, "garden-extra.wacz")
	cmd := exec.Command(waczCmd, "create", "-o", out, wp, "-p", pj, "-e", ej, "--copy-pages", "--title", "Garden Club")
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("wacz create: %v\n%s", err, b)
	}
	return out, seeds, extra
}

// TestUIExtraPages: a WACZ 1.1.1 with pages/extraPages.jsonl (made by
// py-wacz) lists its extra pages after the seeds, each marked, with a
// filter (show=seeds, show=extra), searchable in their text, behind the
// access rules as the seeds are; the page counts on / and /COLL/ hold
// both.
func TestUIExtraPages(t *testing.T) {
	p, seeds, extra := pyWACZExtra(t)
	c, err := Open(t.Context(), "gx", p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	open, err := Open(t.Context(), "open", p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { open.Close() })
	s, err := NewServer(c, open)
	if err != nil {
		t.Fatal(err)
	}
	rules := filepath.Join(t.TempDir(), "gx.aclj")
	os.WriteFile(rules, []byte("example,garden)/members.html - {\"access\": \"exclude\"}\n"), 0o644)
	a, err := access.ACL("", nil, rules)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetAccess("gx", a); err != nil {
		t.Fatal(err)
	}
	base := newUITestServer(t, s)
	rows := pageRows
	for _, coll := range []string{"open", "gx"} {
		var ex []wacz.Page
		for _, pg := range extra {
			if coll == "open" || pg.URL != gardenExcluded {
				ex = append(ex, pg)
			}
		}
		if coll == "gx" && len(ex) != len(extra)-1 {
			t.Fatalf("%s is not an extra page", gardenExcluded)
		}
		all := len(seeds) + len(ex)
		a := uiGet(t, base, "/"+coll+"/pages")
		txt := text(a.body)
		if w := fmt.Sprintf("%d pages: %d seed in pages/pages.jsonl, %d extra pages in pages/extraPages.jsonl, with their text.", all, len(seeds), len(ex)); a.code != 200 || !strings.Contains(txt, w) {
			t.Errorf("%s: %d, want %q in %q", coll, a.code, w, clip(txt))
		}
		got := rows(a.body)
		if len(got) != all || got[0] != seeds[0].URL {
			t.Errorf("%s: rows %q", coll, got)
		}
		if n := strings.Count(a.body, `<span class="pill extra">extra</span>`); n != len(ex) {
			t.Errorf("%s: %d rows marked extra, want %d", coll, n, len(ex))
		}
		if n := strings.Count(a.body, `<span class="pill seed">seed</span>`); n != len(seeds) {
			t.Errorf("%s: %d rows marked seed, want %d", coll, n, len(seeds))
		}
		for _, f := range []string{"all" + fmt.Sprint(all), "seeds" + fmt.Sprint(len(seeds)), "extra pages" + fmt.Sprint(len(ex))} {
			if !strings.Contains(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(a.body, ""), f) {
				t.Errorf("%s: no filter %q", coll, f)
			}
		}
		if got := rows(uiGet(t, base, "/"+coll+"/pages?show=seeds").body); len(got) != len(seeds) || got[0] != seeds[0].URL {
			t.Errorf("%s show=seeds: %q", coll, got)
		}
		gotEx := rows(uiGet(t, base, "/"+coll+"/pages?show=extra").body)
		if len(gotEx) != len(ex) {
			t.Errorf("%s show=extra: %q", coll, gotEx)
		}
		for i := range min(len(gotEx), len(ex)) {
			if gotEx[i] != ex[i].URL {
				t.Errorf("%s show=extra: row %d %s, want %s", coll, i, gotEx[i], ex[i].URL)
			}
		}
		// the text of an extra page is searched; the filter keeps the
		// query
		a = uiGet(t, base, "/"+coll+"/pages?q=treasure")
		if r := rows(a.body); len(r) != 1 || r[0] != hostileURL || !strings.Contains(a.body, "<mark>treasure</mark>") || !strings.Contains(a.body, `<span class="pill extra">extra</span>`) {
			t.Errorf("%s q=treasure: %q", coll, r)
		}
		if !strings.Contains(a.body, `href="/`+coll+`/pages?q=treasure&amp;show=extra"`) {
			t.Errorf("%s q=treasure: the filter links drop the query", coll)
		}
		if r := rows(uiGet(t, base, "/"+coll+"/pages?q=treasure&show=seeds").body); len(r) != 0 {
			t.Errorf("%s q=treasure show=seeds: %q", coll, r)
		}
		if r := rows(uiGet(t, base, "/"+coll+"/pages?q=members").body); (coll == "gx") == slices.Contains(r, gardenExcluded) {
			t.Errorf("%s q=members: %q", coll, r)
		}
		if h := homeCounts(t, uiGet(t, base, "/").body)[coll]; h[1] != strconv.Itoa(all) {
			t.Errorf("/ %s: pages %q, want %d", coll, h[1], all)
		}
		if m := collFactRe.FindStringSubmatch(uiGet(t, base, "/"+coll+"/").body); m == nil || m[2] != strconv.Itoa(all) {
			t.Errorf("/%s/: %q, want %d pages", coll, m, all)
		}
		t.Logf("%s: %d seeds, %d extra pages listed", coll, len(seeds), len(ex))
	}
	if a := uiGet(t, base, "/gx/pages?show=none", "*/*"); a.code != 400 || a.body != "show=none: one of seeds, extra (or none: all)\n" {
		t.Errorf("show=none: %d %q", a.code, a.body)
	}
	// each row's link replays its page (the hostile URL's too, its
	// quotes, parentheses and brackets escaped by html/template)
	pg := uiGet(t, base, "/gx/pages")
	links := regexp.MustCompile(`<td class="title-cell"><a href="([^"]*)"`).FindAllStringSubmatch(pg.body, -1)
	if len(links) != len(seeds)+len(extra)-1 {
		t.Fatalf("%d row links", len(links))
	}
	for _, m := range links {
		href := html.UnescapeString(m[1])
		if f := follow(t, base, href, true); f.code != 200 || !strings.Contains(f.body, "<iframe") || len(f.hops) > 2 {
			t.Errorf("%s: %d after %q", href, f.code, f.hops)
		}
	}
}
