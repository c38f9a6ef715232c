package links

import (
	"html"
	"strings"

	"github.com/arcport/arcport/lib/internal/ascii"
)

// decoded is a text decoded from raw source bytes, with the source offset of
// each decoded byte so that spans found in the decoded text map back to the
// source. A nil pos means the identity (nothing was decoded).
type decoded struct {
	s   string
	pos []int // len(s)+1 entries: pos[i] = raw offset of decoded byte i
}

// rawOffset maps a decoded offset to the raw offset.
func (d *decoded) rawOffset(i int) int {
	if d.pos == nil {
		return i
	}
	if i >= len(d.pos) {
		return d.pos[len(d.pos)-1]
	}
	return d.pos[i]
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// decodeAttr decodes HTML character references in an attribute value as the
// HTML attribute value states do (a legacy reference without ';' followed by
// an alphanumeric or '=' is left alone).
func decodeAttr(raw []byte) decoded {
	if !containsByte(raw, '&') {
		return decoded{s: string(raw)}
	}
	var b strings.Builder
	b.Grow(len(raw))
	pos := make([]int, 0, len(raw)+1)
	emit := func(s string, at int) {
		b.WriteString(s)
		for range len(s) {
			pos = append(pos, at)
		}
	}
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '&' {
			b.WriteByte(c)
			pos = append(pos, i)
			i++
			continue
		}
		n, s := charRef(raw[i:])
		if n == 0 {
			b.WriteByte('&')
			pos = append(pos, i)
			i++
			continue
		}
		emit(s, i)
		i += n
	}
	pos = append(pos, len(raw))
	return decoded{s: b.String(), pos: pos}
}

func containsByte(b []byte, c byte) bool {
	for _, x := range b {
		if x == c {
			return true
		}
	}
	return false
}

// charRef decodes the character reference at the start of b ('&...'),
// returning the number of source bytes used (0 if none) and the text.
func charRef(b []byte) (int, string) {
	if len(b) < 2 {
		return 0, ""
	}
	if b[1] == '#' {
		j := 2
		hex := j < len(b) && (b[j] == 'x' || b[j] == 'X')
		if hex {
			j++
		}
		start := j
		for j < len(b) && j-start < 16 && (hex && ascii.IsHex(b[j]) || !hex && '0' <= b[j] && b[j] <= '9') {
			j++
		}
		if j == start {
			return 0, ""
		}
		ref := string(b[:j])
		if j < len(b) && b[j] == ';' {
			j++
		}
		return j, html.UnescapeString(ref + ";")
	}
	j := 1
	for j < len(b) && j < 40 && isAlnum(b[j]) {
		j++
	}
	if j == 1 {
		return 0, ""
	}
	if j < len(b) && b[j] == ';' {
		ref := string(b[:j+1])
		if s := html.UnescapeString(ref); s != ref {
			return j + 1, s
		}
	}
	// no ';': only a legacy reference that matches the whole name and is not
	// followed by '=' is decoded inside an attribute
	name := string(b[1:j])
	if j < len(b) && b[j] == '=' {
		return 0, ""
	}
	if s := html.UnescapeString("&" + name); s != "&"+name && !strings.HasSuffix(s, name[len(name)-1:]) {
		return j, s
	}
	return 0, ""
}
