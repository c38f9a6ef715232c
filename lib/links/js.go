package links

import (
	"io"
	"net/url"
	"strings"

	"github.com/arcport/arcport/lib/internal/ascii"
)

// jsSafeBefore holds the characters that may precede a string literal for it
// to be taken as a whole URL (chapter 4.2.2: "Safe preceding characters
// includes ;, (, =", plus ',' for argument lists, '[' and ':' for array and
// object literals and '?' for a conditional).
const jsSafeBefore = "=(,;[:?"

// jsSafeAfter holds the characters that may follow it (";", ")", ",", and the
// closing brackets of literals); a line end or the end of the script also do.
const jsSafeAfter = ";),]}:"

// regexBefore holds the characters after which a '/' starts a regular
// expression literal rather than a division.
const regexBefore = "(,=:[!&|?{};+-*%<>~^"

// scanJS extracts the string literals of a script that pass the chapter's
// heuristic: preceded by a safe character and not continued by an operator.
// It does not judge whether the string looks like a URL.
func scanJS(r io.ByteScanner, emit func(ref) error) error {
	s := &scanner{r: r}
	var v valueBuf
	var prev, prev2 byte // last two significant bytes (0 at the start)
	var pending *ref     // a candidate waiting for the byte that follows it
	var cand ref
	decide := func(accept bool) error {
		p := pending
		pending = nil
		if accept && p != nil {
			return emit(*p)
		}
		return nil
	}
	for {
		c, ok := s.next()
		if !ok {
			if s.err != nil {
				return s.err
			}
			return decide(true)
		}
		if c == '\n' || c == '\r' {
			if err := decide(true); err != nil {
				return err
			}
			continue
		}
		if c == ' ' || c == '\t' || c == '\f' || c == '\v' {
			continue
		}
		if c == '/' {
			d, _ := s.peek()
			switch {
			case d == '/':
				for {
					e, ok := s.next()
					if !ok {
						return s.err
					}
					if e == '\n' || e == '\r' {
						s.back()
						break
					}
				}
				continue
			case d == '*':
				s.next()
				for star := false; ; {
					e, ok := s.next()
					if !ok {
						return s.err
					}
					if e == '\n' && pending != nil {
						if err := decide(true); err != nil {
							return err
						}
					}
					if star && e == '/' {
						break
					}
					star = e == '*'
				}
				continue
			case prev == 0 || strings.IndexByte(regexBefore, prev) >= 0:
				if err := decide(false); err != nil {
					return err
				}
				s.skipRegex()
				prev2, prev = prev, '/'
				continue
			}
		}
		if pending != nil {
			if err := decide(strings.IndexByte(jsSafeAfter, c) >= 0); err != nil {
				return err
			}
		}
		if c == '"' || c == '\'' || c == '`' {
			safe := prev != 0 && strings.IndexByte(jsSafeBefore, prev) >= 0 &&
				!(prev == '=' && prev2 != 0 && strings.IndexByte("+-*/%&|^<>", prev2) >= 0)
			start, end, closed, plain := s.jsString(c, &v)
			if s.err != nil {
				return s.err
			}
			if closed && plain && safe && !v.over {
				cand = ref{string(v.b), start, end, c, "string"}
				pending = &cand
			}
			prev2, prev = prev, c
			continue
		}
		prev2, prev = prev, c
	}
}

// jsString reads a string or template literal after its opening quote,
// decoding escapes into v. plain is false for a template with ${...}.
func (s *scanner) jsString(quote byte, v *valueBuf) (start, end int, closed, plain bool) {
	v.reset()
	start, plain = s.off, true
	for {
		c, ok := s.next()
		if !ok {
			return start, s.off, false, plain
		}
		switch {
		case c == quote:
			return start, s.off - 1, true, plain
		case (c == '\n' || c == '\r') && quote != '`':
			s.back()
			return start, s.off, false, plain
		case c == '$' && quote == '`':
			if d, ok := s.peek(); ok && d == '{' {
				plain = false
			}
			v.add(c)
		case c == '\\':
			s.jsEscape(v)
		default:
			v.add(c)
		}
	}
}

// jsEscape decodes an escape sequence after the backslash.
func (s *scanner) jsEscape(v *valueBuf) {
	c, ok := s.next()
	if !ok {
		return
	}
	switch c {
	case 'n':
		v.add('\n')
	case 't':
		v.add('\t')
	case 'r':
		v.add('\r')
	case 'b':
		v.add('\b')
	case 'f':
		v.add('\f')
	case 'v':
		v.add('\v')
	case '0':
		v.add(0)
	case '\r':
		if d, ok := s.next(); ok && d != '\n' {
			s.back()
		}
	case '\n':
		// line continuation
	case 'x':
		if r, ok := s.hexDigits(2); ok {
			v.addRune(r)
		} else {
			v.add('x')
		}
	case 'u':
		if d, ok := s.peek(); ok && d == '{' {
			s.next()
			var r rune
			n := 0
			for {
				e, ok := s.next()
				if !ok || e == '}' || !ascii.IsHex(e) || n > 6 {
					break
				}
				r = r<<4 | rune(ascii.Unhex(e))
				n++
			}
			v.addRune(r)
		} else if r, ok := s.hexDigits(4); ok {
			v.addRune(r)
		} else {
			v.add('u')
		}
	default:
		v.add(c)
	}
}

// hexDigits reads exactly n hex digits; on failure it consumes what it read.
func (s *scanner) hexDigits(n int) (rune, bool) {
	var r rune
	for i := 0; i < n; i++ {
		c, ok := s.next()
		if !ok {
			return 0, false
		}
		if !ascii.IsHex(c) {
			s.back()
			return 0, false
		}
		r = r<<4 | rune(ascii.Unhex(c))
	}
	return r, true
}

// skipRegex consumes a regular expression literal after its opening '/'.
func (s *scanner) skipRegex() {
	class := false
	for {
		c, ok := s.next()
		if !ok {
			return
		}
		switch c {
		case '\\':
			s.next()
		case '[':
			class = true
		case ']':
			class = false
		case '/':
			if !class {
				return
			}
		case '\n', '\r':
			s.back()
			return
		}
	}
}

// JS reports the links of a script read from r, resolved against doc (the
// page for inline scripts, chapter 4.2.2): string literals that look like
// URLs (LooksLikeURL) preceded by one of = ( , ; [ : ? and followed by one of
// ; ) , ] } : or a line end. Kind follows the extension (KindOf). Tag is "js",
// Attr "string", Syntax SyntaxJSString.
func JS(r io.Reader, doc *url.URL, f Func) error {
	return jsLinks(byteScanner(r), doc, "js", f, func(rf ref) Link {
		return Link{Start: int64(rf.start), End: int64(rf.end)}
	})
}

func jsLinks(r io.ByteScanner, base *url.URL, tag string, f Func, place func(ref) Link) error {
	return scanJS(r, func(rf ref) error {
		if !LooksLikeURL(rf.value) {
			return nil
		}
		abs, frag, ok := Resolve(base, rf.value)
		if !ok {
			return nil
		}
		l := place(rf)
		l.URL, l.Fragment, l.Value = abs, frag, rf.value
		l.Kind, l.Tag = KindOf(abs), tag
		if l.Attr == "" {
			l.Attr = rf.attr
		}
		l.Syntax, l.Quote = SyntaxJSString, rf.quote
		return f(l)
	})
}
