package surt

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/arcport/arcport/lib/internal/ascii"
)

// parsed holds the parts of a special (http/https) URL that a SURT key uses,
// serialised as the WHATWG URL API returns them.
type parsed struct {
	host  string // URL.hostname
	port  string // URL.port ("" for the default port)
	path  string // URL.pathname
	query string // URL.search without its "?"
}

// parseSpecial parses an http: or https: URL with the WHATWG basic URL
// parser (no base, no state override). s must start with "http:" or
// "https:" and be valid UTF-8.
func parseSpecial(s string) (parsed, bool) {
	var u parsed
	// Strip leading/trailing C0 control or space; remove ASCII tab/newline.
	s = strings.TrimRight(s, "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ")
	if strings.ContainsAny(s, "\t\n\r") {
		s = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(s)
	}
	colon := strings.IndexByte(s, ':')
	scheme := s[:colon]
	rest := s[colon+1:]
	defPort := "80"
	if scheme == "https" {
		defPort = "443"
	}
	// special authority (ignore) slashes state
	for len(rest) > 0 && (rest[0] == '/' || rest[0] == '\\') {
		rest = rest[1:]
	}
	end := strings.IndexAny(rest, "/\\?#")
	if end < 0 {
		end = len(rest)
	}
	auth := rest[:end]
	rest = rest[end:]
	if at := strings.LastIndexByte(auth, '@'); at >= 0 {
		auth = auth[at+1:]
		if auth == "" {
			return u, false // host-missing
		}
	}
	// host state: split host and port at the first ':' outside brackets.
	hostStr, portStr, hasPort := auth, "", false
	inBr := false
	for i := 0; i < len(auth); i++ {
		switch auth[i] {
		case '[':
			inBr = true
		case ']':
			inBr = false
		case ':':
			if !inBr {
				hostStr, portStr, hasPort = auth[:i], auth[i+1:], true
				i = len(auth)
			}
		}
	}
	if hostStr == "" {
		return u, false
	}
	host, ok := parseHost(hostStr)
	if !ok {
		return u, false
	}
	u.host = host
	if hasPort && portStr != "" {
		for i := 0; i < len(portStr); i++ {
			if portStr[i] < '0' || portStr[i] > '9' {
				return u, false
			}
		}
		p := strings.TrimLeft(portStr, "0")
		if len(p) > 5 {
			return u, false
		}
		n := 0
		if p != "" {
			n, _ = strconv.Atoi(p)
		}
		if n > 65535 {
			return u, false
		}
		if p = strconv.Itoa(n); p != defPort {
			u.port = p
		}
	}
	// path start state + path state.
	var query string
	hasQuery := false
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		query, hasQuery = rest[i+1:], true
		rest = rest[:i]
	}
	u.path = parsePath(rest)
	if hasQuery {
		u.query = percentEncode(query, isSpecialQuerySet)
	}
	return u, true
}

// parsePath runs the WHATWG path start and path states over p (which holds
// no '?' or '#') for a special, non-file URL and returns URL.pathname.
//
// It reproduces a shortcut of ada 2.9 (Node 20's URL parser): a path whose
// only special characters are dots is taken as it is when its first "/."
// is not followed by ".", "/" or the end, so later dot segments stay
// ("/a/.x/.." keeps its "..").
func parsePath(p string) string {
	if len(p) > 0 && (p[0] == '/' || p[0] == '\\') {
		p = p[1:]
	}
	sig := pathSignature(p)
	trivial := sig == 0
	if sig == sigDot && p[0] != '.' {
		i := strings.Index(p, "/.")
		trivial = i < 0 || !(i+2 == len(p) || p[i+2] == '.' || p[i+2] == '/')
	}
	if trivial {
		return "/" + p
	}
	var segs []string
	for {
		i := strings.IndexAny(p, "/\\")
		seg := p
		last := i < 0
		if !last {
			seg = p[:i]
			p = p[i+1:]
		}
		seg = percentEncode(seg, isPathSet)
		switch {
		case isDoubleDot(seg):
			if len(segs) > 0 {
				segs = segs[:len(segs)-1]
			}
			if last {
				segs = append(segs, "")
			}
		case isSingleDot(seg):
			if last {
				segs = append(segs, "")
			}
		default:
			segs = append(segs, seg)
		}
		if last {
			break
		}
	}
	n := 0
	for _, s := range segs {
		n += len(s) + 1
	}
	var b strings.Builder
	b.Grow(n)
	for _, s := range segs {
		b.WriteByte('/')
		b.WriteString(s)
	}
	return b.String()
}

// Path signature bits (ada checkers::path_signature).
const (
	sigEncode    = 1
	sigBackslash = 2
	sigDot       = 4
	sigPercent   = 8
)

func pathSignature(p string) uint8 {
	var acc uint8
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c <= 0x20 || c == '"' || c == '#' || c == '<' || c == '>' || c == '?' || c == '`' || c == '{' || c == '}' || c > 0x7e:
			acc |= sigEncode
		case c == '%':
			acc |= sigPercent
		case c == '.':
			acc |= sigDot
		case c == '\\':
			acc |= sigBackslash
		}
	}
	return acc
}

func isSingleDot(s string) bool { return s == "." || strings.EqualFold(s, "%2e") }

func isDoubleDot(s string) bool {
	switch strings.ToLower(s) {
	case "..", ".%2e", "%2e.", "%2e%2e":
		return true
	}
	return false
}

// isPathSet reports membership in the WHATWG path percent-encode set (as
// implemented by Node 20's ada: without U+005E).
func isPathSet(c byte) bool {
	return c < 0x20 || c > 0x7e || c == ' ' || c == '"' || c == '#' || c == '<' || c == '>' || c == '?' || c == '`' || c == '{' || c == '}'
}

// isSpecialQuerySet reports membership in the special-query percent-encode set.
func isSpecialQuerySet(c byte) bool {
	return c < 0x20 || c > 0x7e || c == ' ' || c == '"' || c == '#' || c == '<' || c == '>' || c == '\''
}

const upperHex = "0123456789ABCDEF"

// percentEncode UTF-8 percent-encodes the bytes of s in set.
func percentEncode(s string, in func(byte) bool) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if in(s[i]) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	b := make([]byte, 0, len(s)+2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if in(c) {
			b = append(b, '%', upperHex[c>>4], upperHex[c&15])
		} else {
			b = append(b, c)
		}
	}
	return string(b)
}

// percentDecode decodes %XX sequences, leaving malformed ones as they are.
func percentDecode(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && ascii.IsHex(s[i+1]) && ascii.IsHex(s[i+2]) {
			b = append(b, ascii.Unhex(s[i+1])<<4|ascii.Unhex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}

// parseHost is the WHATWG host parser for special URLs, returning the
// serialised host.
func parseHost(s string) (string, bool) {
	if s[0] == '[' {
		if s[len(s)-1] != ']' || len(s) < 2 {
			return "", false
		}
		a, ok := parseIPv6(s[1 : len(s)-1])
		if !ok {
			return "", false
		}
		return "[" + serializeIPv6(a) + "]", true
	}
	domain := ValidUTF8(percentDecode(s))
	ascii, ok := domainToASCII(domain)
	if !ok {
		return "", false
	}
	for i := 0; i < len(ascii); i++ {
		if isForbiddenDomain(ascii[i]) {
			return "", false
		}
	}
	if endsInNumber(ascii) {
		v, ok := parseIPv4(ascii)
		if !ok {
			return "", false
		}
		return strconv.Itoa(int(v>>24)) + "." + strconv.Itoa(int(v>>16&255)) + "." +
			strconv.Itoa(int(v>>8&255)) + "." + strconv.Itoa(int(v&255)), true
	}
	return ascii, true
}

func isForbiddenDomain(c byte) bool {
	if c <= 0x20 || c == 0x7f {
		return true
	}
	switch c {
	case '#', '%', '/', ':', '<', '>', '?', '@', '[', '\\', ']', '^', '|':
		return true
	}
	return false
}

// endsInNumber is the WHATWG "ends in a number checker".
func endsInNumber(s string) bool {
	parts := strings.Split(s, ".")
	if parts[len(parts)-1] == "" {
		if len(parts) == 1 {
			return false
		}
		parts = parts[:len(parts)-1]
	}
	last := parts[len(parts)-1]
	if last != "" {
		digits := true
		for i := 0; i < len(last); i++ {
			if last[i] < '0' || last[i] > '9' {
				digits = false
				break
			}
		}
		if digits {
			return true
		}
	}
	_, ok := parseIPv4Number(last)
	return ok
}

// parseIPv4Number parses one dotted part in radix 8, 10 or 16. Values over
// 2^32 are reported as 2^32 (they fail every later check anyway).
func parseIPv4Number(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	radix := uint64(10)
	if len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X") {
		radix, s = 16, s[2:]
	} else if len(s) >= 2 && s[0] == '0' {
		radix, s = 8, s[1:]
	}
	if s == "" {
		return 0, true
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		var d uint64
		switch {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case c >= 'a' && c <= 'f':
			d = uint64(c-'a') + 10
		case c >= 'A' && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, false
		}
		if d >= radix {
			return 0, false
		}
		if v <= 1<<32 {
			v = v*radix + d
		}
	}
	if v > 1<<32 {
		v = 1 << 32
	}
	return v, true
}

// parseIPv4 is the WHATWG IPv4 parser.
func parseIPv4(s string) (uint32, bool) {
	parts := strings.Split(s, ".")
	if parts[len(parts)-1] == "" && len(parts) > 1 {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 4 {
		return 0, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := parseIPv4Number(p)
		if !ok {
			return 0, false
		}
		nums[i] = n
	}
	for _, n := range nums[:len(nums)-1] {
		if n > 255 {
			return 0, false
		}
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return 0, false
	}
	v := last
	for i, n := range nums[:len(nums)-1] {
		v += n << (8 * (3 - i))
	}
	return uint32(v), true
}

// parseIPv6 is the WHATWG IPv6 parser.
func parseIPv6(s string) ([8]uint16, bool) {
	var a [8]uint16
	piece, compress := 0, -1
	i := 0
	at := func(k int) int {
		if k < len(s) {
			return int(s[k])
		}
		return -1 // EOF
	}
	if at(0) == ':' {
		if at(1) != ':' {
			return a, false
		}
		i += 2
		piece++
		compress = piece
	}
	for at(i) != -1 {
		if piece == 8 {
			return a, false
		}
		if at(i) == ':' {
			if compress != -1 {
				return a, false
			}
			i++
			piece++
			compress = piece
			continue
		}
		value, length := 0, 0
		for length < 4 && at(i) != -1 && ascii.IsHex(byte(at(i))) {
			value = value*16 + int(ascii.Unhex(byte(at(i))))
			i++
			length++
		}
		if at(i) == '.' {
			if length == 0 {
				return a, false
			}
			i -= length
			if piece > 6 {
				return a, false
			}
			seen := 0
			for at(i) != -1 {
				v4 := -1
				if seen > 0 {
					if at(i) == '.' && seen < 4 {
						i++
					} else {
						return a, false
					}
				}
				if c := at(i); c < '0' || c > '9' {
					return a, false
				}
				for c := at(i); c >= '0' && c <= '9'; c = at(i) {
					n := c - '0'
					if v4 == -1 {
						v4 = n
					} else if v4 == 0 {
						return a, false
					} else {
						v4 = v4*10 + n
					}
					if v4 > 255 {
						return a, false
					}
					i++
				}
				a[piece] = a[piece]*0x100 + uint16(v4)
				seen++
				if seen == 2 || seen == 4 {
					piece++
				}
			}
			if seen != 4 {
				return a, false
			}
			break
		} else if at(i) == ':' {
			i++
			if at(i) == -1 {
				return a, false
			}
		} else if at(i) != -1 {
			return a, false
		}
		a[piece] = uint16(value)
		piece++
	}
	if compress != -1 {
		swaps := piece - compress
		piece = 7
		for piece != 0 && swaps > 0 {
			a[piece], a[compress+swaps-1] = a[compress+swaps-1], a[piece]
			piece--
			swaps--
		}
	} else if piece != 8 {
		return a, false
	}
	return a, true
}

// serializeIPv6 is the WHATWG IPv6 serializer (first longest run of two or
// more zero pieces compressed, lower-case hex).
func serializeIPv6(a [8]uint16) string {
	best, bestLen := -1, 1
	for i := 0; i < 8; {
		if a[i] != 0 {
			i++
			continue
		}
		j := i
		for j < 8 && a[j] == 0 {
			j++
		}
		if j-i > bestLen {
			best, bestLen = i, j-i
		}
		i = j
	}
	var b strings.Builder
	ignore0 := false
	for i := 0; i < 8; i++ {
		if ignore0 && a[i] == 0 {
			continue
		}
		ignore0 = false
		if i == best {
			if i == 0 {
				b.WriteString("::")
			} else {
				b.WriteString(":")
			}
			ignore0 = true
			continue
		}
		b.WriteString(strconv.FormatUint(uint64(a[i]), 16))
		if i != 7 {
			b.WriteByte(':')
		}
	}
	return b.String()
}

// ValidUTF8 returns s with invalid UTF-8 replaced as the WHATWG Encoding
// Standard's UTF-8 decoder (JavaScript's TextDecoder) replaces it: one
// U+FFFD per maximal invalid subpart. Valid input is returned as is.
func ValidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	needed, seen := 0, 0
	lower, upper := byte(0x80), byte(0xBF)
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if needed == 0 {
			switch {
			case c < 0x80:
				b.WriteByte(c)
			case c >= 0xC2 && c <= 0xDF:
				needed, start = 1, i
			case c >= 0xE0 && c <= 0xEF:
				if c == 0xE0 {
					lower = 0xA0
				} else if c == 0xED {
					upper = 0x9F
				}
				needed, start = 2, i
			case c >= 0xF0 && c <= 0xF4:
				if c == 0xF0 {
					lower = 0x90
				} else if c == 0xF4 {
					upper = 0x8F
				}
				needed, start = 3, i
			default:
				b.WriteString("\uFFFD")
			}
			i++
			continue
		}
		if c < lower || c > upper {
			needed, seen, lower, upper = 0, 0, 0x80, 0xBF
			b.WriteString("\uFFFD")
			continue // reprocess c
		}
		lower, upper = 0x80, 0xBF
		seen++
		i++
		if seen == needed {
			b.WriteString(s[start:i])
			needed, seen = 0, 0
		}
	}
	if needed != 0 {
		b.WriteString("\uFFFD")
	}
	return b.String()
}
