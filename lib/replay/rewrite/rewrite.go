package rewrite

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"io"
	"mime"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/andybalholm/brotli"
	"github.com/arcport/arcport/lib/links"
	"github.com/klauspost/compress/zstd"
	"golang.org/x/net/html"
)

// MaxSize bounds the documents rewritten (held in memory while
// rewritten, and by Decode); the server sends a larger one as captured.
const MaxSize = 32 << 20

// Kind is what a payload is rewritten as.
type Kind int

const (
	None Kind = iota
	HTML
	CSS
	JS
)

// modifiers are pywb's replay modifiers this server answers (id_ in
// replay.go; "" is the top frame).
var modifiers = map[string]bool{"mp_": true, "js_": true, "cs_": true, "im_": true, "oe_": true, "if_": true, "fr_": true}

// KindOf decides how a payload of Content-Type ctype at URL u is
// rewritten under modifier mod: by its type (by the URL's extension when
// the type is missing or generic); js_ and cs_ make a textual payload
// JavaScript or CSS as in pywb; im_ and oe_ never rewrite a body.
func KindOf(mod, ctype, u string) Kind {
	if mod == "im_" || mod == "oe_" {
		return None
	}
	mt, _, err := mime.ParseMediaType(ctype)
	if err != nil {
		mt, _, _ = strings.Cut(ctype, ";")
		mt = strings.ToLower(strings.TrimSpace(mt))
	}
	k := None
	switch mt {
	case "text/html", "application/xhtml+xml", "image/svg+xml":
		// an SVG document (not an image: im_ is never rewritten) has the
		// links of HTML's image, use and a elements
		k = HTML
	case "application/json", "text/json", "application/ld+json", "application/manifest+json":
		// no script of ours runs in the page to rewrite what a script
		// reads: absolute URLs in JSON are rewritten as in JavaScript
		k = JS
	case "text/css":
		k = CSS
	case "application/javascript", "text/javascript", "application/x-javascript", "application/ecmascript",
		"text/ecmascript", "text/jscript", "application/x-ecmascript", "text/x-javascript", "module":
		k = JS
	case "", "application/octet-stream", "binary/octet-stream", "text/plain", "application/unknown", "unknown/unknown":
		switch links.Ext(u) {
		case "html", "htm", "shtml", "xhtml":
			k = HTML
		case "css":
			k = CSS
		case "js", "mjs":
			k = JS
		}
	}
	textual := k != None || strings.HasPrefix(mt, "text/") || mt == "" || mt == "application/octet-stream"
	switch {
	case mod == "js_" && textual:
		return JS
	case mod == "cs_" && textual:
		return CSS
	}
	return k
}

// Rewriter makes URLs of the archive, Prefix+TS+mod+"/"+URL
// (/COLL/TS{mod}/URL), for the links of the document at Doc.
type Rewriter struct {
	Prefix string   // "/COLL/"
	TS     string   // the capture's time-stamp
	Doc    *url.URL // the document's URL
}

func (u *Rewriter) archive(abs, mod string) string {
	return u.Prefix + u.TS + mod + "/" + abs
}

// modFor is the modifier of a link found in HTML or CSS, as pywb picks
// it: im_ for images and media, cs_ for style sheets, js_ for scripts,
// if_/fr_ for frames, oe_ for objects, mp_ for what is followed.
func modFor(l *links.Link) string {
	byExt := func(def string) string {
		switch links.Ext(l.URL) {
		case "css":
			return "cs_"
		case "js", "mjs":
			return "js_"
		}
		return def
	}
	if l.Kind == links.Base {
		return "mp_"
	}
	switch l.Tag {
	case "css", "style":
		if l.Attr == "import" {
			return "cs_"
		}
		return byExt("im_")
	case "js", "script":
		if l.Attr == "src" {
			return "js_"
		}
		if l.Syntax == links.SyntaxJSString {
			return "mp_"
		}
	case "img", "image", "picture", "video", "audio", "source", "track", "input", "feimage", "use":
		return "im_"
	case "iframe":
		return "if_"
	case "frame":
		return "fr_"
	case "object", "embed", "applet", "param":
		return "oe_"
	case "link":
		if l.Kind == links.Embedded {
			return byExt("mp_")
		}
		return "mp_"
	}
	if l.Syntax == links.SyntaxCSSURL || l.Syntax == links.SyntaxCSSString {
		return byExt("im_")
	}
	if l.Attr == "background" || l.Attr == "poster" || l.Attr == "lowsrc" || l.Attr == "dynsrc" {
		return "im_"
	}
	return "mp_"
}

// edit replaces src[start:end] with text.
type edit struct {
	start, end int
	text       string
}

// applyEdits writes src with the edits applied (sorted by start here;
// one overlapping an earlier one is dropped).
func applyEdits(src []byte, edits []edit) []byte {
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	var b bytes.Buffer
	b.Grow(len(src) + len(edits)*32)
	pos := 0
	for _, e := range edits {
		if e.start < pos || e.end < e.start || e.end > len(src) {
			continue
		}
		b.Write(src[pos:e.start])
		b.WriteString(e.text)
		pos = e.end
	}
	b.Write(src[pos:])
	return b.Bytes()
}

// isAbsoluteRef reports whether a link's value names a scheme and host
// (http:, https: or "//"), the only JavaScript strings rewritten.
func isAbsoluteRef(v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	return strings.HasPrefix(v, "http:") || strings.HasPrefix(v, "https:") || strings.HasPrefix(v, "//")
}

// linkEdit is the edit that rewrites one link found by lib/links, or false
// when it is left alone.
func (u *Rewriter) linkEdit(l *links.Link, off int) (edit, bool) {
	if !l.Rewritable() || strings.HasPrefix(strings.TrimSpace(l.Value), "#") {
		return edit{}, false
	}
	if l.Syntax == links.SyntaxJSString && !isAbsoluteRef(l.Value) {
		return edit{}, false
	}
	v := u.archive(l.URL, modFor(l)) + l.Fragment
	return edit{int(l.Start) + off, int(l.End) + off, l.Encode(v)}, true
}

// rewriteHTML rewrites an HTML document (see doc.go).
func (u *Rewriter) rewriteHTML(src []byte) []byte {
	if !asciiCompatible(src) {
		return src
	}
	var edits []edit
	links.HTML(bytes.NewReader(src), u.Doc, func(l links.Link) error {
		if l.Syntax == links.SyntaxJSString && l.InRawText {
			return nil // the <script> text: rewritten below, as pywb does
		}
		if e, ok := u.linkEdit(&l, 0); ok {
			edits = append(edits, e)
		}
		return nil
	})
	edits = append(edits, u.htmlTagEdits(src)...)
	return applyEdits(src, edits)
}

// inertRels are the <link rel> values that make a browser connect to a
// host by itself.
var inertRels = map[string]bool{"preconnect": true, "dns-prefetch": true, "prefetch": true, "prerender": true, "modulepreload": false}

// htmlTagEdits walks the document's tags (x/net/html's tokenizer, as
// lib/links does) for what lib/links does not report: the text of each
// <script> (the JavaScript rewriter), integrity attributes, <link
// rel=preconnect...> and <a ping>.
func (u *Rewriter) htmlTagEdits(src []byte) []edit {
	var edits []edit
	z := html.NewTokenizer(bytes.NewReader(src))
	z.SetMaxBuf(0)
	off := 0
	inScript := false
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		raw := z.Raw()
		start := off
		off += len(raw)
		switch tt {
		case html.TextToken:
			if inScript {
				edits = append(edits, u.jsEdits(raw, start)...)
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			tag := string(name)
			inScript = false
			if tag == "script" && tt == html.StartTagToken {
				inScript = true
				for hasAttr {
					k, v, more := z.TagAttr()
					hasAttr = more
					if string(k) == "type" {
						t := strings.ToLower(strings.TrimSpace(string(v)))
						// a template or data block is no JavaScript
						if strings.Contains(t, "template") || strings.Contains(t, "html") {
							inScript = false
						}
					}
				}
			} else if tag == "link" {
				for hasAttr {
					k, v, more := z.TagAttr()
					hasAttr = more
					if string(k) == "rel" {
						for _, r := range strings.Fields(strings.ToLower(string(v))) {
							if inertRels[r] {
								edits = append(edits, attrNameEdits(raw, start, "rel")...)
								break
							}
						}
					}
				}
			}
			switch tag {
			case "script", "link", "style":
				edits = append(edits, attrNameEdits(raw, start, "integrity")...)
			case "a", "area":
				edits = append(edits, attrNameEdits(raw, start, "ping")...)
			}
		default:
			inScript = false
		}
	}
	return edits
}

// attrNameEdits insert "_" before each attribute named name in the raw
// tag (at src offset off): the attribute is then unknown to the browser.
func attrNameEdits(raw []byte, off int, name string) []edit {
	var edits []edit
	lower := bytes.ToLower(raw)
	n := []byte(name)
	inQuote := byte(0)
	for i := 1; i < len(lower); i++ {
		c := lower[i]
		if inQuote != 0 {
			if c == inQuote {
				inQuote = 0
			}
			continue
		}
		if c == '"' || c == '\'' {
			// only a quote after "=" opens a value
			j := i - 1
			for j > 0 && isSpace(lower[j]) {
				j--
			}
			if lower[j] == '=' {
				inQuote = c
			}
			continue
		}
		if !isSpace(lower[i-1]) || !bytes.HasPrefix(lower[i:], n) {
			continue
		}
		e := i + len(n)
		if e < len(lower) && (lower[e] == '=' || isSpace(lower[e]) || lower[e] == '>' || lower[e] == '/') {
			edits = append(edits, edit{off + i, off + i, "_"})
		}
	}
	return edits
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// asciiCompatible reports whether a document can be rewritten as bytes:
// not UTF-16 or UTF-32 (a byte order mark, or NULs in its first bytes).
func asciiCompatible(src []byte) bool {
	if bytes.HasPrefix(src, []byte{0xFE, 0xFF}) || bytes.HasPrefix(src, []byte{0xFF, 0xFE}) {
		return false
	}
	head := src
	if len(head) > 512 {
		head = head[:512]
	}
	return bytes.IndexByte(head, 0) < 0
}

// rewriteCSS rewrites a style sheet's url(...) and @import.
func (u *Rewriter) rewriteCSS(src []byte) []byte {
	if !asciiCompatible(src) {
		return src
	}
	var edits []edit
	links.CSS(bytes.NewReader(src), u.Doc, func(l links.Link) error {
		if e, ok := u.linkEdit(&l, 0); ok {
			edits = append(edits, e)
		}
		return nil
	})
	return applyEdits(src, edits)
}

// jsURL is pywb's RegexRewriter.HTTPX_MATCH_STR, with the
// protocol-relative form: a scheme (or none), two slashes (each maybe
// JSON-escaped) and a host.
var jsURL = regexp.MustCompile(`(?i)(https?:)?\\?/\\?/[a-z0-9:_@.-]+`)

// rewriteJS rewrites a script's absolute URLs.
func (u *Rewriter) rewriteJS(src []byte) []byte {
	if !asciiCompatible(src) {
		return src
	}
	return applyEdits(src, u.jsEdits(src, 0))
}

// jsEdits are the edits of pywb's JavaScript regex rewriter over src (at
// offset off of the document).
func (u *Rewriter) jsEdits(src []byte, off int) []edit {
	var edits []edit
	for _, m := range jsURL.FindAllSubmatchIndex(src, -1) {
		s, e := m[0], m[1]
		prev := byte(0)
		if s > 0 {
			prev = src[s-1]
		}
		hasScheme := m[2] >= 0
		if hasScheme {
			// not inside a word or a path (a URL already rewritten)
			if isWordByte(prev) || prev == '/' || prev == '_' || prev == '.' {
				continue
			}
		} else if prev != '"' && prev != '\'' && prev != '`' {
			// "//host" only right after a quote: not a comment
			continue
		}
		match := string(src[s:e])
		escaped := strings.Contains(match, `\/`)
		plain := strings.ReplaceAll(match, `\/`, `/`)
		host := plain[strings.Index(plain, "//")+2:]
		if !strings.Contains(host, ".") && !strings.HasPrefix(strings.ToLower(host), "localhost") {
			continue
		}
		if !hasScheme {
			scheme := "http"
			if u.Doc != nil && u.Doc.Scheme == "https" {
				scheme = "https"
			}
			plain = scheme + ":" + plain
		}
		v := u.archive(plain, "mp_")
		if escaped {
			v = strings.ReplaceAll(v, "/", `\/`)
		}
		edits = append(edits, edit{s + off, e + off, v})
	}
	return edits
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// Body rewrites a document of kind k.
func (u *Rewriter) Body(k Kind, src []byte) []byte {
	switch k {
	case HTML:
		return u.rewriteHTML(src)
	case CSS:
		return u.rewriteCSS(src)
	case JS:
		return u.rewriteJS(src)
	}
	return src
}

// URL makes a URL found in a header (resolved against the
// document) a URL of the archive; a URL of another scheme is kept.
func (u *Rewriter) URL(v, mod string) string {
	abs, frag, ok := links.Resolve(u.Doc, v)
	if !ok {
		return v
	}
	return u.archive(abs, mod) + frag
}

// LinkHeader rewrites each <URL> of a Link header.
func (u *Rewriter) LinkHeader(v string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(v, '<')
		if i < 0 {
			break
		}
		j := strings.IndexByte(v[i:], '>')
		if j < 0 {
			break
		}
		b.WriteString(v[:i+1])
		b.WriteString(u.URL(v[i+1:i+j], "mp_"))
		b.WriteByte('>')
		v = v[i+j+1:]
	}
	b.WriteString(v)
	return b.String()
}

// Refresh rewrites the URL of a Refresh header ("5; url=...").
func (u *Rewriter) Refresh(v string) string {
	i := strings.Index(strings.ToLower(v), "url=")
	if i < 0 {
		return v
	}
	val := strings.Trim(strings.TrimSpace(v[i+4:]), `"'`)
	return v[:i+4] + u.URL(val, "mp_")
}

// Decode undoes the content codings of a payload (a list, the
// last applied first undone); false for a coding not known or a payload
// that does not decode, or decodes to more than MaxSize bytes.
func Decode(codings string, src []byte) ([]byte, bool) {
	list := strings.Split(codings, ",")
	for i := len(list) - 1; i >= 0; i-- {
		r, ok := decoder(list[i], bytes.NewReader(src))
		if !ok {
			return nil, false
		}
		out, err := io.ReadAll(io.LimitReader(r, MaxSize+1))
		if c, ok := r.(io.Closer); ok {
			c.Close()
		}
		if err != nil || len(out) > MaxSize {
			return nil, false
		}
		src = out
	}
	return src, true
}

// decoder undoes one content coding.
func decoder(coding string, r io.Reader) (io.Reader, bool) {
	switch strings.ToLower(strings.TrimSpace(coding)) {
	case "", "identity":
		return r, true
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, false
		}
		return zr, true
	case "deflate":
		// zlib as RFC 9110 says, or raw deflate as some servers send
		br := bufio.NewReader(r)
		if h, _ := br.Peek(2); len(h) == 2 && h[0]&0x0f == 8 && (uint16(h[0])<<8|uint16(h[1]))%31 == 0 {
			zr, err := zlib.NewReader(br)
			if err != nil {
				return nil, false
			}
			return zr, true
		}
		return flate.NewReader(br), true
	case "br":
		return brotli.NewReader(r), true
	case "zstd":
		zr, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(MaxSize*4))
		if err != nil {
			return nil, false
		}
		return zr.IOReadCloser(), true
	}
	return nil, false
}
