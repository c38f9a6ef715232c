package htcache

import (
	"strings"

	"github.com/arcport/arcport/lib/internal/ascii"
)

// URI returns the URL name (raw bytes as HTTrack stores them: UTF-8 or other
// bytes, spaces, and so on) as an RFC 3986 URI: every byte outside the
// unreserved and reserved sets is percent-encoded with upper-case hex, as is
// a '%' not followed by two hex digits, and '#' (HTTrack drops fragments, so
// a '#' in a name is data). '[' and ']' are kept only in the authority (IPv6
// literals). Existing escapes are kept as they are. A name without a scheme
// gets "http://", as HTTrack's own cache keys imply.
func URI(name string) string {
	if !hasScheme(name) {
		name = "http://" + name
	}
	authEnd := len(name)
	if i := strings.Index(name, "://"); i >= 0 {
		j := strings.IndexAny(name[i+3:], "/?#")
		if j >= 0 {
			authEnd = i + 3 + j
		}
	}
	var b strings.Builder
	b.Grow(len(name) + 16)
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(name); i++ {
		c := name[i]
		keep := false
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
			keep = true
		case strings.IndexByte("-._~:/?@!$&'()*+,;=", c) >= 0:
			keep = true
		case c == '[' || c == ']':
			keep = i < authEnd
		case c == '%':
			keep = i+2 < len(name) && ascii.IsHex(name[i+1]) && ascii.IsHex(name[i+2])
		}
		if keep {
			b.WriteByte(c)
		} else {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

// hasScheme reports whether s starts with "scheme://".
func hasScheme(s string) bool {
	i := strings.Index(s, "://")
	if i <= 0 {
		return false
	}
	for j := 0; j < i; j++ {
		c := s[j]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || j > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return true
}

// unescape decodes %XX escapes (any case); other bytes are kept. It is used
// to match URLs written escaped (new.txt) against raw entry names.
func unescape(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && ascii.IsHex(s[i+1]) && ascii.IsHex(s[i+2]) {
			b.WriteByte(ascii.Unhex(s[i+1])<<4 | ascii.Unhex(s[i+2]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
