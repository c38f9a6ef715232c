package crawl

import (
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/links"
)

func TestCanonicalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"HTTP://Example.COM:80/a/./b/../c?x=1#frag", "http://example.com/a/c?x=1"},
		{"https://example.com:443", "https://example.com/"},
		{"https://example.com:0443/x", "https://example.com/x"},
		{"http://example.com:/x", "http://example.com/x"},
		{"http://example.com:8080/%7euser/%41%2f%zz", "http://example.com:8080/~user/A%2F%25zz"},
		{"http://example.com/a b/é", "http://example.com/a%20b/%C3%A9"},
		{"http://example.com/page%20two.html", "http://example.com/page%20two.html"},
		{"http://example.com/?", "http://example.com/"},
		{"http://bücher.de/", "http://xn--bcher-kva.de/"},
		{"http://example.com/a/../../b", "http://example.com/b"},
		{"http://example.com/a/..", "http://example.com/"},
		{"http://example.com/a/.", "http://example.com/a/"},
		{"http://example.com/%2e%2e/b", "http://example.com/b"},
		{"http://example.com/a../b", "http://example.com/a../b"},
		{"http://example.com/a//b", "http://example.com/a//b"},
		{"http://example.com/a?b=c d&e=%7e&f=%2B+", "http://example.com/a?b=c%20d&e=~&f=%2B+"},
		{"http://[::1]:80/", "http://[::1]/"},
		{"http://[0:0::1]:8080/", "http://[::1]:8080/"},
		{"http://EXAMPLE.com./x", "http://example.com/x"},
		{"  http://example.com/x  ", "http://example.com/x"},
		{"http://u:p@example.com/", "http://example.com/"},
		{"http://example.com/a;b=c,d", "http://example.com/a;b=c,d"},
		{"http://example.com/{x}|y^", "http://example.com/%7Bx%7D%7Cy%5E"},
	}
	for _, tt := range tests {
		got, err := Canonicalize(tt.in)
		if err != nil {
			t.Errorf("Canonicalize(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("Canonicalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
		again, err := Canonicalize(got)
		if err != nil || again != got {
			t.Errorf("Canonicalize not idempotent on %q: %q, %v", got, again, err)
		}
	}
	for _, bad := range []string{"ftp://example.com/", "mailto:a@b.c", "/relative", "http:///x", "javascript:x()", "http://exa mple.com/", "http://example.com:8x/", "http://--filter=-*.gif", "http://a*b/"} {
		if got, err := Canonicalize(bad); err == nil {
			t.Errorf("Canonicalize(%q) = %q, want an error", bad, got)
		}
	}
}

// The frontier must agree with the parser: a URL lib/links resolved is
// already canonical, so a link and its duplicate found another way meet.
func TestCanonicalAgreesWithLinks(t *testing.T) {
	base, _ := url.Parse("http://www.example.com/foo/index.html")
	for _, ref := range []string{
		"page 2.html", "page%202.html", "PAGE%32.html", "../top.html", "./a/./b/../c.html",
		"//WWW.Example.com:80/x", "http:page2.html", "/a%7eb?q=%7e&r=a b", "é.html",
		"http://www.example.com/foo/bar/", "?x=1", "a%zzb.html",
	} {
		abs, _, ok := links.Resolve(base, ref)
		if !ok {
			t.Errorf("links.Resolve(%q) failed", ref)
			continue
		}
		c, err := Canonicalize(abs)
		if err != nil || c != abs {
			t.Errorf("ref %q: links gives %q, Canonicalize gives %q (%v)", ref, abs, c, err)
		}
	}
}

func FuzzCanonicalize(f *testing.F) {
	for _, s := range []string{"http://example.com/a/../b?c#d", "https://[::1]:443/%zz", "http://bücher.de/é", "HTTP://A.B:80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := Canonicalize(s)
		if err != nil {
			return
		}
		again, err := Canonicalize(c)
		if err != nil || again != c {
			t.Fatalf("not idempotent: %q -> %q -> %q (%v)", s, c, again, err)
		}
	})
}

func TestFilters(t *testing.T) {
	tests := []struct {
		rules []string
		url   string
		want  int
	}{
		{[]string{"-*.gif"}, "http://www.example.com/a/b.gif", -1},
		{[]string{"-*.gif"}, "http://www.example.com/a/B.GIF", -1},
		{[]string{"-*.gif"}, "http://www.example.com/a/b.gif?x=1", 0},
		{[]string{"-*.gif"}, "http://www.example.com/a/b.png", 0},
		{[]string{"+www.example.com/*"}, "http://www.example.com/x", 1},
		{[]string{"+www.example.com/*"}, "https://www.example.com/x", 1},
		{[]string{"+www.example.com/*"}, "http://www.example.com.evil.net/x", 0},
		{[]string{"-*/cgi-bin/*"}, "http://h.net/a/cgi-bin/x.cgi", -1},
		{[]string{"-*/cgi-bin/*"}, "http://h.net/a/cgi-binx/x.cgi", 0},
		{[]string{"+*.example.com/*[file].html"}, "http://a.example.com/x.html", 1},
		{[]string{"+*.example.com/*[file].html"}, "http://a.example.com/d/x.html", 0},
		{[]string{"+*.example.com/*[name].html"}, "http://a.example.com/x;y.html", 0},
		{[]string{"+*/*[path].pdf"}, "http://h.net/a/b/c.pdf", 1},
		{[]string{"+*/*[path].pdf"}, "http://h.net/a/b?c.pdf", 0},
		{[]string{"+h.net/a?*[param]"}, "http://h.net/a?x=1&y=2", 1},
		{[]string{"+h.net/a?*[param]"}, "http://h.net/a?x=1/2", 0},
		{[]string{"+www.example.com/page*[0-9].html"}, "http://www.example.com/page12.html", 1},
		{[]string{"+www.example.com/page*[0-9].html"}, "http://www.example.com/page.html", 1},
		{[]string{"+www.example.com/page*[0-9].html"}, "http://www.example.com/pageab.html", 0},
		{[]string{"+www.example.com/*[a,b,c-e]x"}, "http://www.example.com/abcdex", 1},
		{[]string{"+www.example.com/*[a,b,c-e]x"}, "http://www.example.com/abfx", 0},
		{[]string{"+www.example.com/dir/*[]"}, "http://www.example.com/dir/", 1},
		{[]string{"+www.example.com/dir/*[]"}, "http://www.example.com/dir/x", 0},
		{[]string{`-*\**`}, "http://h.net/a*b", -1},
		{[]string{`-*\**`}, "http://h.net/ab", 0},
		{[]string{"-https://*"}, "https://h.net/", -1},
		{[]string{"-https://*"}, "http://h.net/", 0},
		// later rule wins
		{[]string{"-*", "+*.html"}, "http://h.net/a.html", 1},
		{[]string{"-*", "+*.html"}, "http://h.net/a.png", -1},
		{[]string{"+*.html", "-*"}, "http://h.net/a.html", -1},
		{[]string{"www.example.com/*"}, "http://www.example.com/", 1},
	}
	for _, tt := range tests {
		fs, err := ParseFilters(tt.rules)
		if err != nil {
			t.Fatalf("%v: %v", tt.rules, err)
		}
		if got := fs.Decide(tt.url); got != tt.want {
			t.Errorf("%v on %s = %d, want %d", tt.rules, tt.url, got, tt.want)
		}
	}
	for _, bad := range []string{"-", "+", "+*[abc", "-mime:image/*", "+*[a-]x", "+*[z-a]"} {
		if _, err := ParseFilter(bad); err == nil {
			t.Errorf("ParseFilter(%q): want an error", bad)
		}
	}
}

// A pattern full of stars against a long URL must stay linear.
func TestFilterNoBlowup(t *testing.T) {
	f, err := ParseFilter("-" + strings.Repeat("*a", 40) + "*b")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://h.net/" + strings.Repeat("a", 4000)
	start := time.Now()
	if f.Match(u) {
		t.Fatal("matched")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %v", d)
	}
}

func FuzzFilter(f *testing.F) {
	f.Add("+*.example.com/*[file].html", "http://a.example.com/x.html")
	f.Add(`-*\**[a-z,0-9]*[]`, "http://h/a*b")
	f.Fuzz(func(t *testing.T, rule, u string) {
		flt, err := ParseFilter(rule)
		if err != nil {
			return
		}
		flt.Match(u)
	})
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := CanonicalURL(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestScope(t *testing.T) {
	seed := []*url.URL{mustURL(t, "http://www.example.co.uk/foo/index.html")}
	tests := []struct {
		mode ScopeMode
		url  string
		want bool
	}{
		{ScopePrefix, "http://www.example.co.uk/foo/bar.html", true},
		{ScopePrefix, "https://www.example.co.uk/foo/x/y", true},
		{ScopePrefix, "http://www.example.co.uk/foo/", true},
		{ScopePrefix, "http://www.example.co.uk/foobar", false},
		{ScopePrefix, "http://www.example.co.uk/", false},
		{ScopePrefix, "http://www.example.co.uk:8080/foo/", false},
		{ScopeHost, "http://www.example.co.uk/x", true},
		{ScopeHost, "http://img.example.co.uk/x", false},
		{ScopeDomain, "http://img.example.co.uk/x", true},
		{ScopeDomain, "http://example.co.uk/", true},
		{ScopeDomain, "http://badexample.co.uk/", false},
		{ScopeDomain, "http://other.co.uk/", false},
		{ScopeAny, "http://anything.net/", true},
	}
	for _, tt := range tests {
		s := NewScope(tt.mode, seed)
		if got := s.Contains(mustURL(t, tt.url)); got != tt.want {
			t.Errorf("%s scope: %s = %v, want %v", tt.mode, tt.url, got, tt.want)
		}
	}
	if _, err := ParseScopeMode("nope"); err == nil {
		t.Error("ParseScopeMode(nope): want an error")
	}
	if m, err := ParseScopeMode("Domain"); err != nil || m != ScopeDomain {
		t.Errorf("ParseScopeMode(Domain) = %v, %v", m, err)
	}
	for host, want := range map[string]string{"www.example.co.uk": "example.co.uk", "127.0.0.1": "127.0.0.1", "localhost": "localhost", "a.b.example.com": "example.com"} {
		if got := RegistrableDomain(host); got != want {
			t.Errorf("RegistrableDomain(%s) = %s, want %s", host, got, want)
		}
	}
}

func TestTraps(t *testing.T) {
	tr := Traps{MaxURLLength: 60, MaxRepeat: 2, MaxSegments: 5}.withDefaults()
	tests := []struct {
		url  string
		trap bool
	}{
		{"http://h.net/a/b/c/", false},
		{"http://h.net/a/b/a/b/", false},
		{"http://h.net/a/b/a/b/a/", true},
		{"http://h.net/cal/2020/cal/2021/cal/", true},
		{"http://h.net/1/2/3/4/5", false},
		{"http://h.net/1/2/3/4/5/6", true},
		{"http://h.net/" + strings.Repeat("x", 60), true},
	}
	for _, tt := range tests {
		u := mustURL(t, tt.url)
		if got := tr.check(u, u.String()) != ""; got != tt.trap {
			t.Errorf("%s: trap = %v, want %v", tt.url, got, tt.trap)
		}
	}
	off := Traps{MaxURLLength: -1, MaxRepeat: -1, MaxSegments: -1}.withDefaults()
	u := mustURL(t, "http://h.net/a/a/a/a/a/a/a/a/"+strings.Repeat("x", 3000))
	if r := off.check(u, u.String()); r != "" {
		t.Errorf("disabled traps still refuse: %s", r)
	}
}

// loadTestCookies loads testdata/crawl/cookies.txt into a new jar.
func loadTestCookies(t *testing.T) http.CookieJar {
	t.Helper()
	f, err := os.Open("../../testdata/crawl/cookies.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	jar := NewJar()
	if err := LoadCookies(jar, f, "cookies.txt"); err != nil {
		t.Fatal(err)
	}
	return jar
}

func TestLoadCookies(t *testing.T) {
	jar := loadTestCookies(t)
	tests := []struct{ url, want string }{
		{"http://127.0.0.1/", "session=abc123"},
		{"http://127.0.0.1/private/x", "auth=secret; session=abc123"},
		{"http://www.site.test/", "pref=lang=fr"},
		{"http://site.test/", "pref=lang=fr"},
		{"http://secure.test/", ""},
		{"https://secure.test/", "sec=s1"},
	}
	for _, tt := range tests {
		u, _ := url.Parse(tt.url)
		var parts []string
		for _, c := range jar.Cookies(u) {
			parts = append(parts, c.Name+"="+c.Value)
		}
		if got := strings.Join(parts, "; "); got != tt.want {
			t.Errorf("cookies for %s = %q, want %q", tt.url, got, tt.want)
		}
	}
	for _, bad := range []string{"a\tb\tc\n", "h\tFALSE\t/\tFALSE\tsoon\tn\tv\n", "\tFALSE\t/\tFALSE\t0\tn\tv\n"} {
		if err := LoadCookies(NewJar(), strings.NewReader(bad), "bad.txt"); err == nil || !strings.Contains(err.Error(), "bad.txt: line 1") {
			t.Errorf("LoadCookies(%q) = %v, want a line-1 error", bad, err)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		v    string
		want time.Duration
		ok   bool
	}{
		{"120", 120 * time.Second, true},
		{" 0 ", 0, true},
		{"Tue, 02 Jan 2024 03:04:35 GMT", 30 * time.Second, true},
		{"Tue, 02 Jan 2024 03:00:00 GMT", 0, true},
		{"soon", 0, false},
		{"-5", 0, false},
	}
	for _, tt := range tests {
		d, ok := parseRetryAfter(tt.v, now)
		if d != tt.want || ok != tt.ok {
			t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, %v", tt.v, d, ok, tt.want, tt.ok)
		}
	}
}
