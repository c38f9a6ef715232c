package access

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/cdx"
)

// aclDir holds pywb's own .aclj files (shared with lib/replay's tests).
const aclDir = "../testdata/pywb-access"

// exactKey is lib/replay's aclKey of a URL without "*": Python's surt of
// the URL (http:// added when it has no scheme, as the server adds it).
func exactKey(u string) string {
	if !strings.Contains(u, "://") {
		u = "http://" + u
	}
	return cdx.PySURT(u)
}

// TestACLFindRule: pywb/warcserver/test/test_access.py's expectations of
// find_access_rule on pywb's own .aclj files.
func TestACLFindRule(t *testing.T) {
	type c struct{ url, key, access string }
	for _, tc := range []struct {
		files []string
		def   string
		cases []c
	}{
		{[]string{"allows.aclj"}, "block", []c{
			{"http://example.net", "net,", "allow"},
			{"http://foo.example.net/abc", "net,", "allow"},
			{"https://example.net/test/", "net,example)/test", "allow"},
			{"https://example.org/", "", "block"},
			{"https://abc.domain.net/path", "net,domain,", "allow"},
			{"https://domain.neta/path", "", "block"},
		}},
		{[]string{"blocks.aclj"}, "allow", []c{
			{"https://example.com/foo", "com,example)/foo", "exclude"},
			{"https://example.com/food", "com,example)/foo", "exclude"},
			{"https://example.com/foo/path", "com,example)/foo", "exclude"},
			{"https://example.net/abc/path", "net,example)/abc/path", "block"},
			{"https://example.net/abc/path/other", "net,example)/abc/path", "block"},
			{"https://example.net/fo", "", "allow"},
		}},
		{[]string{"list1.aclj"}, "block", []c{
			{"http://example.com/abc/page.html", "com,example)/abc/page.html", "allow"},
			{"http://example.com/abc/page.htm", "com,example)/abc", "block"},
			{"http://example.com/abc/", "com,example)/abc", "block"},
			{"http://foo.example.com/", "com,example,", "exclude"},
			{"http://example.com/", "com,", "allow"},
			{"foo.net", "", "block"},
			{"https://example.net/abc/path/other", "", "block"},
		}},
		{[]string{""}, "block", []c{ // the folder
			{"http://example.com/", "com,example)/", "allow"},
			{"http://example.bo", "bo,example)/", "exclude"},
			{"https://example.com/foo/path", "com,example)/foo", "exclude"},
			{"https://example.net/abc/path/other", "net,example)/abc/path", "block"},
			{"https://www.iana.org/", "org,iana)/###", "allow"},
			{"https://www.iana.org/any/other", "org,iana)/", "exclude"},
			{"https://www.iana.org/x", "org,iana)/", "exclude"},
			{"https://www.iana.org/exact/match/first/line/aclj/", "org,iana)/exact/match/first/line/aclj###", "allow"},
			{"https://www.lonesome-rule.org/", "org,lonesome-rule)/###", "allow"},
		}},
	} {
		var paths []string
		for _, f := range tc.files {
			paths = append(paths, filepath.Join(aclDir, f))
		}
		a, err := ACL(tc.def, nil, paths...)
		if err != nil {
			t.Fatal(err)
		}
		for _, cs := range tc.cases {
			r := a.Rule(exactKey(cs.url), User{})
			key, access := "", tc.def
			if r != nil {
				key, access = r.key, r.access
			}
			if key != cs.key || access != cs.access {
				t.Errorf("%v %s: rule %q %s, want %q %s", tc.files, cs.url, key, access, cs.key, cs.access)
			}
		}
	}
}

// TestRelDelta: dateutil's datetime - relativedelta.
func TestRelDelta(t *testing.T) {
	at := func(s string) time.Time { tt, _ := time.Parse("2006-01-02", s); return tt }
	for _, c := range []struct {
		d          relDelta
		from, want string
	}{
		{relDelta{months: 1}, "2024-03-31", "2024-02-29"},
		{relDelta{years: 1}, "2024-02-29", "2023-02-28"},
		{relDelta{years: 1, months: 6}, "2026-11-27", "2025-05-27"},
		{relDelta{months: 13, days: 3}, "2026-01-02", "2024-11-29"},
	} {
		if got := c.d.before(at(c.from)); !got.Equal(at(c.want)) {
			t.Errorf("%s - %+v = %s, want %s", c.from, c.d, got.Format("2006-01-02"), c.want)
		}
	}
}

// FuzzACLLine: any line is read or refused, never a panic; a rule read
// is found again by its own key.
func FuzzACLLine(f *testing.F) {
	for _, s := range []string{`org,iana)/ - {"access": "allow"}`, `com,example)/?example=1 - {"access": "allow_ignore_embargo", "user": "staff2"}`,
		`org,iana)/ - {"access": "allow", "newer": {"years": 1, "months": 6}}`, `*, - {"access": "allow", "user": 3}`, `a - {"before": 2014}`, `x - [`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		r, err := parseACLLine(line)
		if err != nil {
			return
		}
		a := &ruleSet{rules: []*Rule{r}, users: map[string]bool{}}
		_ = a.find(r.key, User{})
		acc := &Access{rules: a, Default: "allow"}
		_ = acc.Decide(r, "20140126200624", time.Now())
	})
}

// FuzzEmbargo: any --embargo value is read or refused.
func FuzzEmbargo(f *testing.F) {
	for _, s := range []string{"before=2014012700", "older=1y6m", "newer=2w,access=block", "after=", "older=99999999999y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if e, err := ParseEmbargo(s); err == nil {
			e.check(time.Now(), time.Now())
		}
	})
}
