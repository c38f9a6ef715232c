package cdx

import (
	"strings"
	"unicode/utf8"
)

// EmptySHA1 is "sha1:" and the base32 SHA-1 of no bytes: what cdxj-indexer
// 1.5.0 writes as the digest of every record without a WARC-Payload-Digest
// (ARC records, most metadata and resource records), whatever its payload
// (it hashes the payload stream after reading it).
const EmptySHA1 = "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ"

// AppendCdxjIndexer appends the CDXJ line that cdxj-indexer 1.5.0 (`-p`:
// POST and PUT bodies in the key) writes for the record of e, an entry of
// an Indexer made WithFullDigest(true) and WithARCDigests(false). The
// differences from AppendCDXJ (warcio.js's line):
//
//   - the key is PySURT of the URL (Python surt: every scheme canonicalised,
//     a path's trailing slash dropped), with "?__wb_method=POST&BODY"
//     appended for POST and PUT only (not HEAD or others);
//   - spaces in url are %20, as warcio reads WARC-Target-URI;
//   - mime is cut at the first ";" or white space (resource records too);
//   - digest is WARC-Payload-Digest whole, or EmptySHA1 when there is none;
//   - the length of a record of an uncompressed ARC (plainARC) does not
//     count the "\n" that ends it;
//   - requestBody comes before method, and is there (maybe empty) for every
//     POST or PUT;
//   - the JSON is Python's json.dumps: ", " and ": " separators, every
//     character outside printable ASCII as \uXXXX.
//
// The request body is converted to a query as warcio.js converts it; where
// cdxj-indexer's converter differs (JSON and multipart bodies, binary
// ones), so do the key and requestBody. Header values with non-ASCII
// characters may differ too (warcio.js's Headers class reads them as
// Latin-1).
func AppendCdxjIndexer(dst []byte, e *Entry, plainARC bool) []byte {
	url, _ := e.Get(FieldURL)
	url = strings.ReplaceAll(url, " ", "%20")
	method, _ := e.Get(FieldMethod)
	method = strings.ToUpper(method)
	post := method == "POST" || method == "PUT"
	body, _ := e.Get(FieldRequestBody)
	keyURL := url
	if post {
		sep := "?"
		if strings.Contains(url, "?") {
			sep = "&"
		}
		keyURL += sep + "__wb_method=" + method
		if body != "" {
			keyURL += "&" + body
		}
	}
	dst = append(dst, PySURT(keyURL)...)
	dst = append(dst, ' ')
	dst = append(dst, e.Timestamp...)
	dst = append(dst, " {"...)
	n := 0
	field := func(k, v string) {
		if n > 0 {
			dst = append(dst, ", "...)
		}
		n++
		dst = AppendPyJSON(dst, k)
		dst = append(dst, ": "...)
		dst = AppendPyJSON(dst, v)
	}
	if _, ok := e.Get(FieldURL); ok {
		field(FieldURL, url)
	}
	if m, ok := e.Get(FieldMIME); ok {
		if i := strings.IndexFunc(m, func(r rune) bool { return r == ';' || isPySpace(r) }); i >= 0 {
			m = m[:i]
		}
		field(FieldMIME, strings.TrimFunc(m, isPySpace))
	}
	if st, ok := e.Get(FieldStatus); ok {
		field(FieldStatus, st)
	}
	if d, ok := e.Get(FieldDigest); ok && d != "" {
		field(FieldDigest, d)
	} else {
		field(FieldDigest, EmptySHA1)
	}
	if l, ok := e.Length(); ok {
		if plainARC && l > 0 {
			l--
		}
		field(FieldLength, itoa(l))
	}
	if o, ok := e.Get(FieldOffset); ok {
		field(FieldOffset, o)
	}
	if f, ok := e.Get(FieldFilename); ok {
		field(FieldFilename, f)
	}
	if post {
		field(FieldRequestBody, body)
		field(FieldMethod, method)
	}
	dst = append(dst, "}\n"...)
	return dst
}

func itoa(n int64) string {
	var b [20]byte
	i := len(b)
	neg := n < 0
	if neg {
		n = -n
	}
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// isPySpace is Python's re \s for str: Unicode white space.
func isPySpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x1f, 0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// AppendPyJSON appends s as Python's json.dumps writes a str with
// ensure_ascii: \" \\ \n \r \t \b \f, every other character outside " " to
// "~" as \uXXXX (lower-case hex; surrogate pairs beyond the BMP). A byte
// that is not UTF-8 counts as the Latin-1 character of that value (warcio
// decodes such header lines as Latin-1).
func AppendPyJSON(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	u := func(c rune) {
		dst = append(dst, '\\', 'u', hex[c>>12&15], hex[c>>8&15], hex[c>>4&15], hex[c&15])
	}
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			r = rune(s[i])
		}
		i += size
		switch {
		case r == '"':
			dst = append(dst, '\\', '"')
		case r == '\\':
			dst = append(dst, '\\', '\\')
		case r == '\n':
			dst = append(dst, '\\', 'n')
		case r == '\r':
			dst = append(dst, '\\', 'r')
		case r == '\t':
			dst = append(dst, '\\', 't')
		case r == '\b':
			dst = append(dst, '\\', 'b')
		case r == '\f':
			dst = append(dst, '\\', 'f')
		case r >= ' ' && r <= '~':
			dst = append(dst, byte(r))
		case r > 0xffff:
			r -= 0x10000
			u(0xd800 + r>>10)
			u(0xdc00 + r&0x3ff)
		default:
			u(r)
		}
	}
	return append(dst, '"')
}
