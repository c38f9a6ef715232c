package links

import (
	"bytes"
	"fmt"
	"io"
	"net/url"
	"strings"

	"golang.org/x/net/html"
)

// MaxHTMLToken bounds the bytes the HTML tokenizer buffers for one token
// (a tag, a comment, a whole inline script or style sheet). Past it HTML
// returns an error wrapping ErrTooLarge that names the offset. Text between
// tags holds no links and is read in pieces of smallToken bytes, however
// long the run: a page of a gigabyte of text costs no more memory than one
// of a kilobyte.
const MaxHTMLToken = 32 << 20

// smallToken is how much of a token the tokenizer buffers before the
// extractor looks at what it is: a longer text run is read on in pieces,
// any other token read again whole with a buffer of MaxHTMLToken.
const smallToken = 1 << 20

// feedChunk bounds each read the tokenizer makes, so that what it has read
// ahead of a token is always within the last read (see feeder).
const feedChunk = 4096

// feeder hands the tokenizer its input in reads of at most feedChunk bytes,
// first any bytes to replay, and keeps a copy of the last read: when the
// extractor restarts a tokenizer in the middle of the document, the bytes
// the old one had read ahead are the tail of that copy.
type feeder struct {
	r      io.Reader
	replay []byte
	last   []byte
	fed    int64 // bytes handed to the current tokenizer
}

func (f *feeder) Read(p []byte) (int, error) {
	if len(p) > feedChunk {
		p = p[:feedChunk]
	}
	var n int
	var err error
	if len(f.replay) > 0 {
		n = copy(p, f.replay)
		f.replay = f.replay[n:]
	} else {
		n, err = f.r.Read(p)
	}
	f.last = append(f.last[:0], p[:n]...)
	f.fed += int64(n)
	return n, err
}

// tokenizerRaw are the elements after whose start tag golang.org/x/net/html
// reads the contents as one raw text token, up to the end tag.
var tokenizerRaw = map[string]bool{"iframe": true, "noembed": true, "noframes": true, "noscript": true,
	"plaintext": true, "script": true, "style": true, "textarea": true, "title": true, "xmp": true}

// maxNesting bounds the re-parsing of <noscript>, <noframes> and <noembed>
// contents (raw text for the tokenizer, markup for a mirror).
const maxNesting = 4

// HTML reports the links of an HTML document read from r, doc being its URL.
// Links come in source order; see the package comment for what is found.
// The error names the byte offset of a token too large or a read failure;
// malformed markup is never an error.
func HTML(r io.Reader, doc *url.URL, f Func) error {
	e := &htmlExtractor{doc: doc, base: doc, f: f, small: smallToken}
	return e.run(r, 0, 0)
}

type htmlExtractor struct {
	doc, base *url.URL
	baseSet   bool
	f         Func
	small     int // smallToken (tests make it smaller)
	memo      map[resolveKey]resolved
}

// resolveKey and resolved memoise Resolve for the values of a document: a
// page repeating a link (a menu on every row, a hostile page of a million
// <a href=x>) resolves it once.
type resolveKey struct {
	base *url.URL
	ref  string
}

type resolved struct {
	abs, frag string
	ok        bool
}

// maxMemo bounds the memo; memoRef bounds the values it keeps.
const (
	maxMemo = 1024
	memoRef = 256
)

// resolve is Resolve(base, ref), memoised for short values.
func (e *htmlExtractor) resolve(base *url.URL, ref string) (string, string, bool) {
	if len(ref) > memoRef {
		return Resolve(base, ref)
	}
	k := resolveKey{base, ref}
	if r, ok := e.memo[k]; ok {
		return r.abs, r.frag, r.ok
	}
	abs, frag, ok := Resolve(base, ref)
	if e.memo == nil || len(e.memo) >= maxMemo {
		e.memo = make(map[resolveKey]resolved, 64)
	}
	k.ref = strings.Clone(ref) // not the whole attribute it was cut from
	e.memo[k] = resolved{abs, frag, ok}
	return abs, frag, ok
}

// run reads the tokens of r, whose first byte is at offset off of the
// document. The tokenizer buffers at most smallToken bytes of a token: a
// longer text run is handed on in pieces, a fresh tokenizer going on where
// the piece ends; any other token (a tag, a comment, the contents of a
// <script>) is read again from its start by a tokenizer allowed
// MaxHTMLToken, put back in raw text state by a synthetic start tag when
// the token is an element's contents.
func (e *htmlExtractor) run(r io.Reader, off int64, depth int) error {
	src := &feeder{r: r}
	var z *html.Tokenizer
	var consumed int64 // bytes of z's input its tokens took
	synthetic := false // z's first token is the synthetic start tag
	big := false       // z may buffer MaxHTMLToken
	limit := 0         // z's buffer limit: a token that long is cut short
	restart := func(replay []byte, prefix string, bigBuf bool) {
		src.replay = append([]byte(prefix), replay...)
		src.fed, consumed = 0, 0
		synthetic, big = prefix != "", bigBuf
		z = html.NewTokenizer(src)
		limit = e.small
		if big {
			limit = MaxHTMLToken
		}
		z.SetMaxBuf(limit)
	}
	restart(nil, "", false)
	tokRaw := ""     // the element whose raw contents the tokenizer reads next
	rawText := ""    // the raw text element whose contents come next
	scriptJS := true // whether that <script> is JavaScript
	for {
		tt := z.Next()
		raw := z.Raw()
		if len(raw) >= limit {
			// The token is cut short (the tokenizer fails when a token
			// reaches its limit; a text token is returned first, the error
			// on the next call). raw is the part read so far, ahead what z
			// read past it: the tail of its last read.
			ahead := src.fed - consumed - int64(len(raw))
			if big || synthetic || ahead < 0 || ahead > int64(len(src.last)) {
				return fmt.Errorf("offset %d: %w (over %d bytes)", off, ErrTooLarge, MaxHTMLToken)
			}
			tail := src.last[len(src.last)-int(ahead):]
			keep := len(raw)
			if tokRaw == "" && tt == html.TextToken {
				// text: go on from the end of the piece, or from the
				// first '<' of its last three bytes, which may open a tag
				// or a bogus comment ("<a", "</a", "</<")
				if i := bytes.IndexByte(raw[max(0, keep-3):], '<'); i >= 0 {
					keep = max(0, keep-3) + i
				}
			} else {
				keep = 0
			}
			if keep > 0 {
				off += int64(keep)
				rawText = ""
				restart(append(append([]byte(nil), raw[keep:]...), tail...), "", false)
				continue
			}
			prefix := ""
			if tokRaw != "" {
				prefix = "<" + tokRaw + ">"
			}
			restart(append(append([]byte(nil), raw...), tail...), prefix, true)
			continue
		}
		consumed += int64(len(raw))
		if synthetic {
			synthetic = false
			continue
		}
		if big && tt != html.ErrorToken {
			limit, big = e.small, false
			z.SetMaxBuf(limit)
		}
		tokRaw = ""
		switch tt {
		case html.ErrorToken:
			err := z.Err()
			if err == io.EOF {
				return nil
			}
			return fmt.Errorf("offset %d: %w", off, err)
		case html.StartTagToken, html.SelfClosingTagToken:
			name, attrs := parseTag(raw)
			if err := e.tag(name, attrs, raw, off); err != nil {
				return err
			}
			if tokenizerRaw[name] {
				tokRaw = name
			}
			rawText = ""
			switch name {
			case "script":
				rawText = name
				scriptJS = isJSType(attrValue(raw, attrs, "type"), attrValue(raw, attrs, "language"))
			case "style":
				rawText = name
				scriptJS = isCSSType(attrValue(raw, attrs, "type"))
			case "noscript", "noframes", "noembed":
				rawText = name
			}
		case html.TextToken:
			switch rawText {
			case "script":
				if scriptJS {
					if err := jsLinks(bytes.NewReader(raw), e.base, "script", e.f, e.placeRaw(off)); err != nil {
						return err
					}
				}
			case "style":
				if scriptJS {
					if err := cssLinks(bytes.NewReader(raw), e.base, "style", e.f, e.placeRaw(off)); err != nil {
						return err
					}
				}
			case "noscript", "noframes", "noembed":
				if depth < maxNesting {
					if err := e.run(bytes.NewReader(raw), off, depth+1); err != nil {
						return err
					}
				}
			}
			rawText = ""
		default:
			rawText = ""
		}
		off += int64(len(raw))
	}
}

// placeRaw positions links found in the raw text of <script> or <style>.
func (e *htmlExtractor) placeRaw(off int64) func(ref) Link {
	return func(rf ref) Link {
		return Link{Start: off + int64(rf.start), End: off + int64(rf.end), InRawText: true}
	}
}

// placeAttr positions links found inside a decoded attribute value: k is the
// offset in d.s where the scanned text starts, valOff the document offset of
// the raw value.
func placeAttr(d *decoded, k int, valOff int64, attr string, quote byte) func(ref) Link {
	return func(rf ref) Link {
		return Link{
			Attr:   attr,
			Start:  valOff + int64(d.rawOffset(k+rf.start)),
			End:    valOff + int64(d.rawOffset(k+rf.end)),
			InAttr: true, AttrQuote: quote,
		}
	}
}

func isJSType(typ, lang string) bool {
	t := strings.ToLower(strings.TrimSpace(typ))
	if t == "" {
		l := strings.ToLower(strings.TrimSpace(lang))
		return l == "" || strings.Contains(l, "javascript") || strings.Contains(l, "jscript") || strings.Contains(l, "ecmascript")
	}
	if i := strings.IndexByte(t, ';'); i >= 0 {
		t = strings.TrimSpace(t[:i])
	}
	return t == "module" || strings.Contains(t, "javascript") || strings.Contains(t, "ecmascript") ||
		strings.Contains(t, "jscript") || strings.Contains(t, "livescript")
}

func isCSSType(typ string) bool {
	t := strings.ToLower(strings.TrimSpace(typ))
	return t == "" || strings.HasPrefix(t, "text/css")
}

// tagAttr is one attribute of a start tag: its lower-case name and the span
// of its raw value inside the tag's raw bytes.
type tagAttr struct {
	key    string
	vs, ve int
	quote  byte
}

func isTagSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' }

// parseTag splits a raw start tag ("<img src=x>") into its lower-case name and
// attributes exactly as golang.org/x/net/html's tokenizer does (WHATWG
// 13.2.5), but keeping the offsets of each value. Duplicate attributes after
// the first are dropped, as browsers do.
func parseTag(raw []byte) (string, []tagAttr) {
	n := len(raw)
	i := 1
	for i < n && !isTagSpace(raw[i]) && raw[i] != '/' && raw[i] != '>' {
		i++
	}
	name := strings.ToLower(string(raw[1:i]))
	var attrs []tagAttr
	skipWS := func() {
		for i < n && isTagSpace(raw[i]) {
			i++
		}
	}
	skipWS()
	for i < n && raw[i] != '>' {
		// attribute name
		ks := i
		for i < n {
			c := raw[i]
			if c == '=' && i == ks {
				i++
				continue
			}
			if c == '=' || isTagSpace(c) || c == '/' || c == '>' {
				break
			}
			i++
		}
		ke := i
		a := tagAttr{key: strings.ToLower(string(raw[ks:ke])), vs: i, ve: i}
		// attribute value
		skipWS()
		if i < n {
			switch raw[i] {
			case '/':
				i++
			case '=':
				i++
				skipWS()
				if i < n && raw[i] != '>' {
					switch q := raw[i]; q {
					case '"', '\'':
						i++
						a.vs, a.quote = i, q
						for i < n && raw[i] != q {
							i++
						}
						a.ve = i
						if i < n {
							i++
						}
					default:
						a.vs = i
						for i < n && !isTagSpace(raw[i]) && raw[i] != '>' {
							i++
						}
						a.ve = i
					}
				}
			}
		}
		if ke > ks && !hasAttr(attrs, a.key) {
			attrs = append(attrs, a)
		}
		skipWS()
	}
	return name, attrs
}

func hasAttr(attrs []tagAttr, key string) bool {
	for _, a := range attrs {
		if a.key == key {
			return true
		}
	}
	return false
}

func findAttr(attrs []tagAttr, key string) *tagAttr {
	for i := range attrs {
		if attrs[i].key == key {
			return &attrs[i]
		}
	}
	return nil
}

// attrValue returns the decoded value of an attribute, "" if absent.
func attrValue(raw []byte, attrs []tagAttr, key string) string {
	a := findAttr(attrs, key)
	if a == nil {
		return ""
	}
	d := decodeAttr(raw[a.vs:a.ve])
	return d.s
}

// embeddedRel lists the link rel keywords whose href the page loads.
var embeddedRel = map[string]bool{
	"stylesheet": true, "icon": true, "apple-touch-icon": true, "apple-touch-icon-precomposed": true,
	"mask-icon": true, "preload": true, "modulepreload": true, "prefetch": true, "manifest": true,
	"image_src": true, "fluid-icon": true,
}

// urlParams are the <param name=...> whose value is a resource of the object.
var urlParams = map[string]bool{"movie": true, "src": true, "url": true, "filename": true, "file": true, "data": true, "sound": true, "video": true}

// tag emits the links of one start tag.
func (e *htmlExtractor) tag(name string, attrs []tagAttr, raw []byte, off int64) error {
	if len(attrs) == 0 {
		return nil
	}
	base := e.base
	// applet (and the Java plugin's embed) resolve code, archive and object
	// against their codebase, a directory. An object's codebase is not used:
	// in practice it names an ActiveX .cab, and HTML5 resolves data against
	// the document.
	var codebase *url.URL
	if name == "applet" || name == "embed" {
		if cb := attrValue(raw, attrs, "codebase"); cb != "" {
			cb = cleanValue(cb)
			if !strings.HasSuffix(cb, "/") {
				cb += "/"
			}
			if abs, _, ok := Resolve(base, cb); ok {
				codebase, _ = url.Parse(abs)
			}
		}
	}
	if codebase == nil {
		codebase = base
	}
	for i := range attrs {
		a := &attrs[i]
		key := a.key
		kind, syntax, useBase, ok := Navigational, SyntaxAttr, base, true
		switch key {
		case "href", "xlink:href":
			switch name {
			case "a", "area":
			case "base":
				if key == "href" {
					if err := e.baseLink(a, raw, off); err != nil {
						return err
					}
				}
				continue
			case "link":
				rels := strings.Fields(strings.ToLower(attrValue(raw, attrs, "rel")))
				for _, rel := range rels {
					if embeddedRel[rel] {
						kind = Embedded
					}
					if rel == "preconnect" || rel == "dns-prefetch" {
						ok = false
					}
				}
			case "image", "use", "feimage", "script", "img":
				kind = Embedded
			}
		case "src":
			// input src counts whatever the type (a script may make it an
			// image; HTTrack and wget take it too)
			kind = Embedded
		case "lowsrc", "dynsrc", "data-src", "poster", "background":
			kind = Embedded
		case "srcset", "data-srcset":
			kind, syntax = Embedded, SyntaxList
		case "longdesc", "formaction":
		case "action":
			ok = name == "form"
		case "data":
			ok, kind = name == "object", Embedded
		case "code":
			ok, kind, syntax, useBase = name == "applet" || name == "embed", Embedded, SyntaxAppletCode, codebase
		case "archive":
			ok, kind, syntax, useBase = name == "applet" || name == "object", Embedded, SyntaxList, codebase
		case "object":
			ok, kind, useBase = name == "applet", Embedded, codebase
		case "value":
			ok, kind = name == "param" && urlParams[strings.ToLower(strings.TrimSpace(attrValue(raw, attrs, "name")))], Embedded
		case "content":
			ok, syntax = name == "meta" && strings.EqualFold(strings.TrimSpace(attrValue(raw, attrs, "http-equiv")), "refresh"), SyntaxRefresh
		case "style":
			if err := e.styleAttr(name, a, raw, off); err != nil {
				return err
			}
			continue
		default:
			if strings.HasPrefix(key, "on") && len(key) > 2 {
				if err := e.scriptAttr(name, a, raw, off, 0); err != nil {
					return err
				}
			}
			continue
		}
		if !ok {
			continue
		}
		if err := e.valueLinks(name, a, raw, off, kind, syntax, useBase); err != nil {
			return err
		}
	}
	return nil
}

// baseLink handles <base href>: the first one sets the base URL.
func (e *htmlExtractor) baseLink(a *tagAttr, raw []byte, off int64) error {
	d := decodeAttr(raw[a.vs:a.ve])
	abs, frag, ok := Resolve(e.doc, d.s)
	if !ok {
		return nil
	}
	if !e.baseSet {
		if u, err := url.Parse(abs); err == nil {
			e.base, e.baseSet = u, true
		}
	}
	return e.f(Link{URL: abs, Fragment: frag, Value: cleanValue(d.s), Kind: Base, Tag: "base", Attr: "href",
		Start: off + int64(a.vs), End: off + int64(a.ve), Syntax: SyntaxAttr, InAttr: true, AttrQuote: a.quote})
}

func (e *htmlExtractor) styleAttr(name string, a *tagAttr, raw []byte, off int64) error {
	d := decodeAttr(raw[a.vs:a.ve])
	if !strings.Contains(strings.ToLower(d.s), "url") && !strings.Contains(d.s, "\\") {
		return nil
	}
	return cssLinks(strings.NewReader(d.s), e.base, name, e.f, placeAttr(&d, 0, off+int64(a.vs), a.key, a.quote))
}

// scriptAttr scans an on* attribute (or a javascript: URL, from offset k of
// the decoded value) with the JavaScript heuristic.
func (e *htmlExtractor) scriptAttr(name string, a *tagAttr, raw []byte, off int64, k int) error {
	d := decodeAttr(raw[a.vs:a.ve])
	if k > len(d.s) {
		return nil
	}
	return jsLinks(strings.NewReader(d.s[k:]), e.base, name, e.f, placeAttr(&d, k, off+int64(a.vs), a.key, a.quote))
}

// valueLinks emits the link(s) held in one URL-carrying attribute value.
func (e *htmlExtractor) valueLinks(name string, a *tagAttr, raw []byte, off int64, kind Kind, syntax Syntax, base *url.URL) error {
	d := decodeAttr(raw[a.vs:a.ve])
	valOff := off + int64(a.vs)
	emit := func(value string, start, end int, syn Syntax) error {
		v := value
		if syn == SyntaxAppletCode {
			v = AppletClassPath(v)
		}
		abs, frag, ok := e.resolve(base, v)
		if !ok {
			return nil
		}
		return e.f(Link{URL: abs, Fragment: frag, Value: cleanValue(value), Kind: kind, Tag: name, Attr: a.key,
			Start: valOff + int64(d.rawOffset(start)), End: valOff + int64(d.rawOffset(end)),
			Syntax: syn, InAttr: true, AttrQuote: a.quote})
	}
	switch syntax {
	case SyntaxList:
		for _, sp := range listURLs(d.s, a.key == "archive") {
			if err := emit(d.s[sp[0]:sp[1]], sp[0], sp[1], SyntaxList); err != nil {
				return err
			}
		}
		return nil
	case SyntaxRefresh:
		s, t, ok := refreshURL(d.s)
		if !ok {
			return nil
		}
		return emit(d.s[s:t], s, t, SyntaxRefresh)
	}
	v := cleanValue(d.s)
	if len(v) > 11 && strings.EqualFold(v[:11], "javascript:") {
		k := indexFold(d.s, "javascript:") + 11
		return e.scriptAttr(name, a, raw, off, k)
	}
	return emit(d.s, 0, len(d.s), syntax)
}

// listURLs returns the spans of the URLs in a srcset (WHATWG "parse a srcset
// attribute": URL, then descriptors up to a comma outside parentheses) or,
// for archive, in a comma- or space-separated list.
func listURLs(s string, plain bool) [][2]int {
	var out [][2]int
	i, n := 0, len(s)
	for i < n {
		for i < n && (isHTMLSpace(s[i]) || s[i] == ',') {
			i++
		}
		if i >= n {
			break
		}
		start := i
		for i < n && !isHTMLSpace(s[i]) && !(plain && s[i] == ',') {
			i++
		}
		end := i
		if !plain {
			if end > start && s[end-1] == ',' {
				for end > start && s[end-1] == ',' {
					end--
				}
			} else {
				// descriptors
				paren := false
				for i < n {
					c := s[i]
					if c == '(' {
						paren = true
					} else if c == ')' {
						paren = false
					} else if c == ',' && !paren {
						break
					}
					i++
				}
			}
		}
		if end > start {
			out = append(out, [2]int{start, end})
		}
	}
	return out
}

// refreshURL finds the URL in a refresh content value ("5; url='x.html'"),
// following the HTML "shared declarative refresh steps".
func refreshURL(s string) (start, end int, ok bool) {
	i, n := 0, len(s)
	skip := func() {
		for i < n && isHTMLSpace(s[i]) {
			i++
		}
	}
	skip()
	for i < n && ('0' <= s[i] && s[i] <= '9' || s[i] == '.') {
		i++
	}
	if i < n && s[i] != ';' && s[i] != ',' && !isHTMLSpace(s[i]) {
		return 0, 0, false
	}
	skip()
	if i < n && (s[i] == ';' || s[i] == ',') {
		i++
	}
	skip()
	if i >= n {
		return 0, 0, false
	}
	if n-i >= 3 && strings.EqualFold(s[i:i+3], "url") {
		j := i + 3
		for j < n && isHTMLSpace(s[j]) {
			j++
		}
		if j < n && s[j] == '=' {
			i = j + 1
			skip()
		}
	}
	if i < n && (s[i] == '"' || s[i] == '\'') {
		q := s[i]
		i++
		start = i
		for i < n && s[i] != q {
			i++
		}
		end = i
	} else {
		start = i
		end = n
		for end > start && isHTMLSpace(s[end-1]) {
			end--
		}
	}
	return start, end, end > start
}

// indexFold is strings.Index ignoring ASCII case (byte offsets preserved).
func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}
