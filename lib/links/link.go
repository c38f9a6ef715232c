package links

import (
	"errors"
	"fmt"
	"strings"
)

// Kind tells the crawler what a link is for (chapter 4.2.1: the "tag
// context" that decides whether a link must be taken).
type Kind uint8

const (
	// Navigational links lead to other documents: a, area, form action,
	// meta refresh, link rel=alternate... Out of scope, they can be left out
	// without changing how the page looks.
	Navigational Kind = iota
	// Embedded links are page requisites loaded with the page: images, style
	// sheets, scripts, frames, objects, media, fonts, CSS url()...
	Embedded
	// Base is the href of a <base> element: not a resource to fetch, but the
	// URL the document's relative links are resolved against. A mirror
	// neutralises it (rewrites it to "") so local relative links work.
	Base
)

// String returns "navigational", "embedded" or "base".
func (k Kind) String() string {
	switch k {
	case Navigational:
		return "navigational"
	case Embedded:
		return "embedded"
	case Base:
		return "base"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Syntax is the innermost syntax a link value sits in. Together with
// Link.Quote and Link.AttrQuote it decides how a replacement value must be
// escaped (see Link.Encode).
type Syntax uint8

const (
	// SyntaxAttr is a whole HTML attribute value (href, src, ...).
	SyntaxAttr Syntax = iota
	// SyntaxList is one URL of a list inside an attribute: a srcset
	// candidate, an applet archive entry.
	SyntaxList
	// SyntaxRefresh is the URL part of <meta http-equiv=refresh content="5; url=...">.
	SyntaxRefresh
	// SyntaxCSSURL is the contents of url(...) without quotes.
	SyntaxCSSURL
	// SyntaxCSSString is a CSS string: url("...") or @import "...".
	SyntaxCSSString
	// SyntaxJSString is a JavaScript string literal picked by the heuristic.
	SyntaxJSString
	// SyntaxClass is a string in a Java class file constant pool: reported
	// for crawling, never rewritten (chapter 4.2.3).
	SyntaxClass
	// SyntaxAppletCode is an applet/object code attribute (a class name,
	// relative to the codebase): reported for crawling, not rewritten, since
	// the codebase is.
	SyntaxAppletCode
)

var syntaxNames = [...]string{"attr", "list", "refresh", "css-url", "css-string", "js-string", "class", "applet-code"}

// String returns a short name: attr, list, refresh, css-url, css-string,
// js-string, class, applet-code.
func (s Syntax) String() string {
	if int(s) < len(syntaxNames) {
		return syntaxNames[s]
	}
	return fmt.Sprintf("Syntax(%d)", uint8(s))
}

// Link is one link found in a document.
type Link struct {
	// URL is the absolute URL, resolved against the document (or <base>, or
	// the applet codebase), without its fragment. Scheme and host are lower
	// case and a default port is dropped. Always http or https.
	URL string
	// Fragment is the "#..." part of the value, or "" (kept when a mirror
	// rewrites the link).
	Fragment string
	// Value is the cleaned value the URL was resolved from: entity- or
	// escape-decoded, surrounding whitespace and inner tab/CR/LF removed.
	Value string
	// Kind is Embedded, Navigational or Base.
	Kind Kind
	// Tag and Attr name where the link was found: ("img", "src"),
	// ("a", "href"), ("style", "url"), ("script", "string"), ... For CSS
	// files Tag is "css", for scripts "js", for class files "class".
	Tag, Attr string
	// Start and End are the byte offsets of the value in the source
	// document: Source[Start:End] is exactly the text to replace to rewrite
	// the link (inside quotes, inside url(...), inside the JS string...).
	Start, End int64
	// Syntax is the innermost syntax around the value.
	Syntax Syntax
	// Quote is the quote around the value in its innermost syntax: '"',
	// '\'', '`' or 0 when unquoted.
	Quote byte
	// InAttr reports that the value lies inside an HTML attribute value
	// (always for SyntaxAttr, SyntaxList, SyntaxRefresh and
	// SyntaxAppletCode; for CSS and JS found in style= and on*= attributes
	// or javascript: URLs). AttrQuote is then that attribute's quote.
	InAttr    bool
	AttrQuote byte
	// InRawText reports that the value lies in the raw text of an HTML
	// <script> or <style> element, where "</" must not appear.
	InRawText bool
}

// Rewritable reports whether the link's text may be replaced in the source.
// Class-file strings and applet code names are not.
func (l *Link) Rewritable() bool {
	return l.Syntax != SyntaxClass && l.Syntax != SyntaxAppletCode && l.End >= l.Start
}

// Func receives links in source order. Returning a non-nil error stops the
// extraction, which then returns that error.
type Func func(Link) error

// ErrTooLarge is wrapped by errors about an HTML token larger than the
// tokenizer's buffer limit.
var ErrTooLarge = errors.New("token too large")

// Encode escapes value (a URL, typically relative) so that it can replace
// Source[l.Start:l.End], following the link's syntax, quote and, when the
// link lies in an HTML attribute, the attribute's quoting. Characters that
// would end the value early are percent-encoded or escaped; nothing else
// is touched, so a plain relative path comes back unchanged.
func (l *Link) Encode(value string) string {
	v := value
	switch l.Syntax {
	case SyntaxList:
		// a candidate URL ends at whitespace; a trailing comma would be eaten
		v = pctEscape(v, func(c byte) bool { return isHTMLSpace(c) || c == ',' })
	case SyntaxRefresh:
		v = pctEscape(v, func(c byte) bool { return isHTMLSpace(c) || c == ';' || c == '\'' || c == '"' })
	case SyntaxCSSURL:
		v = pctEscape(v, func(c byte) bool {
			return c <= ' ' || c == '(' || c == ')' || c == '"' || c == '\'' || c == '\\' || c == 0x7f
		})
	case SyntaxCSSString:
		v = cssStringEscape(v, l.Quote)
	case SyntaxJSString:
		v = jsStringEscape(v, l.Quote)
	}
	if l.InRawText {
		// "</script" or "</style" would close the element
		v = strings.ReplaceAll(v, "</", "<\\/")
		if l.Syntax != SyntaxJSString {
			v = strings.ReplaceAll(v, "<\\/", "%3C/")
		}
	}
	if l.InAttr || l.Syntax == SyntaxAttr {
		v = attrEscape(v, l.AttrQuote)
		if v == "" && l.AttrQuote == 0 && l.Syntax == SyntaxAttr {
			// an empty unquoted value would swallow the next attribute
			v = `""`
		}
	}
	return v
}

func isHTMLSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

const hexLower = "0123456789abcdef"

// pctEscape percent-encodes the bytes for which bad returns true.
func pctEscape(s string, bad func(byte) bool) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if bad(s[i]) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if bad(c) {
			b.WriteByte('%')
			b.WriteByte(hexLower[c>>4])
			b.WriteByte(hexLower[c&15])
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

func cssStringEscape(s string, quote byte) string {
	if !strings.ContainsAny(s, "\\\n\r\f\"'") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' || c == quote:
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n' || c == '\r' || c == '\f':
			b.WriteString(`\`)
			b.WriteByte(hexLower[c>>4&15])
			b.WriteByte(hexLower[c&15])
			b.WriteByte(' ')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func jsStringEscape(s string, quote byte) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' || c == quote:
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case quote == '`' && c == '$' && i+1 < len(s) && s[i+1] == '{':
			b.WriteString(`\$`)
		case c == 0xe2 && i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xa8 || s[i+2] == 0xa9):
			// U+2028, U+2029 end a line in older engines
			b.WriteString(`\u202`)
			b.WriteByte("89"[s[i+2]-0xa8])
			i += 2
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// attrEscape escapes s for an HTML attribute value quoted with quote (0 for
// unquoted).
func attrEscape(s string, quote byte) string {
	if !strings.ContainsAny(s, "&\"'> \t\n\r\f") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '&':
			b.WriteString("&amp;")
		case c == '"' && quote != '\'':
			b.WriteString("&quot;")
		case c == '\'' && quote != '"':
			b.WriteString("&#39;")
		case quote == 0 && (c == '>' || isHTMLSpace(c)):
			b.WriteString("&#")
			b.WriteString(fmt.Sprint(int(c)))
			b.WriteByte(';')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
