package xapian

import (
	"strconv"
	"strings"
)

// HTML to text as libzim extracts it for its full-text index: libzim's
// src/xapian/htmlparse.cc and myhtmlparse.cc (Omega's HTML parser) and
// src/writer/defaultIndexData.h. Text inside <script> and <style>, in
// comments, in attributes and in the <head> before <body> is left out;
// block-level tags separate words; entities of HTML 4 (and &apos;) and
// numeric references are decoded; <meta name="keywords"> and
// "description" are kept apart; <meta name="robots" content="noindex">
// or "none" stops indexing; </body> ends the text.

// HTMLText is what the parser extracts from one page.
type HTMLText struct {
	Title    string // text of <title> (when it closes before <body>)
	Dump     string // the indexed text, words separated by single spaces
	Keywords string // <meta name="keywords"> contents, space-separated
	Sample   string // the first <meta name="description">
	// IndexingAllowed is false after <meta name="robots"> with "none" or
	// "noindex".
	IndexingAllowed bool
	// HasGeo: a <meta name="geo.position" content="LAT;LON">.
	HasGeo   bool
	Lat, Lon float32
}

// htmlEntities are the character entity references of HTML 4
// (www.w3.org/TR/html4/sgml/entities.html) and &apos;, the ones libzim's
// parser decodes.
var htmlEntities = map[string]rune{
	"quot": 34, "amp": 38, "apos": 39, "lt": 60, "gt": 62, "nbsp": 160, "iexcl": 161, "cent": 162,
	"pound": 163, "curren": 164, "yen": 165, "brvbar": 166, "sect": 167, "uml": 168, "copy": 169,
	"ordf": 170, "laquo": 171, "not": 172, "shy": 173, "reg": 174, "macr": 175, "deg": 176, "plusmn": 177, "sup2": 178, "sup3": 179, "acute": 180, "micro": 181, "para": 182, "middot": 183, "cedil": 184, "sup1": 185, "ordm": 186, "raquo": 187, "frac14": 188, "frac12": 189, "frac34": 190, "iquest": 191, "Agrave": 192, "Aacute": 193, "Acirc": 194, "Atilde": 195, "Auml": 196, "Aring": 197, "AElig": 198, "Ccedil": 199, "Egrave": 200, "Eacute": 201, "Ecirc": 202, "Euml": 203, "Igrave": 204,
	"Iacute": 205, "Icirc": 206, "Iuml": 207, "ETH": 208, "Ntilde": 209, "Ograve": 210, "Oacute": 211,
	"Ocirc": 212, "Otilde": 213, "Ouml": 214, "times": 215, "Oslash": 216, "Ugrave": 217, "Uacute": 218, "Ucirc": 219, "Uuml": 220, "Yacute": 221, "THORN": 222, "szlig": 223, "agrave": 224, "aacute": 225, "acirc": 226, "atilde": 227, "auml": 228, "aring": 229, "aelig": 230, "ccedil": 231, "egrave": 232, "eacute": 233, "ecirc": 234, "euml": 235, "igrave": 236, "iacute": 237, "icirc": 238, "iuml": 239, "eth": 240, "ntilde": 241, "ograve": 242, "oacute": 243, "ocirc": 244, "otilde": 245, "ouml": 246, "divide": 247, "oslash": 248, "ugrave": 249, "uacute": 250, "ucirc": 251, "uuml": 252,
	"yacute": 253, "thorn": 254, "yuml": 255, "OElig": 338, "oelig": 339, "Scaron": 352, "scaron": 353,
	"Yuml": 376, "fnof": 402, "circ": 710, "tilde": 732, "Alpha": 913, "Beta": 914, "Gamma": 915,
	"Delta": 916, "Epsilon": 917, "Zeta": 918, "Eta": 919, "Theta": 920, "Iota": 921, "Kappa": 922,
	"Lambda": 923, "Mu": 924, "Nu": 925, "Xi": 926, "Omicron": 927, "Pi": 928, "Rho": 929, "Sigma": 931, "Tau": 932, "Upsilon": 933, "Phi": 934, "Chi": 935, "Psi": 936, "Omega": 937, "alpha": 945,
	"beta": 946, "gamma": 947, "delta": 948, "epsilon": 949, "zeta": 950, "eta": 951, "theta": 952,
	"iota": 953, "kappa": 954, "lambda": 955, "mu": 956, "nu": 957, "xi": 958, "omicron": 959, "pi": 960, "rho": 961, "sigmaf": 962, "sigma": 963, "tau": 964, "upsilon": 965, "phi": 966, "chi": 967,
	"psi": 968, "omega": 969, "thetasym": 977, "upsih": 978, "piv": 982, "ensp": 8194, "emsp": 8195,
	"thinsp": 8201, "zwnj": 8204, "zwj": 8205, "lrm": 8206, "rlm": 8207, "ndash": 8211, "mdash": 8212,
	"lsquo": 8216, "rsquo": 8217, "sbquo": 8218, "ldquo": 8220, "rdquo": 8221, "bdquo": 8222, "dagger": 8224, "Dagger": 8225, "bull": 8226, "hellip": 8230, "permil": 8240, "prime": 8242, "Prime": 8243,
	"lsaquo": 8249, "rsaquo": 8250, "oline": 8254, "frasl": 8260, "euro": 8364, "image": 8465,
	"weierp": 8472, "real": 8476, "trade": 8482, "alefsym": 8501, "larr": 8592, "uarr": 8593, "rarr": 8594, "darr": 8595, "harr": 8596, "crarr": 8629, "lArr": 8656, "uArr": 8657, "rArr": 8658, "dArr": 8659, "hArr": 8660, "forall": 8704, "part": 8706, "exist": 8707, "empty": 8709, "nabla": 8711,
	"isin": 8712, "notin": 8713, "ni": 8715, "prod": 8719, "sum": 8721, "minus": 8722, "lowast": 8727,
	"radic": 8730, "prop": 8733, "infin": 8734, "ang": 8736, "and": 8743, "or": 8744, "cap": 8745,
	"cup": 8746, "int": 8747, "there4": 8756, "sim": 8764, "cong": 8773, "asymp": 8776, "ne": 8800,
	"equiv": 8801, "le": 8804, "ge": 8805, "sub": 8834, "sup": 8835, "nsub": 8836, "sube": 8838,
	"supe": 8839, "oplus": 8853, "otimes": 8855, "perp": 8869, "sdot": 8901, "lceil": 8968, "rceil": 8969, "lfloor": 8970, "rfloor": 8971, "lang": 9001, "rang": 9002, "loz": 9674, "spades": 9824,
	"clubs": 9827, "hearts": 9829, "diams": 9830,
}

func isSpaceC(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}
func isDigitC(c byte) bool { return c >= '0' && c <= '9' }
func isXDigitC(c byte) bool {
	return isDigitC(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}
func isAlphaC(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }
func isAlnumC(c byte) bool { return isAlphaC(c) || isDigitC(c) }

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

// decodeEntities is HtmlParser::decode_entities.
func decodeEntities(s string) string {
	if !strings.Contains(s, "&") {
		return s
	}
	b := []byte(s)
	amp := 0
	for {
		i := indexByteFrom(b, '&', amp)
		if i < 0 {
			return string(b)
		}
		amp = i
		var val uint64
		p := amp + 1
		end := p
		if p < len(b) && b[p] == '#' {
			p++
			if p < len(b) && (b[p] == 'x' || b[p] == 'X') {
				p++
				end = p
				for end < len(b) && isXDigitC(b[end]) {
					end++
				}
				val = parseNum(string(b[p:end]), 16)
			} else {
				end = p
				for end < len(b) && isDigitC(b[end]) {
					end++
				}
				val = parseNum(string(b[p:end]), 10)
			}
		} else {
			for end < len(b) && isAlnumC(b[end]) {
				end++
			}
			val = uint64(htmlEntities[string(b[p:end])])
		}
		if end < len(b) && b[end] == ';' {
			end++
		}
		if val != 0 {
			rep := appendUTF8(nil, rune(val))
			if val < 0x80 {
				rep = []byte{byte(val)}
			} else if val >= 0x200000 {
				rep = nil
			}
			b = append(b[:amp], append(rep, b[end:]...)...)
			amp++
		} else {
			amp = end
		}
	}
}

// parseNum reads a decimal or hex number as atoi / sscanf("%x") would for
// values that fit 32 bits; longer runs of digits saturate.
func parseNum(s string, base int) uint64 {
	if s == "" {
		return 0
	}
	v, err := strconv.ParseUint(s, base, 32)
	if err != nil {
		return 0xffffffff
	}
	return v
}

func indexByteFrom(b []byte, c byte, from int) int {
	for i := from; i < len(b); i++ {
		if b[i] == c {
			return i
		}
	}
	return -1
}

// htmlParser holds MyHtmlParser's state.
type htmlParser struct {
	HTMLText
	dump         []byte // HTMLText.Dump while parsing
	inScript     bool   // HtmlParser::in_script (no tags inside <script>)
	inScriptTag  bool
	inStyleTag   bool
	pendingSpace bool
	params       map[string]string
	stop         bool // a "throw true": </body> or robots noindex
}

// ParseHTML extracts the indexable text of an HTML page as libzim does.
func ParseHTML(body string) HTMLText {
	p := &htmlParser{HTMLText: HTMLText{IndexingAllowed: true}}
	p.parse(body)
	p.Dump = string(p.dump)
	return p.HTMLText
}

const htmlWhitespace = " \t\n\r"

func isHTMLSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (p *htmlParser) processText(text string) {
	if text == "" || p.inScriptTag || p.inStyleTag {
		return
	}
	// htmlWhitespace is ASCII: bytes, not runes, are compared
	b := 0
	for b < len(text) && isHTMLSpace(text[b]) {
		b++
	}
	if b == len(text) {
		b = -1
	}
	if b != 0 { // also when the text is all whitespace (npos)
		p.pendingSpace = true
	}
	for b >= 0 {
		if p.pendingSpace && len(p.dump) > 0 {
			p.dump = append(p.dump, ' ')
		}
		e := b
		for e < len(text) && !isHTMLSpace(text[e]) {
			e++
		}
		p.pendingSpace = e < len(text)
		if e == len(text) {
			p.dump = append(p.dump, text[b:]...)
			return
		}
		p.dump = append(p.dump, text[b:e]...)
		nb := -1
		for i := e + 1; i < len(text); i++ {
			if !isHTMLSpace(text[i]) {
				nb = i
				break
			}
		}
		b = nb
	}
}

// blockTags start a new word where they open (and, but for a few, close).
var blockOpen = map[string]bool{
	"address": true, "blockquote": true, "br": true, "center": true, "dd": true, "dir": true, "div": true,
	"dl": true, "dt": true, "embed": true, "fieldset": true, "form": true, "hr": true, "h1": true, "h2": true,
	"h3": true, "h4": true, "h5": true, "h6": true, "iframe": true, "img": true, "isindex": true, "input": true,
	"keygen": true, "legend": true, "li": true, "listing": true, "marquee": true, "menu": true, "multicol": true,
	"ol": true, "option": true, "p": true, "pre": true, "plaintext": true, "q": true, "select": true,
	"table": true, "td": true, "textarea": true, "th": true, "ul": true, "xmp": true,
}

var blockClose = map[string]bool{
	"address": true, "blockquote": true, "br": true, "center": true, "dd": true, "dir": true, "div": true,
	"dl": true, "dt": true, "fieldset": true, "form": true, "hr": true, "h1": true, "h2": true,
	"h3": true, "h4": true, "h5": true, "h6": true, "iframe": true, "legend": true, "li": true, "listing": true,
	"marquee": true, "menu": true, "ol": true, "option": true, "p": true, "pre": true, "q": true, "select": true,
	"table": true, "td": true, "textarea": true, "th": true, "ul": true, "xmp": true,
}

func (p *htmlParser) openingTag(tag string) {
	switch tag {
	case "":
		return
	case "body":
		p.dump = p.dump[:0]
		return
	case "style":
		p.inStyleTag = true
		return
	case "script":
		p.inScriptTag = true
		return
	case "meta":
		p.meta()
		return
	}
	if blockOpen[tag] {
		p.pendingSpace = true
	}
}

func (p *htmlParser) meta() {
	content, ok := p.params["content"]
	if !ok {
		return // charset declarations are ignored: libzim parses as UTF-8
	}
	name, ok := p.params["name"]
	if !ok {
		return
	}
	switch lowerASCII(name) {
	case "description":
		if p.Sample == "" {
			p.Sample = decodeEntities(content)
		}
	case "keywords":
		if p.Keywords != "" {
			p.Keywords += " "
		}
		p.Keywords += decodeEntities(content)
	case "robots":
		c := lowerASCII(decodeEntities(content))
		if strings.Contains(c, "none") || strings.Contains(c, "noindex") {
			p.IndexingAllowed = false
			p.stop = true
		}
	case "geo.position":
		if i := strings.IndexByte(content, ';'); i >= 0 {
			p.Lat = parseFloatPrefix(content[:i])
			p.Lon = parseFloatPrefix(content[i+1:])
			p.HasGeo = true
		}
	}
}

// parseFloatPrefix reads a float as `istringstream >> float` does: leading
// whitespace, then the longest number; 0 when there is none.
func parseFloatPrefix(s string) float32 {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	best := float32(0)
	for i := 1; i <= len(s); i++ {
		if f, err := strconv.ParseFloat(s[:i], 32); err == nil {
			best = float32(f)
		}
	}
	return best
}

func (p *htmlParser) closingTag(tag string) {
	switch tag {
	case "":
		return
	case "body":
		p.stop = true
		return
	case "style":
		p.inStyleTag = false
		return
	case "script":
		p.inScriptTag = false
		return
	case "title":
		if p.Title == "" {
			p.Title, p.dump = string(p.dump), []byte(p.Title)
		}
		return
	}
	if blockClose[tag] {
		p.pendingSpace = true
	}
}

func isTagChar(c byte) bool { return isAlnumC(c) || c == '.' || c == '-' || c == ':' }

// parse is HtmlParser::parse_html.
func (p *htmlParser) parse(body string) {
	n := len(body)
	at := func(i int) byte { // std::string's operator[] (NUL at the end)
		if i >= 0 && i < n {
			return body[i]
		}
		return 0
	}
	find := func(from int, c byte) int {
		if from >= n {
			return n
		}
		if i := strings.IndexByte(body[from:], c); i >= 0 {
			return from + i
		}
		return n
	}
	findIf := func(from int, f func(byte) bool) int {
		for i := from; i < n; i++ {
			if f(body[i]) {
				return i
			}
		}
		return n
	}
	start := 0
	for !p.stop {
		q := start
		for {
			q = find(q, '<')
			if q == n {
				break
			}
			ch := at(q + 1)
			if (!p.inScript && isAlphaC(ch)) || ch == '/' || ch == '!' || ch == '?' {
				break
			}
			q++
		}
		if q > start {
			p.processText(decodeEntities(body[start:q]))
		}
		if q == n {
			break
		}
		start = q + 1
		if start == n {
			break
		}
		switch body[start] {
		case '!':
			start++
			if start == n {
				return
			}
			start++
			if start == n {
				return
			}
			if body[start-1] == '-' && body[start] == '-' {
				start++
				closeAt := find(start, '>')
				if closeAt == n {
					return
				}
				e := closeAt
				for e != n && (at(e-1) != '-' || at(e-2) != '-') {
					e = find(e+1, '>')
				}
				if e != n {
					if e-start == 15 && body[start:e-2] == "htdig_noindex" {
						i := strings.Index(body[min(e+1, n):], "<!--/htdig_noindex-->")
						if i < 0 {
							return
						}
						start = e + 1 + i + 21
						continue
					}
					start = e
				} else {
					start = closeAt
				}
			} else {
				start = find(start-1, '>')
				if start == n {
					return
				}
			}
			start++
		case '?':
			start++
			if start == n {
				return
			}
			start = find(start+1, '>')
			for start != n && body[start-1] != '?' {
				start = find(start+1, '>')
			}
			if start != n {
				start++
			}
		default:
			closing := false
			if body[start] == '/' {
				closing = true
				start = findIf(start+1, func(c byte) bool { return !isSpaceC(c) })
			}
			q = start
			start = findIf(start, func(c byte) bool { return !isTagChar(c) })
			tag := lowerASCII(body[q:start])
			if closing {
				p.closingTag(tag)
				if p.inScript && tag == "script" {
					p.inScript = false
				}
				q = find(start, '>')
				if q == n {
					return
				}
				start = q + 1
				continue
			}
			p.params = map[string]string{}
			for start < n && body[start] != '>' {
				q = findIf(start, func(c byte) bool { return isSpaceC(c) || c == '=' || c == '>' })
				name := body[start:q]
				q = findIf(q, func(c byte) bool { return !isSpaceC(c) })
				start = q
				if start != n && body[start] == '=' {
					start = findIf(start+1, func(c byte) bool { return !isSpaceC(c) })
					q = n
					quote := at(start)
					if quote == '"' || quote == '\'' {
						start++
						q = find(start, quote)
					}
					if q == n {
						q = findIf(start, func(c byte) bool { return isSpaceC(c) || c == '>' })
					}
					value := body[min(start, n):q]
					start = findIf(q, func(c byte) bool { return !isSpaceC(c) })
					if name != "" {
						ln := lowerASCII(name)
						if _, dup := p.params[ln]; !dup {
							p.params[ln] = value
						}
					}
				}
			}
			p.openingTag(tag)
			p.params = nil
			if tag == "script" {
				p.inScript = true
			}
			if start != n && body[start] == '>' {
				start++
			}
		}
	}
}

// CountWords is libzim's zim::countWords: runs of non-whitespace bytes.
func CountWords(text string) uint32 {
	n := uint32(0)
	in := false
	for i := 0; i < len(text); i++ {
		if isSpaceC(text[i]) {
			in = false
		} else if !in {
			in = true
			n++
		}
	}
	return n
}

// LibzimFullText builds the full-text document libzim's writer makes for
// an HTML item (IndexTask::run with DefaultIndexData): data "C/"+path,
// value 0 the title with accents removed, value 1 the word count in
// decimal, and the terms of the page text, of the title (wdf boosted by
// text length / 500 + 1) and of the keywords (boosted 3), accents removed,
// without positions, stemmed with STEM_ALL when stem is not nil, stop
// words dropped, CJK text as n-grams (libzim 9; libzim 8 had no n-grams),
// and value 2 the serialised <meta name="geo.position"> when there is one.
// ok is false when libzim would not index the item (no text, robots
// noindex, or "NOINDEX" in the text).
func LibzimFullText(path, title, html string, stem func(string) string, stop func(string) bool) (doc *Document, ok bool) {
	h := ParseHTML(html)
	if h.Dump == "" || !h.IndexingAllowed || strings.Contains(h.Dump, "NOINDEX") {
		return nil, false
	}
	content := RemoveAccents(h.Dump)
	keywords := RemoveAccents(h.Keywords)
	title = RemoveAccents(title)
	doc = NewDocument()
	doc.SetData([]byte("C/" + path))
	doc.AddValue(0, []byte(title))
	doc.AddValue(1, []byte(strconv.FormatUint(uint64(CountWords(h.Dump)), 10)))
	if h.HasGeo {
		if v, ok := SerialiseLatLong(float64(h.Lat), float64(h.Lon)); ok {
			doc.AddValue(2, v)
		}
	}
	g := TermGenerator{Doc: doc, Stopper: stop, StopMode: StopAll, CJKNgram: true}
	if stem != nil {
		g.Stemmer, g.Strategy = stem, StemAll
	}
	if content != "" {
		g.IndexTextWithoutPositions(content, 1, "")
	}
	if title != "" {
		g.IndexTextWithoutPositions(title, uint32(len(content)/500+1), "")
	}
	if keywords != "" {
		g.IndexTextWithoutPositions(keywords, 3, "")
	}
	return doc, true
}

// AnchorTerm starts every title document of libzim's title index (at
// position 1), so that a suggestion can ask for titles that start with
// the query.
const AnchorTerm = "0posanchor"

// LibzimTitle builds the title-index document libzim's writer makes for a
// front article (XapianIndexer::indexTitle, libzim 9): data "C/"+path,
// value 0 the title, value 1 targetPath (or path when empty), and the
// terms of "0posanchor " + the title with accents removed, with
// positions, STEM_SOME when stem is not nil, words up to 240 bytes, CJK
// text as n-grams. A title
// made only of non-word characters becomes one term, as libzim 9 does.
func LibzimTitle(path, title, targetPath string, stem func(string) string) *Document {
	doc := NewDocument()
	doc.SetData([]byte("C/" + path))
	doc.AddValue(0, []byte(title))
	if targetPath == "" {
		targetPath = path
	}
	doc.AddValue(1, []byte(targetPath))
	unaccented := RemoveAccents(title)
	if unaccented == "" {
		return doc
	}
	g := TermGenerator{Doc: doc, MaxWordLength: 240, CJKNgram: true}
	if stem != nil {
		g.Stemmer = stem
	}
	g.IndexText(AnchorTerm+" "+unaccented, 1, "")
	if len(doc.terms) == 1 {
		// only the anchor: the title has no word characters
		delete(doc.terms, AnchorTerm)
		if len(unaccented) <= 240 {
			doc.AddTerm(unaccented, 1)
		}
	}
	return doc
}
