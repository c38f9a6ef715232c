package links

import (
	"bufio"
	"io"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/arcport/arcport/lib/internal/ascii"
)

// maxRefLen bounds how much of one CSS/JS string or url() is kept in memory;
// longer tokens (data: URIs, inline blobs) are scanned through and skipped.
const maxRefLen = 8192

// ref is a candidate found by the CSS or JS scanner: the decoded value and
// the span of its raw text in the scanner's input.
type ref struct {
	value      string
	start, end int
	quote      byte
	attr       string // "url", "import", "image-set" (CSS) or "string" (JS)
}

// scanner reads bytes and tracks the offset of the next byte.
type scanner struct {
	r   io.ByteScanner
	off int
	err error
}

func (s *scanner) next() (byte, bool) {
	c, err := s.r.ReadByte()
	if err != nil {
		if err != io.EOF {
			s.err = err
		}
		return 0, false
	}
	s.off++
	return c, true
}

func (s *scanner) back() {
	if s.r.UnreadByte() == nil {
		s.off--
	}
}

func (s *scanner) peek() (byte, bool) {
	c, ok := s.next()
	if ok {
		s.back()
	}
	return c, ok
}

// valueBuf accumulates a decoded value up to maxRefLen bytes.
type valueBuf struct {
	b    []byte
	over bool
}

func (v *valueBuf) reset() { v.b, v.over = v.b[:0], false }

func (v *valueBuf) add(c byte) {
	if len(v.b) >= maxRefLen {
		v.over = true
		return
	}
	v.b = append(v.b, c)
}

func (v *valueBuf) addRune(r rune) {
	if r == 0 || r > utf8.MaxRune || 0xd800 <= r && r <= 0xdfff {
		r = utf8.RuneError
	}
	var tmp [4]byte
	for _, c := range tmp[:utf8.EncodeRune(tmp[:], r)] {
		v.add(c)
	}
}

func isCSSSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

func isNameByte(c byte) bool {
	return isAlnum(c) || c == '-' || c == '_' || c >= 0x80
}

// cssEscape decodes a CSS escape after the backslash (CSS Syntax 4.3.7).
// inString makes an escaped newline a line continuation.
func (s *scanner) cssEscape(v *valueBuf, inString bool) {
	c, ok := s.next()
	if !ok {
		return
	}
	if ascii.IsHex(c) {
		r := rune(ascii.Unhex(c))
		for i := 1; i < 6; i++ {
			d, ok := s.next()
			if !ok {
				break
			}
			if !ascii.IsHex(d) {
				s.back()
				break
			}
			r = r<<4 | rune(ascii.Unhex(d))
		}
		if d, ok := s.next(); ok {
			if d == '\r' {
				if e, ok := s.next(); ok && e != '\n' {
					s.back()
				}
			} else if !isCSSSpace(d) {
				s.back()
			}
		}
		v.addRune(r)
		return
	}
	if c == '\n' || c == '\r' || c == '\f' {
		if !inString {
			s.back()
			v.add('\\')
			return
		}
		if c == '\r' {
			if e, ok := s.next(); ok && e != '\n' {
				s.back()
			}
		}
		return
	}
	v.add(c)
}

// cssString reads a string after its opening quote; it returns the span of
// the contents and whether the string was closed (a newline makes it a bad
// string, EOF ends it).
func (s *scanner) cssString(quote byte, v *valueBuf) (start, end int, closed bool) {
	v.reset()
	start = s.off
	for {
		c, ok := s.next()
		if !ok {
			return start, s.off, true
		}
		switch c {
		case quote:
			return start, s.off - 1, true
		case '\n', '\r', '\f':
			s.back()
			return start, s.off, false
		case '\\':
			s.cssEscape(v, true)
		default:
			v.add(c)
		}
	}
}

// scanCSS finds url(), @import and image-set() references in CSS text.
func scanCSS(r io.ByteScanner, emit func(ref) error) error {
	s := &scanner{r: r}
	var v valueBuf
	var name []byte
	pendingAt := ""  // "import" or "namespace" until ';' or '{'
	imageSet := 0    // paren depth inside image-set(), 0 = outside
	depth := 0       // paren depth
	imageSetAt := -1 // depth at which image-set started
	for {
		c, ok := s.next()
		if !ok {
			return s.err
		}
		switch {
		case c == '/':
			if d, ok := s.peek(); ok && d == '*' {
				s.next()
				for star := false; ; {
					e, ok := s.next()
					if !ok {
						return s.err
					}
					if star && e == '/' {
						break
					}
					star = e == '*'
				}
			}
		case c == '"' || c == '\'':
			start, end, closed := s.cssString(c, &v)
			if !closed || v.over {
				continue
			}
			switch {
			case pendingAt == "import":
				pendingAt = "-"
				if err := emit(ref{string(v.b), start, end, c, "import"}); err != nil {
					return err
				}
			case imageSet > 0:
				if err := emit(ref{string(v.b), start, end, c, "image-set"}); err != nil {
					return err
				}
			}
		case c == '@':
			name = s.cssName(name[:0])
			switch strings.ToLower(string(name)) {
			case "import":
				pendingAt = "import"
			case "namespace":
				pendingAt = "namespace"
			}
		case c == ';' || c == '{' || c == '}':
			pendingAt = ""
		case c == '(':
			depth++
		case c == ')':
			if depth > 0 {
				depth--
			}
			if imageSet > 0 && depth < imageSetAt {
				imageSet, imageSetAt = 0, -1
			}
		case c == '\\' || isNameByte(c) && !('0' <= c && c <= '9'):
			if c == '\\' {
				if d, ok := s.peek(); !ok || d == '\n' || d == '\r' || d == '\f' {
					continue // a lone backslash is a delimiter
				}
			}
			s.back()
			name = s.cssName(name[:0])
			d, ok := s.peek()
			if !ok || d != '(' {
				continue
			}
			fn := strings.ToLower(string(name))
			switch fn {
			case "url":
				s.next()
				rf, found := s.cssURL(&v)
				if s.err != nil {
					return s.err
				}
				if !found {
					continue
				}
				at := pendingAt
				if at == "import" || at == "namespace" {
					pendingAt = "-"
				}
				if at == "namespace" {
					continue
				}
				switch {
				case at == "import":
					rf.attr = "import"
				case imageSet > 0:
					rf.attr = "image-set"
				}
				if err := emit(rf); err != nil {
					return err
				}
			case "image-set", "-webkit-image-set":
				s.next()
				depth++
				imageSet, imageSetAt = 1, depth
			}
		}
	}
}

// cssName reads an identifier (with escapes decoded) into buf.
func (s *scanner) cssName(buf []byte) []byte {
	var v valueBuf
	v.b = buf
	for {
		c, ok := s.next()
		if !ok {
			return v.b
		}
		switch {
		case isNameByte(c):
			v.add(c)
		case c == '\\':
			if d, ok := s.peek(); ok && d != '\n' && d != '\r' && d != '\f' {
				s.cssEscape(&v, false)
			} else {
				s.back()
				return v.b
			}
		default:
			s.back()
			return v.b
		}
	}
}

// cssURL reads the rest of url( ... ) after the '('. It reports whether a
// well-formed reference was found.
func (s *scanner) cssURL(v *valueBuf) (ref, bool) {
	for {
		c, ok := s.next()
		if !ok {
			return ref{}, false
		}
		if isCSSSpace(c) {
			continue
		}
		if c == '"' || c == '\'' {
			start, end, closed := s.cssString(c, v)
			s.skipBadURL() // the closing ')'
			if !closed || v.over {
				return ref{}, false
			}
			return ref{string(v.b), start, end, c, "url"}, true
		}
		s.back()
		break
	}
	v.reset()
	start := s.off
	end := -1
	for {
		c, ok := s.next()
		if !ok {
			if end < 0 {
				end = s.off
			}
			break
		}
		if c == ')' {
			if end < 0 {
				end = s.off - 1
			}
			break
		}
		if end >= 0 {
			if isCSSSpace(c) {
				continue
			}
			s.skipBadURL()
			return ref{}, false
		}
		switch {
		case isCSSSpace(c):
			end = s.off - 1
		case c == '"' || c == '\'' || c == '(' || c < ' ' || c == 0x7f:
			s.skipBadURL()
			return ref{}, false
		case c == '\\':
			if d, ok := s.peek(); ok && (d == '\n' || d == '\r' || d == '\f') {
				s.skipBadURL()
				return ref{}, false
			}
			s.cssEscape(v, false)
		default:
			v.add(c)
		}
	}
	if v.over {
		return ref{}, false
	}
	return ref{string(v.b), start, end, 0, "url"}, true
}

// skipBadURL consumes the remnants of a bad url( ) up to ')'.
func (s *scanner) skipBadURL() {
	for {
		c, ok := s.next()
		if !ok || c == ')' {
			return
		}
		if c == '\\' {
			s.next()
		}
	}
}

// CSS reports the links of a style sheet read from r, resolved against doc
// (the style sheet's URL): url(...) quoted or not, @import "x" and
// @import url(x), and the strings of image-set(). All are Embedded. Tag is
// "css", Attr "url", "import" or "image-set". @namespace URLs are not links.
func CSS(r io.Reader, doc *url.URL, f Func) error {
	return cssLinks(byteScanner(r), doc, "css", f, func(rf ref) Link {
		return Link{Start: int64(rf.start), End: int64(rf.end)}
	})
}

func byteScanner(r io.Reader) io.ByteScanner {
	if bs, ok := r.(io.ByteScanner); ok {
		return bs
	}
	return bufio.NewReaderSize(r, 32<<10)
}

// cssLinks runs the CSS scanner and turns refs into links; place fills the
// position fields (span, InAttr...) of each link.
func cssLinks(r io.ByteScanner, base *url.URL, tag string, f Func, place func(ref) Link) error {
	return scanCSS(r, func(rf ref) error {
		abs, frag, ok := Resolve(base, rf.value)
		if !ok {
			return nil
		}
		l := place(rf)
		l.URL, l.Fragment, l.Value = abs, frag, cleanValue(rf.value)
		l.Kind, l.Tag = Embedded, tag
		if l.Attr == "" {
			l.Attr = rf.attr
		}
		l.Quote = rf.quote
		if rf.quote == 0 {
			l.Syntax = SyntaxCSSURL
		} else {
			l.Syntax = SyntaxCSSString
		}
		return f(l)
	})
}
