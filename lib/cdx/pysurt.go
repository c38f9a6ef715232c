package cdx

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// PySURT returns the SURT key that Python's surt package (0.3.1, the
// canonicaliser of cdxj-indexer, pywb and py-wacz) computes for url with
// its defaults: surt.surt(url), i.e. handyurl.parse, the Google URL
// canonicaliser (fragment dropped, repeated percent-unescaping, host IDNA
// and IP forms, dot segments, escaping once), then the IA canonicaliser
// (host and path and query lower-cased, "www\d*." dropped, default port
// dropped, session ids stripped, a path's trailing slash dropped, query
// arguments sorted) and the host reversed, without the scheme.
//
// It differs from surt.Key (warcio.js's getSurt, what ReplayWeb.page uses)
// in that every scheme is canonicalised (urn:X -> urn:x, metadata://h/p ->
// h reversed), paths lose a trailing slash and are lower-cased, and
// percent-escapes are normalised the IA way. Where Python surt resolves a
// dotted host that inet_aton rejects through DNS, PySURT keeps it as it is
// (what Python does offline); non-ASCII hosts go through UTS #46
// transitional processing, which matches Python's IDNA 2003 codec for
// ordinary names but not every edge case (TestPySURT lists the 6 of its
// 280 URLs where they part: soft hyphen, ZWNJ, bidi and combining-mark
// labels).
func PySURT(url string) string {
	if url == "" {
		return "-"
	}
	if strings.HasPrefix(url, "filedesc") {
		return url
	}
	h, ok := pyParse([]byte(url))
	if !ok {
		// surt raises (urllib refuses the port); cdxj-indexer then keys
		// the line by the URL itself
		return url
	}
	pyGoogleCanon(h)
	pyIACanon(h)
	return string(h.surt())
}

// pyURL is surt's handyurl: nil fields are Python's None.
type pyURL struct {
	scheme, host, path, query []byte
	port                      int // 0: none
}

var (
	pyMultipleProtocols = regexp.MustCompile(`^(https?://)+`)
	pyHasProtocol       = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+\-.]*:`)
	pyRFC2396           = regexp.MustCompile(`^(([a-zA-Z][a-zA-Z0-9+.-]*):)?((//([^/?#]*))?([^?#]*)(\?([^#]*))?)?(#(.*))?$`)
)

// pyStrip is bytes.strip(): ASCII whitespace at both ends.
func pyStrip(b []byte) []byte {
	return bytes.Trim(b, " \t\n\r\x0b\x0c")
}

func orNil(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}

// pyParse is handyurl.parse; false when Python's urllib raises (a port
// that is not a number from 0 to 65535).
func pyParse(url []byte) (*pyURL, bool) {
	url = pyStrip(url)
	url = bytes.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' {
			return -1
		}
		return r
	}, url)
	if len(url) > 0 && !pyHasProtocol.Match(url) {
		url = append([]byte("http://"), url...)
	}
	if m := pyMultipleProtocols.FindSubmatchIndex(url); m != nil {
		url = append(append([]byte{}, url[m[2]:m[3]]...), url[m[1]:]...)
	}
	m := pyRFC2396.FindSubmatch(url)
	if m == nil {
		return nil, false
	}
	scheme, netloc, path, query := m[2], m[5], m[6], m[8]
	netloc = bytes.TrimRight(netloc, ":")
	// urllib's SplitResultBytes.hostname and .port
	_, hostinfo := lastCut(netloc, '@')
	var host, port []byte
	if i := bytes.IndexByte(hostinfo, '['); i >= 0 {
		br := hostinfo[i+1:]
		j := bytes.IndexByte(br, ']')
		if j < 0 {
			host = br
		} else {
			host = br[:j]
			if k := bytes.IndexByte(br[j+1:], ':'); k >= 0 {
				port = br[j+1+k+1:]
			}
		}
	} else if i := bytes.IndexByte(hostinfo, ':'); i >= 0 {
		host, port = hostinfo[:i], hostinfo[i+1:]
	} else {
		host = hostinfo
	}
	if len(host) > 0 {
		name, zone, hasZone := bytes.Cut(host, []byte("%"))
		host = asciiLower(name)
		if hasZone {
			host = append(append(host, '%'), zone...)
		}
	}
	u := &pyURL{scheme: orNil(scheme), host: orNil(host), path: orNil(path), query: orNil(query)}
	if len(port) > 0 {
		n, err := strconv.Atoi(string(port))
		if err != nil || !isDigits(port) || n > 65535 {
			return nil, false
		}
		u.port = n // 0: none, as Python's "o.port or None"
	}
	if bytes.HasPrefix(u.scheme, []byte("http")) && u.host == nil && u.path != nil {
		p := bytes.TrimLeft(u.path, "/")
		hostPart, rest, _ := bytes.Cut(p, []byte("/"))
		u.host = hostPart
		u.path = append([]byte("/"), rest...)
	}
	return u, true
}

func lastCut(b []byte, c byte) ([]byte, []byte) {
	if i := bytes.LastIndexByte(b, c); i >= 0 {
		return b[:i], b[i+1:]
	}
	return nil, b
}

func isDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

func asciiLower(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

// pyUnquote is urllib.parse.unquote_to_bytes.
func pyUnquote(b []byte) []byte {
	if bytes.IndexByte(b, '%') < 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '%' && i+2 < len(b) && isHex(b[i+1]) && isHex(b[i+2]) {
			v, _ := strconv.ParseUint(string(b[i+1:i+3]), 16, 8)
			out = append(out, byte(v))
			i += 2
			continue
		}
		out = append(out, b[i])
	}
	return out
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// pyUnescapeRepeatedly is GoogleURLCanonicalizer.unescapeRepeatedly.
func pyUnescapeRepeatedly(b []byte) []byte {
	if b == nil {
		return nil
	}
	for {
		un := pyUnquote(b)
		if bytes.Equal(un, b) {
			return b
		}
		b = un
	}
}

// pyEscapeOnce is GoogleURLCanonicalizer.escapeOnce: quote_from_bytes with
// the safe set !"$&'()*+,-./:;<=>?@[\]^_`{|}~ (besides letters, digits and
// "_.-~").
func pyEscapeOnce(b []byte) []byte {
	if len(b) == 0 {
		return b
	}
	const safe = "!\"$&'()*+,-./:;<=>?@[\\]^_`{|}~"
	var out []byte
	for _, c := range b {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(safe, c) >= 0 {
			out = append(out, c)
			continue
		}
		out = append(out, '%', "0123456789ABCDEF"[c>>4], "0123456789ABCDEF"[c&15])
	}
	return out
}

var (
	pyOctalIP   = regexp.MustCompile(`^(0[0-7]*)(\.[0-7]+)?(\.[0-7]+)?(\.[0-7]+)?\n?$`)
	pyDecimalIP = regexp.MustCompile(`^([1-9][0-9]*)(\.[0-9]+)?(\.[0-9]+)?(\.[0-9]+)?\n?$`)
	pyIDNA      = idna.New(idna.MapForLookup(), idna.Transitional(true), idna.StrictDomainName(false), idna.VerifyDNSLength(false))
)

// pyInetAton is glibc's inet_aton, which gethostbyname applies to a
// numeric host: 1 to 4 parts, each decimal, octal (leading 0) or hex (0x),
// the last filling the remaining bytes.
func pyInetAton(s string) (string, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return "", false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		base := 10
		switch {
		case strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X"):
			base, p = 16, p[2:]
			if p == "" {
				p = "0"
			}
		case len(p) > 1 && p[0] == '0':
			base, p = 8, p[1:]
		}
		v, err := strconv.ParseUint(p, base, 32)
		if err != nil {
			return "", false
		}
		vals[i] = v
	}
	var ip uint64
	n := len(vals)
	for i := 0; i < n-1; i++ {
		if vals[i] > 255 {
			return "", false
		}
		ip |= vals[i] << (24 - 8*i)
	}
	if vals[n-1] >= 1<<(8*(5-n)) {
		return "", false
	}
	ip |= vals[n-1]
	return fmt.Sprintf("%d.%d.%d.%d", ip>>24, ip>>16&255, ip>>8&255, ip&255), true
}

// pyAttemptIPFormats is GoogleURLCanonicalizer.attemptIPFormats, offline.
func pyAttemptIPFormats(host []byte) []byte {
	if isDigits(host) {
		v, _ := strconv.ParseUint(string(host), 10, 64)
		if len(host) > 19 { // Python's int is unbounded; & 0xffffffff keeps the low bits
			v = bigLow32(string(host))
		}
		v &= 0xffffffff
		return []byte(fmt.Sprintf("%d.%d.%d.%d", v>>24, v>>16&255, v>>8&255, v&255))
	}
	if pyDecimalIP.Match(host) || pyOctalIP.Match(host) {
		if ip, ok := pyInetAton(strings.TrimSuffix(string(host), "\n")); ok {
			return []byte(ip)
		}
	}
	return nil
}

// bigLow32 is int(s) & 0xffffffff for a decimal string of any length.
func bigLow32(s string) uint64 {
	var v uint64
	for _, c := range s {
		v = (v*10 + uint64(c-'0')) & 0xffffffff
	}
	return v
}

// pyNormalizePath is GoogleURLCanonicalizer.normalizePath.
func pyNormalizePath(path []byte) []byte {
	if len(path) == 0 {
		return []byte("/")
	}
	parts := bytes.Split(path, []byte("/"))
	var kept [][]byte
	for _, p := range parts[1:] {
		switch string(p) {
		case ".":
		case "..":
			if len(kept) > 0 {
				kept = kept[:len(kept)-1]
			} else {
				kept = append(kept, p)
			}
		default:
			kept = append(kept, p)
		}
	}
	out := []byte("/")
	for i, p := range kept {
		if i < len(kept)-1 {
			if len(p) > 0 {
				out = append(append(out, p...), '/')
			}
		} else {
			out = append(out, p...)
		}
	}
	return out
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// pyGoogleCanon is GoogleURLCanonicalizer.canonicalize.
func pyGoogleCanon(u *pyURL) {
	if len(u.query) > 0 {
		u.query = pyEscapeOnce(pyUnescapeRepeatedly(u.query))
	}
	if len(u.host) > 0 {
		host := pyUnescapeRepeatedly(u.host)
		if !isASCII(host) {
			s := strings.ToValidUTF8(string(host), "")
			if a, err := pyIDNA.ToASCII(s); err == nil {
				host = []byte(a)
			}
		}
		host = bytes.ReplaceAll(host, []byte(".."), []byte(".")) // one pass, as Python's replace
		host = bytes.Trim(host, ".")
		if ip := pyAttemptIPFormats(host); ip != nil {
			host = ip
		} else {
			host = pyEscapeOnce(asciiLower(host))
		}
		u.host = host
	}
	path := pyUnescapeRepeatedly(u.path)
	if len(u.host) > 0 {
		path = pyNormalizePath(path)
	}
	u.path = pyEscapeOnce(path)
}

var (
	pyWWWDigits    = regexp.MustCompile(`^www\d*\.`)
	pyPathSession  = []*regexp.Regexp{regexp.MustCompile(`(?i)^(.*/)(\((?:[a-z]\([0-9a-z]{24}\))+\)/)([^?]+\.aspx.*)$`), regexp.MustCompile(`(?i)^(.*/)(\([0-9a-z]{24}\)/)([^?]+\.aspx.*)$`)}
	pyQuerySession = []*regexp.Regexp{
		regexp.MustCompile(`(?i)^(.*)(?:jsessionid=[0-9a-zA-Z]{32})(?:&(.*))?$`),
		regexp.MustCompile(`(?i)^(.*)(?:phpsessid=[0-9a-zA-Z]{32})(?:&(.*))?$`),
		regexp.MustCompile(`(?i)^(.*)(?:sid=[0-9a-zA-Z]{32})(?:&(.*))?$`),
		regexp.MustCompile(`(?i)^(.*)(?:ASPSESSIONID[a-zA-Z]{8}=[a-zA-Z]{24})(?:&(.*))?$`),
		regexp.MustCompile(`(?i)^(.*)(?:cfid=[^&]+&cftoken=[^&]+)(?:&(.*))?$`),
	}
)

// pyIACanon is IAURLCanonicalizer.canonicalize with its defaults.
func pyIACanon(u *pyURL) {
	if len(u.host) > 0 {
		u.host = asciiLower(u.host)
		if string(u.scheme) != "dns" {
			if m := pyWWWDigits.FindIndex(u.host); m != nil {
				u.host = u.host[m[1]:]
			}
		}
	}
	if u.scheme != nil {
		def := 0
		switch string(asciiLower(u.scheme)) {
		case "http":
			def = 80
		case "https":
			def = 443
		}
		if u.port == def {
			u.port = 0
		}
	}
	if path := u.path; len(path) > 0 {
		path = asciiLower(path)
		for _, re := range pyPathSession {
			if m := re.FindSubmatch(path); m != nil {
				path = append(append([]byte{}, m[1]...), m[3]...)
			}
		}
		if len(path) > 1 && path[len(path)-1] == '/' {
			path = path[:len(path)-1]
		}
		u.path = path
	}
	if q := u.query; len(q) > 0 {
		for _, re := range pyQuerySession {
			if m := re.FindSubmatch(q); m != nil {
				if len(m[2]) > 0 {
					q = append(append([]byte{}, m[1]...), m[2]...)
				} else {
					q = append([]byte{}, m[1]...)
				}
			}
		}
		q = pyAlphaReorder(asciiLower(q))
		u.query = orNil(q)
	}
}

// pyAlphaReorder is IAURLCanonicalizer.alphaReorderQuery: arguments split
// on "&", sorted as Python sorts (key, value) tuples of bytes.
func pyAlphaReorder(q []byte) []byte {
	if len(q) <= 1 {
		return q
	}
	type kv struct {
		k, v  []byte
		hasEq bool
	}
	var args []kv
	for _, a := range bytes.Split(q, []byte("&")) {
		k, v, ok := bytes.Cut(a, []byte("="))
		args = append(args, kv{k, v, ok})
	}
	sort.SliceStable(args, func(i, j int) bool {
		if c := bytes.Compare(args[i].k, args[j].k); c != 0 {
			return c < 0
		}
		if args[i].hasEq != args[j].hasEq {
			return !args[i].hasEq
		}
		return bytes.Compare(args[i].v, args[j].v) < 0
	})
	var out []byte
	for i, a := range args {
		if i > 0 {
			out = append(out, '&')
		}
		out = append(out, a.k...)
		if a.hasEq {
			out = append(append(out, '='), a.v...)
		}
	}
	return out
}

// surt is handyurl.geturl_bytes(surt=True, with_scheme=False).
func (u *pyURL) surt() []byte {
	var s []byte
	if len(u.host) == 0 {
		s = append(append(s, u.scheme...), ':')
	} else {
		parts := bytes.Split(u.host, []byte("."))
		for i := len(parts) - 1; i >= 0; i-- {
			s = append(s, parts[i]...)
			if i > 0 {
				s = append(s, ',')
			}
		}
		if u.port != 0 {
			s = append(s, fmt.Sprintf(":%d", u.port)...)
		}
		s = append(s, ')')
	}
	if len(u.path) > 0 {
		s = append(s, u.path...)
	} else if u.query != nil {
		s = append(s, '/')
	}
	if u.query != nil {
		s = append(append(s, '?'), u.query...)
	}
	return s
}
