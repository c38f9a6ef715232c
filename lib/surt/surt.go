package surt

import (
	"sort"
	"strings"
)

// Key returns the SURT key of url as warcio.js getSurt computes it, e.g.
// "http://www.Example.com:8080/a/../b?z=1&a=2#f" gives
// "com,example:8080)/b?a=2&z=1". URLs that are not http(s), and http(s)
// URLs the WHATWG parser rejects, are returned unchanged (after the "www."
// removal for the latter), as warcio.js does. Invalid UTF-8 in url is read
// as a WHATWG UTF-8 decoder reads it (U+FFFD per maximal invalid subpart).
func Key(url string) string {
	if !strings.HasPrefix(url, "https:") && !strings.HasPrefix(url, "http:") {
		return url
	}
	url = ValidUTF8(url)
	url = stripWWW(url)
	u, ok := parseSpecial(jsToLower(url))
	if !ok {
		return url
	}
	var b strings.Builder
	b.Grow(len(u.host) + len(u.path) + len(u.query) + 8)
	// hostname.split(".").reverse().join(",")
	host := u.host
	for {
		i := strings.LastIndexByte(host, '.')
		if i < 0 {
			b.WriteString(host)
			break
		}
		b.WriteString(host[i+1:])
		b.WriteByte(',')
		host = host[:i]
	}
	if u.port != "" {
		b.WriteByte(':')
		b.WriteString(u.port)
	}
	b.WriteByte(')')
	b.WriteString(u.path)
	if u.query != "" {
		args := strings.Split(u.query, "&")
		// JavaScript's default sort compares UTF-16 code units; the query
		// is ASCII after percent-encoding, so byte order is the same.
		sort.Strings(args)
		b.WriteByte('?')
		b.WriteString(strings.Join(args, "&"))
	}
	return b.String()
}

// stripWWW applies url.replace(/^(https?:\/\/)www\d*\./, "$1").
func stripWWW(url string) string {
	var i int
	switch {
	case strings.HasPrefix(url, "http://"):
		i = len("http://")
	case strings.HasPrefix(url, "https://"):
		i = len("https://")
	default:
		return url
	}
	if !strings.HasPrefix(url[i:], "www") {
		return url
	}
	j := i + 3
	for j < len(url) && url[j] >= '0' && url[j] <= '9' {
		j++
	}
	if j < len(url) && url[j] == '.' {
		return url[:i] + url[j+1:]
	}
	return url
}
