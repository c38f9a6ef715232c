package cdx

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/surt"
)

// This file reproduces the few JavaScript behaviours warcio.js output
// depends on: String.prototype.trim, Number(), Number#toString,
// JSON.stringify string escaping, UTF-16 lengths and the WHATWG Headers
// class that holds WARC and HTTP header fields.

// isJSSpace reports JavaScript WhiteSpace or LineTerminator.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// plainEnd reports a byte that is no JavaScript space nor part of one: an
// ASCII byte above ' ' (trimming stops there at once).
func plainEnd(c byte) bool { return c > ' ' && c < 0x80 }

func jsTrim(s string) string {
	if len(s) > 0 && plainEnd(s[0]) && plainEnd(s[len(s)-1]) {
		return s
	}
	return strings.TrimFunc(s, isJSSpace)
}

func jsTrimStart(s string) string {
	if len(s) > 0 && plainEnd(s[0]) {
		return s
	}
	return strings.TrimLeftFunc(s, isJSSpace)
}

func jsTrimEnd(s string) string {
	if len(s) > 0 && plainEnd(s[len(s)-1]) {
		return s
	}
	return strings.TrimRightFunc(s, isJSSpace)
}

// jsNumber is JavaScript's Number(string).
func jsNumber(s string) float64 {
	s = jsTrim(s)
	if s == "" {
		return 0
	}
	switch s {
	case "Infinity", "+Infinity":
		return math.Inf(1)
	case "-Infinity":
		return math.Inf(-1)
	}
	if len(s) > 2 && s[0] == '0' {
		base := 0
		switch s[1] {
		case 'x', 'X':
			base = 16
		case 'o', 'O':
			base = 8
		case 'b', 'B':
			base = 2
		}
		if base != 0 {
			v := 0.0
			for _, c := range s[2:] {
				d := -1
				switch {
				case c >= '0' && c <= '9':
					d = int(c - '0')
				case c >= 'a' && c <= 'z':
					d = int(c-'a') + 10
				case c >= 'A' && c <= 'Z':
					d = int(c-'A') + 10
				}
				if d < 0 || d >= base {
					return math.NaN()
				}
				v = v*float64(base) + float64(d)
			}
			return v
		}
	}
	// StrDecimalLiteral: [+-] (digits [. digits] | . digits) [e [+-] digits]
	i := 0
	if s[i] == '+' || s[i] == '-' {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return math.NaN()
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		ed := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			ed++
		}
		if ed == 0 {
			return math.NaN()
		}
	}
	if i != len(s) {
		return math.NaN()
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(v, 0) {
		return math.NaN()
	}
	return v
}

// jsNumberString is JavaScript's Number#toString() (radix 10).
func jsNumberString(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case v == 0:
		return "0"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	}
	sign := ""
	if v < 0 {
		sign = "-"
		v = -v
	}
	e := strconv.FormatFloat(v, 'e', -1, 64) // d.ddddde±XX
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	n := x + 1 // value = 0.digits × 10^n
	k := len(digits)
	var b strings.Builder
	b.WriteString(sign)
	switch {
	case k <= n && n <= 21:
		b.WriteString(digits)
		b.WriteString(strings.Repeat("0", n-k))
	case 0 < n && n <= 21:
		b.WriteString(digits[:n])
		b.WriteByte('.')
		b.WriteString(digits[n:])
	case -6 < n && n <= 0:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -n))
		b.WriteString(digits)
	default:
		b.WriteByte(digits[0])
		if k > 1 {
			b.WriteByte('.')
			b.WriteString(digits[1:])
		}
		b.WriteByte('e')
		if n-1 >= 0 {
			b.WriteByte('+')
		}
		b.WriteString(strconv.Itoa(n - 1))
	}
	return b.String()
}

// Lone UTF-16 surrogates (which JavaScript strings can hold) are carried in
// Go strings as their 3-byte generalized UTF-8 ("WTF-8") form ED A0..BF xx.

func isSurrogateSeq(s string, i int) bool {
	return i+2 < len(s) && s[i] == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2] >= 0x80 && s[i+2] <= 0xBF
}

// utf16Len returns the length of s in UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if isSurrogateSeq(s, i) {
			n++
			i += 3
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
		i += size
	}
	return n
}

// utf16Slice returns s cut to its first n UTF-16 code units (String#slice),
// leaving a lone high surrogate when the cut splits a pair.
func utf16Slice(s string, n int) string {
	u := 0
	for i := 0; i < len(s); {
		if u >= n {
			return s[:i]
		}
		if isSurrogateSeq(s, i) {
			u++
			i += 3
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r >= 0x10000 {
			if u+2 > n {
				// keep the high surrogate only
				hi := 0xD800 + ((r - 0x10000) >> 10)
				return s[:i] + string([]byte{0xED, byte(0xA0 | (hi>>6)&0x0F), byte(0x80 | hi&0x3F)})
			}
			u += 2
		} else {
			u++
		}
		i += size
	}
	return s
}

// wellFormed replaces lone surrogates by U+FFFD, as UTF-8 encoders (URL
// parsing, TextEncoder) do.
func wellFormed(s string) string {
	if strings.IndexByte(s, 0xED) < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if isSurrogateSeq(s, i) {
			b.WriteString("\uFFFD")
			i += 3
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

const lowerHex = "0123456789abcdef"

// appendJSONString appends s as JSON.stringify writes a string.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c != 0xED {
			i++
			continue
		}
		if c == 0xED {
			if !isSurrogateSeq(s, i) {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			u := rune(s[i]&0x0F)<<12 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F)
			dst = append(dst, '\\', 'u', lowerHex[u>>12&15], lowerHex[u>>8&15], lowerHex[u>>4&15], lowerHex[u&15])
			i += 3
			start = i
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', lowerHex[c>>4], lowerHex[c&15])
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// decodeText is TextDecoder("utf-8").decode: invalid sequences become
// U+FFFD and a leading byte order mark is dropped.
func decodeText(b []byte) string {
	s := surt.ValidUTF8(string(b))
	return strings.TrimPrefix(s, "\uFEFF")
}

// latin1Bytes re-encodes s as warcio's UTFToLatin1 does: every byte of
// its UTF-8 form becomes the code point of the same value.
func latin1Bytes(s string) string {
	var b strings.Builder
	b.Grow(2 * len(s))
	for i := 0; i < len(s); i++ {
		b.WriteRune(rune(s[i]))
	}
	return b.String()
}

func isTokenChar(c rune) bool {
	if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
		return true
	}
	return strings.ContainsRune("!#$%&'*+-.^_`|~", c)
}

// tokenChars marks the bytes isTokenChar accepts.
var tokenChars = func() (t [256]bool) {
	for c := range 256 {
		t[c] = isTokenChar(rune(c))
	}
	return t
}()

func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	// a byte of a multi-byte UTF-8 sequence is >= 0x80: not a token char,
	// as the rune it is part of is not
	for i := 0; i < len(s); i++ {
		if !tokenChars[s[i]] {
			return false
		}
	}
	return true
}

// headerValueOK reports whether the WHATWG Headers class accepts value:
// a ByteString (no code point above U+00FF) without NUL, CR or LF once
// leading and trailing HTTP whitespace is removed.
func headerValueOK(v string) (string, bool) {
	// strings.Trim(v, " \t\r\n"), without building its byte set per call
	i, j := 0, len(v)
	for i < j && isHTTPSpace(v[i]) {
		i++
	}
	for j > i && isHTTPSpace(v[j-1]) {
		j--
	}
	v = v[i:j]
	for k := 0; k < len(v); k++ {
		c := v[k]
		if c >= 0x80 {
			// past ASCII: by code point
			for _, c := range v[k:] {
				if c > 0xFF || c == 0 || c == '\r' || c == '\n' {
					return "", false
				}
			}
			break
		}
		if c == 0 || c == '\r' || c == '\n' {
			return "", false
		}
	}
	return v, true
}

// isHTTPSpace reports HTTP whitespace as headerValueOK trims it.
func isHTTPSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// jsHeaders is a WHATWG Headers object as warcio.js fills it: names
// case-insensitive, values of repeated names joined by ", ".
type jsHeaders struct {
	names  []string // lower case
	values []string
}

// set mirrors StatusAndHeadersParser.setHeader: append, and on failure
// retry once with the value re-encoded as Latin-1 bytes of its UTF-8.
func (h *jsHeaders) set(name, value string) {
	if !validHeaderName(name) {
		return
	}
	v, ok := headerValueOK(value)
	if !ok {
		if v, ok = headerValueOK(latin1Bytes(value)); !ok {
			return
		}
	}
	h.names = append(h.names, lowerToken(name))
	h.values = append(h.values, v)
}

// lowerToken is strings.ToLower for a header name made of token
// characters (ASCII), without allocating for a name already in lower case
// or one of the common names.
func lowerToken(name string) string {
	upper := false
	for i := 0; i < len(name); i++ {
		if c := name[i]; 'A' <= c && c <= 'Z' {
			upper = true
			break
		}
	}
	if !upper {
		return name
	}
	if e := &lowerCache[lowerKey(name)]; e.name == name {
		return e.lower
	}
	if l, ok := commonLower[name]; ok {
		return l
	}
	return strings.ToLower(name)
}

// lowerCache holds most of commonLower where a cheap hash of the name
// (lowerKey) finds them, ahead of the map.
var lowerCache = func() (c [256]struct{ name, lower string }) {
	for n, l := range commonLower {
		if e := &c[lowerKey(n)]; e.name == "" {
			e.name, e.lower = n, l
		}
	}
	return c
}()

// lowerKey hashes a non-empty name for lowerCache.
func lowerKey(s string) uint8 {
	return uint8(len(s)*17) ^ s[0]*3 ^ s[len(s)-1]*5 ^ s[len(s)/2]
}

// commonLower maps the WARC and HTTP header names seen in nearly every
// record, as usually written, to lower case.
var commonLower = func() map[string]string {
	m := map[string]string{}
	for _, n := range []string{
		"WARC-Type", "WARC-Record-ID", "WARC-Date", "WARC-Target-URI", "WARC-IP-Address",
		"WARC-Concurrent-To", "WARC-Block-Digest", "WARC-Payload-Digest", "WARC-Warcinfo-ID",
		"WARC-Refers-To", "WARC-Refers-To-Target-URI", "WARC-Refers-To-Date", "WARC-Profile",
		"WARC-Truncated", "WARC-Filename", "WARC-Identified-Payload-Type", "WARC-Segment-Number",
		"WARC-Page-ID", "WARC-Resource-Type", "WARC-JSON-Metadata",
		"Content-Type", "Content-Length", "Content-Encoding", "Content-Language", "Content-Location",
		"Content-Disposition", "Content-Range", "Transfer-Encoding", "Date", "Server", "Location",
		"Last-Modified", "ETag", "Etag", "Expires", "Cache-Control", "Connection", "Keep-Alive",
		"Vary", "Age", "Accept-Ranges", "Set-Cookie", "Pragma", "Via", "Link", "Host", "User-Agent",
		"Accept", "Accept-Encoding", "Accept-Language", "Referer", "Cookie", "Origin", "Range",
		"X-Powered-By", "X-Frame-Options", "X-Content-Type-Options", "X-XSS-Protection",
		"Strict-Transport-Security", "Content-Security-Policy", "Access-Control-Allow-Origin",
		"Alt-Svc", "P3P", "Upgrade-Insecure-Requests", "If-Modified-Since", "If-None-Match",
	} {
		m[n] = strings.ToLower(n)
	}
	return m
}()

// get returns the combined value and whether the name is present.
func (h *jsHeaders) get(name string) (string, bool) {
	name = lowerToken(name)
	var out string
	found := false
	for i, n := range h.names {
		if n == name {
			if found {
				out += ", " + h.values[i]
			} else {
				out = h.values[i]
				found = true
			}
		}
	}
	return out, found
}

// fromRecordHeader loads WARC header fields as warcio.js would hold them.
func (h *jsHeaders) fromRecordHeader(hdr record.Header) {
	h.names, h.values = h.names[:0], h.values[:0]
	for _, f := range hdr {
		name := jsTrimStart(surt.ValidUTF8(f.Name))
		v := jsTrim(surt.ValidUTF8(f.Value))
		if v == "" {
			continue
		}
		h.set(name, v)
	}
}

// parseHeaderBlock is StatusAndHeadersParser.parse after the status line:
// buf holds the decoded header lines (normally ending in CRLF CRLF).
func (h *jsHeaders) parseHeaderBlock(buf string) {
	h.names, h.values = h.names[:0], h.values[:0]
	if cap(h.names) == 0 {
		// at most a field a line: room for them at once
		n := strings.Count(buf, "\n") + 1
		h.names, h.values = make([]string, 0, n), make([]string, 0, n)
	}
	start := 0
	var name, value string
	hasValue := false
	for start < len(buf) {
		valueEnd := strings.IndexByte(buf[start:], '\n')
		lineEnd := len(buf)
		if valueEnd >= 0 {
			valueEnd += start
			lineEnd = valueEnd
		}
		if hasValue && value != "" && (buf[start] == ' ' || buf[start] == '\t') {
			value += jsTrimEnd(buf[start:lineEnd])
		} else {
			if hasValue && value != "" {
				h.set(name, value)
			}
			hasValue = false
			nameEnd := strings.IndexByte(buf[start:], ':')
			if nameEnd >= 0 {
				nameEnd += start
			}
			if nameEnd >= 0 && valueEnd >= 0 && nameEnd < valueEnd {
				name = jsTrimStart(buf[start:nameEnd])
				value = jsTrim(buf[nameEnd+1 : lineEnd])
				hasValue = true
			}
		}
		if valueEnd < 0 {
			break
		}
		start = valueEnd + 1
	}
	if hasValue && value != "" {
		h.set(name, value)
	}
}
