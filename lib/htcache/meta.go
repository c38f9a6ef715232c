package htcache

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/arcport/arcport/lib/record"
)

// Meta is the metadata HTTrack stores with each cache entry (the text of the
// local header's extra field in the zip cache, the header of a .dat record in
// the old cache).
type Meta struct {
	// Proto is the status line's protocol, normally "HTTP/1.1".
	Proto string
	// LineCode and LineReason are the status line's code and reason phrase.
	// HTTrack writes reasons of 32 bytes or more as "(See X-StatusMessage)".
	LineCode   int
	LineReason string

	// InCache is X-In-Cache: true when the body is the zip entry's data,
	// false when it is the external file named by Save (if any).
	InCache bool
	// StatusCode is X-StatusCode, or the status line's code when absent.
	// HTTrack turns 304 into 200; codes below 100 are HTTrack's own errors
	// (-1 invalid, -2 timeout, -4 connect error, ...).
	StatusCode int
	// StatusMessage is X-StatusMessage, or the status line's reason.
	StatusMessage string
	// Size is X-Size, the stored body size, or -1 when absent (HTTrack
	// omits it for empty bodies).
	Size int64

	ContentType        string // Content-Type (media type, without charset)
	Charset            string // X-Charset
	LastModified       string // Last-Modified, as written
	ETag               string // Etag, as written (with its quotes)
	Location           string // Location
	ContentDisposition string // Content-Disposition
	Addr               string // X-Addr: the URL's scheme and authority part
	Fil                string // X-Fil: the URL's path and query part
	Save               string // X-Save: local file name, relative to the mirror root

	// Extra holds arcport's own lines, X-WARC-*: the WARC record of the
	// capture (X-WARC-Date, X-WARC-Record-ID, X-WARC-Payload-Digest), so
	// that the next crawl can write revisit records referring to it.
	// HTTrack ignores lines it does not know; Format writes them last.
	Extra record.Header

	// Fields holds every metadata line after the status line, in order,
	// including the ones decoded above, as written.
	Fields record.Header
	// Original holds the lines after the first empty line: original HTTP
	// headers HTTrack may keep "for informational use".
	Original record.Header
}

// maxMetaLine bounds one metadata line (HTTrack's longest is Location with a
// full-size URL; the whole extra field cannot exceed 65535 bytes anyway).
const maxMetaLine = 65535

// ParseMeta parses the text of a zip cache entry's extra field. It stops at
// the first empty line (keeping the lines after it in Original, up to a
// second empty line) and at a NUL byte. Lines without a colon are ignored;
// names are matched without regard to case, as HTTrack's strfield2 does.
func ParseMeta(b []byte) (Meta, error) {
	m := Meta{Size: -1}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	line, rest, _ := cutLine(b)
	proto, code, reason, err := parseStatusLine(string(line))
	if err != nil {
		return m, err
	}
	m.Proto, m.LineCode, m.LineReason = proto, code, reason
	m.StatusCode, m.StatusMessage = code, reason
	haveMsg := false
	inOriginal := false
	for len(rest) > 0 {
		line, rest, _ = cutLine(rest)
		if len(line) == 0 {
			if inOriginal {
				break
			}
			inOriginal = true
			continue
		}
		name, value, ok := strings.Cut(string(line), ":")
		if !ok {
			continue
		}
		if value != "" && (value[0] == ' ' || value[0] == '\t') {
			value = value[1:] // one space, as HTTrack's reader skips
		}
		if inOriginal {
			m.Original = append(m.Original, record.Field{Name: name, Value: value})
			continue
		}
		m.Fields = append(m.Fields, record.Field{Name: name, Value: value})
		if len(name) > 7 && strings.EqualFold(name[:7], "X-WARC-") {
			m.Extra = append(m.Extra, record.Field{Name: name, Value: value})
		}
		switch strings.ToLower(name) {
		case "x-in-cache":
			m.InCache = atoiPrefix(value) == 1
		case "x-statuscode":
			n := atoiPrefix(value)
			if n < -999 || n > 999 {
				return m, fmt.Errorf("bad X-StatusCode %q", clip(value, 32))
			}
			m.StatusCode = int(n)
		case "x-statusmessage":
			m.StatusMessage = value
			haveMsg = true
		case "x-size":
			n := atoiPrefix(value)
			if n < 0 {
				return m, fmt.Errorf("bad X-Size %q", clip(value, 32))
			}
			m.Size = n
		case "content-type":
			m.ContentType = value
		case "x-charset":
			m.Charset = value
		case "last-modified":
			m.LastModified = value
		case "etag":
			m.ETag = value
		case "location":
			m.Location = value
		case "content-disposition":
			m.ContentDisposition = value
		case "x-addr":
			m.Addr = value
		case "x-fil":
			m.Fil = value
		case "x-save":
			m.Save = value
		}
	}
	if !haveMsg && m.LineReason == "(See X-StatusMessage)" {
		m.StatusMessage = ""
	}
	return m, nil
}

// cutLine splits b at the first LF, dropping a CR before it.
func cutLine(b []byte) (line, rest []byte, found bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		line, rest = b, nil
	} else {
		line, rest, found = b[:i], b[i+1:], true
	}
	line = bytes.TrimSuffix(line, []byte("\r"))
	return line, rest, found
}

// parseStatusLine parses "HTTP/1.1 200 OK" (HTTrack may write negative codes).
func parseStatusLine(s string) (proto string, code int, reason string, err error) {
	proto, rest, ok := strings.Cut(s, " ")
	if !ok || !strings.HasPrefix(proto, "HTTP/") {
		return "", 0, "", fmt.Errorf("bad status line %q", clip(s, 64))
	}
	c, reason, _ := strings.Cut(rest, " ")
	n, err := strconv.Atoi(c)
	if err != nil || n < -999 || n > 999 {
		return "", 0, "", fmt.Errorf("bad status code in status line %q", clip(s, 64))
	}
	return proto, n, reason, nil
}

// atoiPrefix reads an optionally signed decimal prefix as sscanf("%lld")
// does, returning 0 when there is none; it saturates instead of overflowing.
func atoiPrefix(s string) int64 {
	s = strings.TrimSpace(s)
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	var n int64
	for i := 0; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		if n > (1<<62)/10 {
			n = 1 << 62
			break
		}
		n = n*10 + int64(s[i]-'0')
	}
	if neg {
		return -n
	}
	return n
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// Format renders m as HTTrack's cache_add() does: the status line, then
// X-In-Cache, X-StatusCode, X-StatusMessage, X-Size, Content-Type, X-Charset,
// Last-Modified, Etag, Location, Content-Disposition, X-Addr, X-Fil, X-Save,
// each "Name: value\r\n", skipping empty strings and zero numbers (except
// X-In-Cache, always written). The status line's reason is StatusMessage, or
// "(See X-StatusMessage)" when it is 32 bytes or longer. Fields, LineCode and
// LineReason are not used. Values must not contain CR or LF.
func (m *Meta) Format() ([]byte, error) {
	for _, v := range []string{m.Proto, m.StatusMessage, m.ContentType, m.Charset, m.LastModified, m.ETag,
		m.Location, m.ContentDisposition, m.Addr, m.Fil, m.Save} {
		if strings.ContainsAny(v, "\r\n\x00") {
			return nil, fmt.Errorf("metadata value %q contains CR, LF or NUL", clip(v, 64))
		}
	}
	var b bytes.Buffer
	proto := m.Proto
	if proto == "" {
		proto = "HTTP/1.1"
	}
	reason := m.StatusMessage
	if len(reason) >= 32 {
		reason = "(See X-StatusMessage)"
	}
	fmt.Fprintf(&b, "%s %d %s\r\n", proto, m.StatusCode, reason)
	in := 0
	if m.InCache {
		in = 1
	}
	fmt.Fprintf(&b, "X-In-Cache: %d\r\n", in)
	if m.StatusCode != 0 {
		fmt.Fprintf(&b, "X-StatusCode: %d\r\n", m.StatusCode)
	}
	str := func(name, v string) {
		if v != "" {
			b.WriteString(name)
			b.WriteString(": ")
			b.WriteString(v)
			b.WriteString("\r\n")
		}
	}
	str("X-StatusMessage", m.StatusMessage)
	if m.Size > 0 {
		fmt.Fprintf(&b, "X-Size: %d\r\n", m.Size)
	}
	str("Content-Type", m.ContentType)
	str("X-Charset", m.Charset)
	str("Last-Modified", m.LastModified)
	str("Etag", m.ETag)
	str("Location", m.Location)
	str("Content-Disposition", m.ContentDisposition)
	str("X-Addr", m.Addr)
	str("X-Fil", m.Fil)
	str("X-Save", m.Save)
	for _, f := range m.Extra {
		if f.Name == "" || strings.ContainsAny(f.Name, "\r\n\x00: ") || strings.ContainsAny(f.Value, "\r\n\x00") {
			return nil, fmt.Errorf("metadata line %q contains CR, LF, NUL or a colon in its name", clip(f.Name+": "+f.Value, 64))
		}
		str(f.Name, f.Value)
	}
	if b.Len() > 0xffff {
		return nil, fmt.Errorf("metadata is %d bytes, more than a zip extra field holds", b.Len())
	}
	return b.Bytes(), nil
}
