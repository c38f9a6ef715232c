package crawl

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/publicsuffix"
)

// NewJar returns an empty cookie jar that knows the public suffix list, so
// that a site cannot set cookies for a whole top-level domain.
func NewJar() http.CookieJar {
	j, _ := cookiejar.New(&cookiejar.Options{PublicSuffixList: publicsuffix.List})
	return j
}

// LoadCookies reads a Netscape cookies.txt file (as written by browsers'
// export add-ons, curl -c and wget --save-cookies) into jar. Each line holds
// seven tab-separated fields: domain, include-subdomains flag, path, secure
// flag, expiry (Unix seconds, 0 for a session cookie), name, value. Lines
// starting with # are comments, except the "#HttpOnly_" prefix curl writes.
// Expired cookies are skipped. name is used in error messages.
func LoadCookies(jar http.CookieJar, r io.Reader, name string) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	line := 0
	now := time.Now()
	for sc.Scan() {
		line++
		s := strings.TrimRight(sc.Text(), "\r")
		httpOnly := false
		if strings.HasPrefix(s, "#HttpOnly_") {
			s = s[len("#HttpOnly_"):]
			httpOnly = true
		}
		if strings.TrimSpace(s) == "" || strings.HasPrefix(s, "#") {
			continue
		}
		f := strings.Split(s, "\t")
		if len(f) == 6 { // empty value, trailing tab dropped by an editor
			f = append(f, "")
		}
		if len(f) != 7 {
			return fmt.Errorf("%s: line %d: want 7 tab-separated fields, got %d", name, line, len(f))
		}
		domain, sub, path, secure, exp, cname, value := f[0], f[1], f[2], f[3], f[4], f[5], f[6]
		expiry, err := strconv.ParseInt(strings.TrimSpace(exp), 10, 64)
		if err != nil {
			return fmt.Errorf("%s: line %d: bad expiry %q", name, line, exp)
		}
		ck := &http.Cookie{Name: cname, Value: value, Path: path, HttpOnly: httpOnly,
			Secure: strings.EqualFold(secure, "TRUE")}
		if expiry > 0 {
			ck.Expires = time.Unix(expiry, 0)
			if ck.Expires.Before(now) {
				continue
			}
		}
		host := strings.TrimPrefix(domain, ".")
		if host == "" {
			return fmt.Errorf("%s: line %d: empty domain", name, line)
		}
		if strings.EqualFold(sub, "TRUE") || strings.HasPrefix(domain, ".") {
			ck.Domain = host
		}
		if path == "" {
			ck.Path = "/"
		}
		scheme := "http"
		if ck.Secure {
			scheme = "https"
		}
		jar.SetCookies(&url.URL{Scheme: scheme, Host: host, Path: ck.Path}, []*http.Cookie{ck})
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: line %d: %w", name, line+1, err)
	}
	return nil
}
