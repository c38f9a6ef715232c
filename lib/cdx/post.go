package cdx

import (
	"encoding/base64"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/arcport/arcport/lib/internal/ascii"
)

// This file is warcio.js postToGetUrl (src/lib/utils.ts): the body of a
// non-GET request is turned into query arguments that are appended to the
// URL after "__wb_method=METHOD&", so that ReplayWeb.page, which does the
// same with the request it replays, finds the capture.

// maxQuerySize is warcio.js DEFAULT_MAX_QUERY_SIZE (UTF-16 code units).
const maxQuerySize = 4096

// postToGet returns the URL used for the key of a capture whose request used
// method (not GET) with the given headers and body, and the requestBody
// field (the query before URI-decoding, "" when empty).
func postToGet(url, method string, h *jsHeaders, body []byte) (newURL, requestBody string) {
	ct, _ := h.get("content-type")
	mime, _, _ := strings.Cut(ct, ";")
	var query string
	switch mime {
	case "application/x-www-form-urlencoded":
		query = decodeText(body)
	case "application/json", "text/plain":
		query = jsonToQueryString(decodeText(body))
	case "multipart/form-data":
		query = mfdToQueryString(decodeText(body), ct)
	default:
		query = binaryToString(body)
	}
	if utf16Len(query) > maxQuerySize {
		query = utf16Slice(query, maxQuerySize)
	}
	requestBody = query
	dq, ok := decodeURI(query)
	if !ok {
		dq = ""
	}
	return appendRequestQuery(url, dq, method), requestBody
}

// appendRequestQuery is warcio.js appendRequestQuery.
func appendRequestQuery(url, query, method string) string {
	if method == "" {
		return url
	}
	sep := "?"
	if strings.IndexByte(url, '?') > 0 {
		sep = "&"
	}
	return url + sep + "__wb_method=" + method + "&" + query
}

// binaryToString is warcio.js binaryToString for a byte body.
func binaryToString(b []byte) string {
	return "__wb_post_data=" + base64.StdEncoding.EncodeToString(b)
}

// decodeURI is ECMAScript decodeURI; ok is false where it throws URIError.
func decodeURI(s string) (string, bool) {
	if strings.IndexByte(s, '%') < 0 {
		return s, true
	}
	const reserved = ";/?:@&=+$,#"
	hexByte := func(i int) (byte, bool) {
		if i+2 >= len(s) {
			return 0, false
		}
		if s[i] != '%' || !ascii.IsHex(s[i+1]) || !ascii.IsHex(s[i+2]) {
			return 0, false
		}
		return ascii.Unhex(s[i+1])<<4 | ascii.Unhex(s[i+2]), true
	}
	var b strings.Builder
	b.Grow(len(s))
	for k := 0; k < len(s); k++ {
		if s[k] != '%' {
			b.WriteByte(s[k])
			continue
		}
		start := k
		c, ok := hexByte(k)
		if !ok {
			return "", false
		}
		k += 2
		if c < 0x80 {
			if strings.IndexByte(reserved, c) >= 0 {
				b.WriteString(s[start : k+1])
			} else {
				b.WriteByte(c)
			}
			continue
		}
		n := 0
		for c<<n&0x80 != 0 {
			n++
		}
		if n == 1 || n > 4 {
			return "", false
		}
		oct := []byte{c}
		for j := 1; j < n; j++ {
			k++
			c, ok := hexByte(k)
			if !ok || c&0xC0 != 0x80 {
				return "", false
			}
			k += 2
			oct = append(oct, c)
		}
		r, size := utf8.DecodeRune(oct)
		if r == utf8.RuneError && size <= 1 || size != len(oct) {
			return "", false
		}
		b.Write(oct)
	}
	return b.String(), true
}

// searchParams is a URLSearchParams object.
type searchParams struct {
	names, values []string
}

func (q *searchParams) has(name string) bool {
	name = wellFormed(name)
	for _, n := range q.names {
		if n == name {
			return true
		}
	}
	return false
}

func (q *searchParams) set(name, value string) {
	name, value = wellFormed(name), wellFormed(value)
	first := -1
	for i := 0; i < len(q.names); {
		if q.names[i] != name {
			i++
			continue
		}
		if first < 0 {
			first = i
			q.values[i] = value
			i++
			continue
		}
		q.names = append(q.names[:i], q.names[i+1:]...)
		q.values = append(q.values[:i], q.values[i+1:]...)
	}
	if first < 0 {
		q.names = append(q.names, name)
		q.values = append(q.values, value)
	}
}

// String is the application/x-www-form-urlencoded serializer.
func (q *searchParams) String() string {
	var b strings.Builder
	enc := func(s string) {
		for i := 0; i < len(s); i++ {
			c := s[i]
			switch {
			case c == ' ':
				b.WriteByte('+')
			case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '*' || c == '-' || c == '.' || c == '_':
				b.WriteByte(c)
			default:
				b.WriteByte('%')
				b.WriteByte("0123456789ABCDEF"[c>>4])
				b.WriteByte("0123456789ABCDEF"[c&15])
			}
		}
	}
	for i := range q.names {
		if i > 0 {
			b.WriteByte('&')
		}
		enc(q.names[i])
		b.WriteByte('=')
		enc(q.values[i])
	}
	return b.String()
}

// objectProtoNames are the properties of Object.prototype: "key in {}" is
// true for them, which sends warcio's duplicate-key counter to NaN.
var objectProtoNames = map[string]bool{
	"constructor": true, "__defineGetter__": true, "__defineSetter__": true, "hasOwnProperty": true,
	"__lookupGetter__": true, "__lookupSetter__": true, "isPrototypeOf": true, "propertyIsEnumerable": true,
	"toString": true, "valueOf": true, "__proto__": true, "toLocaleString": true,
}

// jsonToQueryString is warcio.js jsonToQueryString on a string.
func jsonToQueryString(text string) string {
	v, ok := parseJSON(text)
	if !ok {
		v = jval{kind: jObject}
	}
	q := &searchParams{}
	dupes := map[string]int{}
	getKey := func(key string) string {
		if !q.has(key) {
			return key
		}
		if objectProtoNames[key] {
			return key + ".NaN_"
		}
		if _, ok := dupes[key]; !ok {
			dupes[key] = 1
		}
		dupes[key]++
		return key + "." + strconv.Itoa(dupes[key]) + "_"
	}
	var walk func(v *jval, key string)
	walk = func(v *jval, key string) {
		qv := ""
		switch v.kind {
		case jNull:
			qv = "null"
		case jObject:
			for i := range v.obj {
				walk(&v.obj[i].val, v.obj[i].key)
			}
		case jArray:
			for i := range v.arr {
				walk(&v.arr[i], key)
			}
		case jString:
			qv = v.str
		case jNumber:
			qv = jsNumberString(v.num)
		case jTrue:
			qv = "true"
		case jFalse:
			qv = "false"
		}
		if qv != "" {
			q.set(getKey(key), qv)
		}
	}
	walk(&v, "")
	return q.String()
}

var mfdFieldRE = regexp.MustCompile(`(?i)name="([^"]+)"\r\n\r\n([^\r\n\x{2028}\x{2029}]*)`)

// mfdToQueryString is warcio.js mfdToQueryString.
func mfdToQueryString(text, contentType string) string {
	q := &searchParams{}
	boundary := "undefined"
	if parts := strings.Split(contentType, "boundary="); len(parts) > 1 {
		boundary = parts[1]
	}
	re, err := regexp.Compile("(?im)-*" + boundary + "-*")
	if err != nil {
		return ""
	}
	for _, part := range re.Split(text, -1) {
		if m := mfdFieldRE.FindStringSubmatch(jsTrim(part)); m != nil {
			q.set(m[1], m[2])
		}
	}
	return q.String()
}

// JSON values as JSON.parse builds them.
type jkind uint8

const (
	jNull jkind = iota
	jFalse
	jTrue
	jNumber
	jString
	jArray
	jObject
)

type jval struct {
	kind jkind
	num  float64
	str  string
	arr  []jval
	obj  []jmember // in JavaScript property order
}

type jmember struct {
	key string
	val jval
}

// maxJSONDepth stands in for the call-stack limit that makes JSON.parse
// throw on very deep nesting.
const maxJSONDepth = 5000

// parseJSON is JSON.parse: RFC 8259 strictly, objects in JavaScript
// property order (array-index keys ascending, then insertion order; a
// repeated key keeps its first place and takes the last value).
func parseJSON(s string) (jval, bool) {
	p := jparser{s: s}
	p.ws()
	v, ok := p.value(0)
	if !ok {
		return jval{}, false
	}
	p.ws()
	return v, p.i == len(p.s)
}

type jparser struct {
	s string
	i int
}

func (p *jparser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jparser) lit(w string) bool {
	if strings.HasPrefix(p.s[p.i:], w) {
		p.i += len(w)
		return true
	}
	return false
}

func (p *jparser) value(depth int) (jval, bool) {
	if p.i >= len(p.s) || depth > maxJSONDepth {
		return jval{}, false
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		p.i++
		v := jval{kind: jArray}
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return v, true
		}
		for {
			p.ws()
			e, ok := p.value(depth + 1)
			if !ok {
				return v, false
			}
			v.arr = append(v.arr, e)
			p.ws()
			if p.i >= len(p.s) {
				return v, false
			}
			if p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.s[p.i] == ']' {
				p.i++
				return v, true
			}
			return v, false
		}
	case c == '"':
		s, ok := p.str()
		return jval{kind: jString, str: s}, ok
	case c == 't':
		return jval{kind: jTrue}, p.lit("true")
	case c == 'f':
		return jval{kind: jFalse}, p.lit("false")
	case c == 'n':
		return jval{kind: jNull}, p.lit("null")
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	return jval{}, false
}

func (p *jparser) number() (jval, bool) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.i < len(p.s) && p.s[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return jval{}, false
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return jval{}, false
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return jval{}, false
		}
	}
	f, err := strconv.ParseFloat(p.s[start:p.i], 64)
	if err != nil && !math.IsInf(f, 0) {
		return jval{}, false
	}
	return jval{kind: jNumber, num: f}, true
}

func (p *jparser) hex4() (rune, bool) {
	if p.i+4 > len(p.s) {
		return 0, false
	}
	v, err := strconv.ParseUint(p.s[p.i:p.i+4], 16, 16)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return rune(v), true
}

// str parses a JSON string; lone surrogates are kept in WTF-8 form.
func (p *jparser) str() (string, bool) {
	p.i++ // opening quote
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), true
		case c < 0x20:
			return "", false
		case c == '\\':
			p.i++
			if p.i >= len(p.s) {
				return "", false
			}
			e := p.s[p.i]
			p.i++
			switch e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return "", false
				}
				if r >= 0xD800 && r < 0xDC00 && strings.HasPrefix(p.s[p.i:], `\u`) {
					save := p.i
					p.i += 2
					if r2, ok := p.hex4(); ok && r2 >= 0xDC00 && r2 < 0xE000 {
						b.WriteRune(0x10000 + (r-0xD800)<<10 + (r2 - 0xDC00))
						continue
					}
					p.i = save
				}
				if r >= 0xD800 && r < 0xE000 {
					b.Write([]byte{0xED, byte(0x80 | (r>>6)&0x3F), byte(0x80 | r&0x3F)})
				} else {
					b.WriteRune(r)
				}
			default:
				return "", false
			}
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return "", false
}

// arrayIndex reports whether key is a canonical array index (0 .. 2^32-2).
func arrayIndex(key string) (uint64, bool) {
	if key == "" || len(key) > 10 || (len(key) > 1 && key[0] == '0') {
		return 0, false
	}
	v, err := strconv.ParseUint(key, 10, 64)
	if err != nil || v > 1<<32-2 {
		return 0, false
	}
	return v, true
}

func (p *jparser) object(depth int) (jval, bool) {
	p.i++
	v := jval{kind: jObject}
	pos := map[string]int{}
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return v, true
	}
	for {
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return v, false
		}
		k, ok := p.str()
		if !ok {
			return v, false
		}
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return v, false
		}
		p.i++
		p.ws()
		e, ok := p.value(depth + 1)
		if !ok {
			return v, false
		}
		if j, seen := pos[k]; seen {
			v.obj[j].val = e
		} else {
			pos[k] = len(v.obj)
			v.obj = append(v.obj, jmember{k, e})
		}
		p.ws()
		if p.i >= len(p.s) {
			return v, false
		}
		if p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.s[p.i] == '}' {
			p.i++
			break
		}
		return v, false
	}
	// Integer-like keys first, ascending; the rest keep insertion order.
	sort.SliceStable(v.obj, func(a, b int) bool {
		ia, oka := arrayIndex(v.obj[a].key)
		ib, okb := arrayIndex(v.obj[b].key)
		if oka && okb {
			return ia < ib
		}
		return oka && !okb
	})
	return v, true
}
