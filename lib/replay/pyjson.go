package replay

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/arcport/arcport/lib/cdx"
)

// pyVal is a value of a CDX object: a string, or (raw) the JSON text of
// another JSON value as Python's json.dumps writes it.
type pyVal struct {
	s   string
	raw bool
}

func str(s string) pyVal { return pyVal{s: s} }

// appendJSON appends the value as json.dumps writes it.
func (v pyVal) appendJSON(dst []byte) []byte {
	if v.raw {
		return append(dst, v.s...)
	}
	return cdx.AppendPyJSON(dst, v.s)
}

// String is Python's str() of the value.
func (v pyVal) String() string {
	if !v.raw {
		return v.s
	}
	switch v.s {
	case "true":
		return "True"
	case "false":
		return "False"
	case "null":
		return "None"
	}
	return v.s
}

// pyJSONValue re-encodes a JSON value (not a string) the way Python's
// json.loads then json.dumps would: ", " and ": " separators, strings with
// ensure_ascii; numbers as written (integers are; floats may differ in
// exponent form, rarely met in an index).
func pyJSONValue(raw []byte) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return appendPyAny(nil, v), nil
}

func appendPyAny(dst []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...)
	case bool:
		return strconv.AppendBool(dst, x)
	case json.Number:
		return append(dst, x...)
	case string:
		return cdx.AppendPyJSON(dst, x)
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendPyAny(dst, e)
		}
		return append(dst, ']')
	case map[string]any:
		// order of an object nested in a CDXJ value is not kept by
		// encoding/json; such values do not occur in indexes
		dst = append(dst, '{')
		i := 0
		for k, e := range x {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = cdx.AppendPyJSON(dst, k)
			dst = append(dst, ": "...)
			dst = appendPyAny(dst, e)
			i++
		}
		return append(dst, '}')
	}
	return dst
}

// pyRepr is Python's repr() of a str.
func pyRepr(s string) string {
	q := byte('\'')
	if strings.Contains(s, "'") && !strings.Contains(s, "\"") {
		q = '"'
	}
	b := []byte{q}
	for _, r := range s {
		switch {
		case r == rune(q) || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\r':
			b = append(b, '\\', 'r')
		case r == '\t':
			b = append(b, '\\', 't')
		case r < ' ' || r == 0x7f:
			b = append(b, '\\', 'x', "0123456789abcdef"[r>>4], "0123456789abcdef"[r&15])
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return string(append(b, q))
}

// pyBytesRepr is Python's repr() of a bytes object.
func pyBytesRepr(s string) string {
	q := byte('\'')
	if strings.Contains(s, "'") && !strings.Contains(s, "\"") {
		q = '"'
	}
	b := []byte{'b', q}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == q || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c < ' ' || c >= 0x7f:
			b = append(b, '\\', 'x', "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
		default:
			b = append(b, c)
		}
	}
	return string(append(b, q))
}
