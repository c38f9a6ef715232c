package crawl

import (
	"errors"
	"net"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/idna"

	"github.com/arcport/arcport/lib/internal/ascii"
)

// ErrNotHTTP is returned by Canonicalize for URLs that are not absolute
// http or https URLs with a host.
var ErrNotHTTP = errors.New("not an absolute http(s) URL")

// Canonicalize returns the canonical form of an absolute http or https URL,
// the form the frontier uses to detect duplicates:
//
//   - scheme and host lower case, international host names in punycode,
//     the default port (80 for http, 443 for https) and an empty port removed;
//   - an empty path becomes "/", dot segments are removed (RFC 3986 5.2.4);
//   - percent-encoding normalised (RFC 3986 6.2.2): escapes of unreserved
//     characters decoded, other escapes upper-cased, a lone '%' written %25,
//     spaces, controls, non-ASCII bytes and characters not allowed in a URL
//     escaped;
//   - an empty query ("?"), the fragment and the userinfo ("user:pass@")
//     dropped: credentials are never part of a URL kept or recorded (see
//     Config.Auth).
//
// Reserved characters ("/", "?", "&", "=", "+", ...) are left as they are,
// since servers may give them meaning whether escaped or not.
func Canonicalize(raw string) (string, error) {
	u, err := CanonicalURL(raw)
	if err != nil {
		return "", err
	}
	return u.String(), nil
}

// CanonicalURL is Canonicalize returning a *url.URL whose String method
// gives the canonical form.
func CanonicalURL(raw string) (*url.URL, error) {
	s := strings.TrimSpace(raw)
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = s[:i]
	}
	u, err := url.Parse(escapeLoose(s))
	if err != nil {
		return nil, err
	}
	return canonical(u)
}

// canonical normalises a parsed absolute URL in place and returns it.
func canonical(u *url.URL) (*url.URL, error) {
	u.Scheme = strings.ToLower(u.Scheme)
	if (u.Scheme != "http" && u.Scheme != "https") || u.Opaque != "" || u.Host == "" {
		return nil, ErrNotHTTP
	}
	host, err := canonicalHost(u.Scheme, u.Host)
	if err != nil {
		return nil, err
	}
	u.Host = host
	u.User = nil // credentials are never part of a URL kept or recorded
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	p = removeDotSegments(normPct(p, pathKeep))
	setRawPath(u, p)
	if u.RawQuery != "" {
		u.RawQuery = normPct(u.RawQuery, queryKeep)
	}
	u.ForceQuery = false
	u.Fragment, u.RawFragment = "", ""
	return u, nil
}

// setRawPath stores an escaped path in u so that u.EscapedPath returns it
// unchanged.
func setRawPath(u *url.URL, escaped string) {
	dec, err := url.PathUnescape(escaped)
	if err != nil {
		dec = escaped
	}
	u.Path = dec
	u.RawPath = escaped
	if u.EscapedPath() != escaped {
		// cannot happen for normPct output, which only holds characters
		// url accepts in a raw path; keep the decoded form then
		u.RawPath = ""
	}
}

func canonicalHost(scheme, hostport string) (string, error) {
	host, port := hostport, ""
	if i := strings.LastIndexByte(hostport, ':'); i >= 0 && !strings.Contains(hostport[i:], "]") {
		host, port = hostport[:i], hostport[i+1:]
	}
	if strings.HasPrefix(host, "[") {
		if !strings.HasSuffix(host, "]") {
			return "", errors.New("bad IPv6 host " + hostport)
		}
		ip := net.ParseIP(host[1 : len(host)-1])
		if ip == nil {
			return "", errors.New("bad IPv6 host " + hostport)
		}
		host = "[" + ip.String() + "]"
	} else {
		h, err := url.PathUnescape(host)
		if err != nil {
			return "", err
		}
		h = strings.TrimRight(strings.ToLower(h), ".")
		if h == "" {
			return "", ErrNotHTTP
		}
		if needsIDNA(h) {
			a, err := idna.Lookup.ToASCII(h)
			if err != nil {
				return "", err
			}
			h = a
		}
		for i := 0; i < len(h); i++ {
			c := h[i]
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_') {
				return "", errors.New("bad host name " + strconv.Quote(h))
			}
		}
		host = h
	}
	for i := 0; i < len(port); i++ {
		if port[i] < '0' || port[i] > '9' {
			return "", errors.New("bad port in " + hostport)
		}
	}
	port = strings.TrimLeft(port, "0")
	if port == "" || (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		return host, nil
	}
	return host + ":" + port, nil
}

func needsIDNA(h string) bool {
	for i := 0; i < len(h); i++ {
		if h[i] >= 0x80 {
			return true
		}
	}
	return strings.Contains(h, "xn--")
}

const upperHex = "0123456789ABCDEF"

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

// pathKeep and queryKeep list the reserved and other characters left as
// they are in a path or a query.
const (
	pathKeep  = "!$&'()*+,;=:@/"
	queryKeep = "!$&'()*+,;=:@/?"
)

// normPct normalises percent-encoding: escapes of unreserved characters are
// decoded, other escapes upper-cased, and bytes that are neither unreserved
// nor in keep are escaped (including a '%' that starts no valid escape).
func normPct(s, keep string) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && ascii.IsHex(s[i+1]) && ascii.IsHex(s[i+2]):
			v := ascii.Unhex(s[i+1])<<4 | ascii.Unhex(s[i+2])
			if isUnreserved(v) {
				b.WriteByte(v)
			} else {
				b.WriteByte('%')
				b.WriteByte(upperHex[v>>4])
				b.WriteByte(upperHex[v&15])
			}
			i += 2
		case isUnreserved(c) || (c != '%' && strings.IndexByte(keep, c) >= 0):
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(upperHex[c>>4])
			b.WriteByte(upperHex[c&15])
		}
	}
	return b.String()
}

// escapeLoose escapes what url.Parse refuses but browsers accept: spaces,
// control characters, non-ASCII bytes and '%' not followed by two hex
// digits. The host is left alone (international names are handled later).
func escapeLoose(s string) string {
	need := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || c == '"' || c == '<' || c == '>' || c == '\\' || c == '^' || c == '`' || c == '{' || c == '|' || c == '}' ||
			(c == '%' && !(i+2 < len(s) && ascii.IsHex(s[i+1]) && ascii.IsHex(s[i+2]))) {
			need = true
			break
		}
	}
	if !need {
		return s
	}
	// find where the authority ends so that the host keeps its raw bytes
	start := 0
	if i := strings.Index(s, "://"); i >= 0 {
		start = i + 3
		if j := strings.IndexAny(s[start:], "/?"); j >= 0 {
			start += j
		} else {
			start = len(s)
		}
	}
	var b strings.Builder
	b.WriteString(s[:start])
	for i := start; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || c == '"' || c == '<' || c == '>' || c == '\\' || c == '^' || c == '`' || c == '{' || c == '|' || c == '}' ||
			(c == '%' && !(i+2 < len(s) && ascii.IsHex(s[i+1]) && ascii.IsHex(s[i+2]))) {
			b.WriteByte('%')
			b.WriteByte(upperHex[c>>4])
			b.WriteByte(upperHex[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// removeDotSegments implements RFC 3986 section 5.2.4 on an escaped path.
func removeDotSegments(p string) string {
	if !strings.Contains(p, ".") {
		return p
	}
	in := p
	var out []string
	// Work segment by segment: split keeps empty segments ("a//b").
	segs := strings.Split(in, "/")
	abs := strings.HasPrefix(in, "/")
	if abs {
		segs = segs[1:]
	}
	for i, s := range segs {
		last := i == len(segs)-1
		switch s {
		case ".":
			if last {
				out = append(out, "")
			}
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, s)
		}
	}
	r := strings.Join(out, "/")
	if abs {
		r = "/" + r
	}
	if r == "" {
		r = "/"
	}
	return r
}
