package links

import (
	"net"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/arcport/arcport/lib/internal/ascii"
)

// Resolve resolves a link value against base as a browser would (WHATWG URL
// parsing for http and https, chapter 4.2.1's tolerance list):
//
//   - leading and trailing spaces and control characters are dropped, and
//     tabs, CR and LF anywhere inside (an "unexpected carriage return");
//   - backslashes count as slashes before the query;
//   - "http:page.html" with an http base is relative ("protocol in URL, but
//     no host"), "//host/x" takes the base's scheme;
//   - spaces, quotes, non-ASCII bytes and lone '%' are percent-encoded; in a
//     value that is not UTF-8 (a legacy page), the path's bytes are read as
//     Latin-1 and sent as UTF-8 while the query keeps its bytes, as browsers
//     do for a windows-1252 page;
//   - escapes of unreserved characters are decoded ("page%32.html" is
//     "page2.html", RFC 3986 6.2.2.2) and the others upper-cased, so that
//     equivalent spellings give one URL;
//   - dot segments are removed, scheme and host lower-cased, default ports
//     dropped, an empty path becomes "/".
//
// It returns the absolute URL without fragment, the fragment ("#..." or ""),
// and ok=false for values that are empty, fragment-only, not http(s)
// (mailto:, javascript:, data:, ftp:, ...) or unparsable.
func Resolve(base *url.URL, ref string) (abs, fragment string, ok bool) {
	ref = cleanValue(ref)
	if ref == "" || ref[0] == '#' {
		return "", "", false
	}
	if i := strings.IndexByte(ref, '#'); i >= 0 {
		ref, fragment = ref[:i], ref[i:]
	}
	if scheme, rest, has := splitScheme(ref); has {
		scheme = strings.ToLower(scheme)
		if scheme != "http" && scheme != "https" {
			return "", "", false
		}
		rest = backslashes(rest)
		switch {
		case base != nil && strings.EqualFold(base.Scheme, scheme) && !strings.HasPrefix(rest, "//"):
			ref = rest // relative: "http:page2.html"
		case !strings.HasPrefix(rest, "//"):
			ref = scheme + "://" + strings.TrimLeft(rest, "/")
		default:
			ref = scheme + ":" + rest
		}
	} else {
		ref = backslashes(ref)
	}
	if base == nil && !strings.Contains(ref, "://") {
		return "", "", false
	}
	u, err := url.Parse(normalizePct(escapeRef(ref)))
	if err != nil {
		return "", "", false
	}
	if base != nil {
		u = base.ResolveReference(u)
	} else {
		u = u.ResolveReference(u) // removes dot segments
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.Opaque != "" {
		return "", "", false
	}
	u.Host = canonicalHost(u.Scheme, u.Host)
	if u.Host == "" {
		return "", "", false
	}
	u.Fragment, u.RawFragment = "", ""
	if u.Path == "" {
		u.Path, u.RawPath = "/", ""
	}
	return u.String(), fragment, true
}

// cleanValue strips leading/trailing C0 controls and spaces and removes tab,
// CR and LF everywhere.
func cleanValue(s string) string {
	i, j := 0, len(s)
	for i < j && s[i] <= ' ' {
		i++
	}
	for j > i && s[j-1] <= ' ' {
		j--
	}
	s = s[i:j]
	if strings.ContainsAny(s, "\t\r\n") {
		s = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\r' || r == '\n' {
				return -1
			}
			return r
		}, s)
	}
	return s
}

// splitScheme splits "scheme:rest" when s starts with a URL scheme.
func splitScheme(s string) (scheme, rest string, ok bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.':
			if i == 0 {
				return "", "", false
			}
		case c == ':':
			if i == 0 {
				return "", "", false
			}
			return s[:i], s[i+1:], true
		default:
			return "", "", false
		}
	}
	return "", "", false
}

// backslashes turns '\' into '/' before the query, as browsers do for http.
func backslashes(s string) string {
	end := strings.IndexByte(s, '?')
	if end < 0 {
		end = len(s)
	}
	if !strings.Contains(s[:end], `\`) {
		return s
	}
	return strings.ReplaceAll(s[:end], `\`, "/") + s[end:]
}

// escapeRef percent-encodes what url.Parse would refuse or a browser would
// encode: controls, space, non-ASCII, "<>`{}|^ and '%' not starting an escape.
func escapeRef(s string) string {
	if !utf8.ValidString(s) {
		// legacy page: a browser decodes it (windows-1252 by default) and
		// sends the path in UTF-8 but the query in the page's encoding, so
		// the path's bytes are read as Latin-1 and the query's kept as they
		// are (percent-encoded below)
		path, query, hasQuery := strings.Cut(s, "?")
		var b strings.Builder
		for i := 0; i < len(path); i++ {
			if path[i] < utf8.RuneSelf {
				b.WriteByte(path[i])
			} else {
				b.WriteRune(rune(path[i]))
			}
		}
		if hasQuery {
			b.WriteByte('?')
			b.WriteString(query)
		}
		s = b.String()
	}
	need := false
	for i := 0; i < len(s) && !need; i++ {
		need = refNeedsEscape(s, i)
	}
	if !need {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	// keep the authority's '[' ']' (IPv6) and the rest as is
	for i := 0; i < len(s); i++ {
		c := s[i]
		if refNeedsEscape(s, i) {
			b.WriteByte('%')
			b.WriteByte("0123456789ABCDEF"[c>>4])
			b.WriteByte("0123456789ABCDEF"[c&15])
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

func refNeedsEscape(s string, i int) bool {
	c := s[i]
	switch {
	case c <= ' ' || c >= 0x7f:
		return true
	case c == '"' || c == '<' || c == '>' || c == '`' || c == '{' || c == '}' || c == '|' || c == '^':
		return true
	case c == '%':
		return i+2 >= len(s) || !ascii.IsHex(s[i+1]) || !ascii.IsHex(s[i+2])
	}
	return false
}

// canonicalHost lower-cases the host and drops the scheme's default port;
// it returns "" for an invalid port.
func canonicalHost(scheme, host string) string {
	host = strings.ToLower(host)
	h, port, err := net.SplitHostPort(host)
	if err != nil {
		// no port
		return host
	}
	if port == "" {
		port = defaultPort(scheme)
	}
	for i := 0; i < len(port); i++ {
		if port[i] < '0' || port[i] > '9' {
			return ""
		}
	}
	port = strings.TrimLeft(port, "0")
	if port == "" || len(port) > 5 || len(port) == 5 && port > "65535" {
		return ""
	}
	if strings.Contains(h, ":") {
		h = "[" + h + "]"
	}
	if port == defaultPort(scheme) {
		return h
	}
	return h + ":" + port
}

func defaultPort(scheme string) string {
	if scheme == "https" {
		return "443"
	}
	return "80"
}

// normalizePct decodes percent-escapes of unreserved characters and
// upper-cases the hex digits of the others (RFC 3986 6.2.2.1-2).
func normalizePct(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '%' || i+2 >= len(s) || !ascii.IsHex(s[i+1]) || !ascii.IsHex(s[i+2]) {
			b.WriteByte(c)
			continue
		}
		d := ascii.Unhex(s[i+1])<<4 | ascii.Unhex(s[i+2])
		if isUnreserved(d) {
			b.WriteByte(d)
		} else {
			b.WriteByte('%')
			b.WriteByte(upperHex(s[i+1]))
			b.WriteByte(upperHex(s[i+2]))
		}
		i += 2
	}
	return b.String()
}

func isUnreserved(c byte) bool {
	return isAlnum(c) || c == '-' || c == '.' || c == '_' || c == '~'
}

func upperHex(c byte) byte {
	if 'a' <= c && c <= 'f' {
		return c - 'a' + 'A'
	}
	return c
}
