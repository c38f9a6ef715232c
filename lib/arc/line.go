package arc

import (
	"bytes"
	"net/netip"
)

// urlLine is a URL-record line split into its fields. All slices point into
// the line.
type urlLine struct {
	url, ip, date, ctype, length               []byte
	code, checksum, location, offset, filename []byte // v2 only

	spaceInURL  bool // the URL holds spaces
	spaceInType bool // the content type holds spaces ("text/html; charset=x")
	extraSpaces bool // fields were separated by runs of spaces
	crlf        bool // the line ended in CRLF
}

// trimEOL removes a trailing "\n" or "\r\n", telling whether a CR was there.
func trimEOL(line []byte) ([]byte, bool) {
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		return line[:n-1], true
	}
	return line, false
}

// fieldCount returns how many fixed fields follow the URL in a version-v
// URL-record line.
func fieldCount(v int) int {
	if v == 2 {
		return 9
	}
	return 4
}

// split splits line (without its newline) into a URL and the k fixed fields
// after it, splitting from the right on runs of spaces: the fixed fields
// never hold spaces, so the URL is everything before them. It reports
// whether the line had enough fields.
func (u *urlLine) split(line []byte, v int) bool {
	*u = urlLine{}
	line, u.crlf = trimEOL(line)
	k := fieldCount(v)
	var f [9][]byte
	end := len(line)
	for i := k - 1; i >= 0; i-- {
		sp := bytes.LastIndexByte(line[:end], ' ')
		if sp < 0 {
			return false
		}
		f[i] = line[sp+1 : end]
		end = sp
		for end > 0 && line[end-1] == ' ' {
			end--
			u.extraSpaces = true
		}
		if len(f[i]) == 0 {
			return false
		}
	}
	// Leading spaces before the URL are junk too.
	start := 0
	for start < end && line[start] == ' ' {
		start++
		u.extraSpaces = true
	}
	if start >= end {
		return false
	}
	u.url = line[start:end]
	u.spaceInURL = bytes.IndexByte(u.url, ' ') >= 0
	u.ip, u.date, u.ctype = f[0], f[1], f[2]
	if v == 2 {
		u.code, u.checksum, u.location, u.offset, u.filename = f[3], f[4], f[5], f[6], f[7]
		u.length = f[8]
	} else {
		u.length = f[3]
	}
	return true
}

// plausible reports whether the split line looks like a URL-record line:
// a URL with a scheme, an IP-shaped field, a date of 8 to 18 digits and, for
// version 2, a result code and offset of digits or "-". It does not judge the
// length field, so records with bad lengths are still found when
// resynchronising.
func (u *urlLine) plausible() bool {
	if !hasScheme(u.url) || !ipShaped(u.ip) || len(u.date) < 8 || len(u.date) > 18 || !allDigits(u.date) {
		return false
	}
	if u.code != nil && !(allDigits(u.code) || string(u.code) == "-") {
		return false
	}
	if u.offset != nil && !(allDigits(u.offset) || string(u.offset) == "-") {
		return false
	}
	return true
}

// parseLine splits and checks line for an ARC of version v (0: unknown, in
// which case version 2 is tried first, then version 1). It returns the
// version that matched, or 0.
func (u *urlLine) parseLine(line []byte, v int) int {
	if v == 0 {
		if u.parse(line, 2) {
			return 2
		}
		v = 1
	}
	if u.parse(line, v) {
		return v
	}
	return 0
}

// parse splits line for version v and checks it, trying a content type
// holding spaces when the plain split fails.
func (u *urlLine) parse(line []byte, v int) bool {
	if u.split(line, v) && u.plausible() {
		return true
	}
	return u.splitSpacedType(line, v) && u.plausible()
}

// splitSpacedType splits a line whose content type holds spaces, as some
// writers copied the HTTP Content-Type ("text/html; charset=UTF-8"): the
// fields after the content type are taken from the right, then the IP
// address and date are the rightmost pair of an IP-shaped word followed by
// a date before them.
func (u *urlLine) splitSpacedType(line []byte, v int) bool {
	*u = urlLine{}
	line, u.crlf = trimEOL(line)
	tail := 1 // length
	if v == 2 {
		tail = 6 // result code, checksum, location, offset, filename, length
	}
	var f [6][]byte
	end := len(line)
	for i := tail - 1; i >= 0; i-- {
		sp := bytes.LastIndexByte(line[:end], ' ')
		if sp < 0 || sp+1 == end {
			return false
		}
		f[i] = line[sp+1 : end]
		end = sp
	}
	head := line[:end] // URL IP DATE CTYPE-WITH-SPACES
	// Find the rightmost " IP DATE " with text after it.
	for de := bytes.LastIndexByte(head, ' '); de > 0; de = bytes.LastIndexByte(head[:de], ' ') {
		ds := bytes.LastIndexByte(head[:de], ' ')
		if ds < 0 {
			return false
		}
		date := head[ds+1 : de]
		is := bytes.LastIndexByte(head[:ds], ' ')
		if is <= 0 || !allDigits(date) {
			continue
		}
		ip := head[is+1 : ds]
		if !ipShaped(ip) {
			continue
		}
		u.url, u.ip, u.date, u.ctype = head[:is], ip, date, head[de+1:]
		if len(u.ctype) == 0 || bytes.IndexByte(u.ctype, ' ') < 0 {
			return false // not this case
		}
		u.spaceInType = true
		u.spaceInURL = bytes.IndexByte(u.url, ' ') >= 0
		if v == 2 {
			u.code, u.checksum, u.location, u.offset, u.filename, u.length = f[0], f[1], f[2], f[3], f[4], f[5]
		} else {
			u.length = f[0]
		}
		return true
	}
	return false
}

// hasScheme reports whether b starts with a URI scheme and a colon.
func hasScheme(b []byte) bool {
	if len(b) < 2 || !isAlpha(b[0]) {
		return false
	}
	for i := 1; i < len(b) && i < 32; i++ {
		c := b[i]
		switch {
		case c == ':':
			return true
		case isAlpha(c) || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.':
		default:
			return false
		}
	}
	return false
}

func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// ipShaped reports whether b could be an IP address field: hex digits,
// dots and colons (IPv4 or IPv6), or "-".
func ipShaped(b []byte) bool {
	if len(b) == 0 || len(b) > 45 {
		return false
	}
	if len(b) == 1 && b[0] == '-' {
		return true
	}
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f' || c == '.' || c == ':') {
			return false
		}
	}
	return true
}

func allDigits(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// parseLength parses a non-negative decimal length, refusing values over
// 2^62 and anything that is not digits.
func parseLength(b []byte) (int64, bool) {
	if !allDigits(b) || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// validIP reports whether b is an IP address other than the unspecified
// 0.0.0.0 (which ARC writers use when the address is unknown).
func validIP(s string) (ok, unspecified bool) {
	a, err := netip.ParseAddr(s)
	if err != nil {
		return false, false
	}
	return true, a.IsUnspecified()
}

// isHTTPURL reports whether url has the http or https scheme.
func isHTTPURL(url string) bool {
	return hasPrefixFold(url, "http:") || hasPrefixFold(url, "https:")
}

func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}

const hexDigits = "0123456789ABCDEF"

// needsEscape reports whether c is percent-encoded in WARC-Target-URI:
// spaces, control characters, DEL and bytes outside ASCII.
func needsEscape(c byte) bool { return c <= ' ' || c >= 0x7f }

// EscapeTargetURI percent-encodes the bytes of a URL that may not appear in
// a WARC-Target-URI as written by ARC tools: spaces, control characters, DEL
// and every byte of non-ASCII characters (each as %XX, upper-case hex).
// Existing percent-escapes and all other characters are kept.
func EscapeTargetURI(s string) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if needsEscape(s[i]) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	return string(appendEscaped(make([]byte, 0, len(s)+2*n), s))
}

func appendEscaped(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if needsEscape(c) {
			dst = append(dst, '%', hexDigits[c>>4], hexDigits[c&15])
		} else {
			dst = append(dst, c)
		}
	}
	return dst
}
