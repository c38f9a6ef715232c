package crawl

import (
	"net/url"
	"strings"
	"testing"
)

func TestStripUserinfo(t *testing.T) {
	tests := []struct{ in, clean, user, pass string }{
		{"http://u:p@h/x", "http://h/x", "u", "p"},
		{"http://u:p%40ss@h:8080/x?a=b@c", "http://h:8080/x?a=b@c", "u", "p@ss"},
		{"https://u@h", "https://h", "u", ""},
		{"http://a:b@c@h/", "http://h/", "a", "b@c"},
		{"http://h/x@y", "http://h/x@y", "", ""},
		{"h/x", "h/x", "", ""},
	}
	for _, tt := range tests {
		clean, c, ok := StripUserinfo(tt.in)
		if clean != tt.clean || c.User != tt.user || c.Password != tt.pass || ok != (tt.user != "") {
			t.Errorf("StripUserinfo(%q) = %q, %+v, %v", tt.in, clean, c, ok)
		}
	}
	// a canonical URL never keeps a userinfo
	if s, _ := Canonicalize("http://u:p@Example.com:80/a"); s != "http://example.com/a" {
		t.Errorf("Canonicalize kept the userinfo: %s", s)
	}
	for raw, want := range map[string]string{"http://H:80/": "http://h:80", "http://h/": "http://h:80", "https://h/": "https://h:443", "http://[::1]:8/": "http://::1:8"} {
		u, _ := url.Parse(raw)
		if got := Origin(u); got != want {
			t.Errorf("Origin(%s) = %s, want %s", raw, got, want)
		}
	}
}

func TestNetrc(t *testing.T) {
	const file = `# comment
machine a.example login al password "p w\"x"
macdef init
cd /pub
bin

machine b.example
	login bob
	password bpw account acc
machine b.example login carl password cpw
default login anon password apw
`
	n, err := ParseNetrc(strings.NewReader(file), "netrc")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		host, user, wantUser, wantPass string
		ok                             bool
	}{
		{"a.example", "", "al", `p w"x`, true},
		{"A.EXAMPLE", "", "al", `p w"x`, true},
		{"b.example", "", "bob", "bpw", true},
		{"b.example", "carl", "carl", "cpw", true},
		{"c.example", "", "anon", "apw", true},
	} {
		c, ok := n.Lookup(tt.host, tt.user)
		if ok != tt.ok || c.User != tt.wantUser || c.Password != tt.wantPass {
			t.Errorf("Lookup(%s, %s) = %+v, %v", tt.host, tt.user, c, ok)
		}
	}
	n, _ = ParseNetrc(strings.NewReader("machine x login y password z"), "netrc")
	if _, ok := n.Lookup("other", ""); ok {
		t.Error("no default entry, yet a credential for another host")
	}
	for _, bad := range []string{"login x", "machine", "machine x password", "machine x login y secretword z", `machine x password "abc`} {
		_, err := ParseNetrc(strings.NewReader(bad), "f.netrc")
		if err == nil || !strings.HasPrefix(err.Error(), "f.netrc: line 1: ") || strings.Contains(err.Error(), "secretword") {
			t.Errorf("ParseNetrc(%q): %v", bad, err)
		}
	}
}
