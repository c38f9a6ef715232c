package cdx

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Field is one member of a CDXJ line's JSON object.
type Field struct {
	Name string
	// Value is the member's string value, or its JSON text when Raw.
	Value string
	// Raw is true when the value was not a JSON string in a parsed line
	// (a number, object, ...): Value then holds the JSON as written.
	Raw bool
}

// Entry is one capture index entry: a SURT key, a 14-digit timestamp and
// the JSON fields in order (warcio.js writes url, mime, status, digest,
// length, offset, filename, then method and requestBody for non-GET
// requests; absent values are left out).
type Entry struct {
	// URLKey is the SURT key; "" when the record has no target URI
	// (warcio.js then writes "undefined" in CDXJ and "-" in CDX-11).
	URLKey    string
	Timestamp string
	Fields    []Field
}

// Well-known CDXJ field names.
const (
	FieldURL         = "url"
	FieldMIME        = "mime"
	FieldStatus      = "status"
	FieldDigest      = "digest"
	FieldLength      = "length"
	FieldOffset      = "offset"
	FieldFilename    = "filename"
	FieldMethod      = "method"
	FieldRequestBody = "requestBody"
)

// CDX11Header is the header line of a CDX-11 file.
const CDX11Header = " CDX N b a m s k r M S V g"

// Get returns the value of field name and whether it is present.
func (e *Entry) Get(name string) (string, bool) {
	for _, f := range e.Fields {
		if f.Name == name {
			return f.Value, true
		}
	}
	return "", false
}

// Set sets a string field, keeping its place when present, appending it
// otherwise.
func (e *Entry) Set(name, value string) {
	for i := range e.Fields {
		if e.Fields[i].Name == name {
			e.Fields[i] = Field{Name: name, Value: value}
			return
		}
	}
	e.Fields = append(e.Fields, Field{Name: name, Value: value})
}

// Int returns field name as a non-negative integer (written as a string,
// as warcio.js does, or as a JSON number).
func (e *Entry) Int(name string) (int64, bool) {
	v, ok := e.Get(name)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// Offset returns the "offset" field.
func (e *Entry) Offset() (int64, bool) { return e.Int(FieldOffset) }

// Length returns the "length" field.
func (e *Entry) Length() (int64, bool) { return e.Int(FieldLength) }

// AppendCDXJ appends the entry as a CDXJ line ending in "\n", formatted as
// warcio.js formats it (JSON.stringify, no spaces).
func (e *Entry) AppendCDXJ(dst []byte) []byte {
	if e.URLKey == "" {
		dst = append(dst, "undefined"...)
	}
	dst = append(dst, e.URLKey...)
	dst = append(dst, ' ')
	dst = append(dst, e.Timestamp...)
	dst = append(dst, ' ', '{')
	for i, f := range e.Fields {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, f.Name)
		dst = append(dst, ':')
		if f.Raw {
			dst = append(dst, f.Value...)
		} else {
			dst = appendJSONString(dst, f.Value)
		}
	}
	return append(dst, '}', '\n')
}

// cdx11Fields are the fields of a CDX-11 line after urlkey and timestamp.
var cdx11Fields = []string{FieldURL, FieldMIME, FieldStatus, FieldDigest, "redirect", "meta", FieldLength, FieldOffset, FieldFilename}

// AppendCDX11 appends the entry as a CDX-11 line ending in "\n" as
// warcio.js writes it: absent fields as "-", values as they are.
func (e *Entry) AppendCDX11(dst []byte) []byte {
	if e.URLKey == "" {
		dst = append(dst, '-')
	}
	dst = append(dst, e.URLKey...)
	dst = append(dst, ' ')
	dst = append(dst, e.Timestamp...)
	for _, name := range cdx11Fields {
		dst = append(dst, ' ')
		if v, ok := e.Get(name); ok {
			dst = append(dst, v...)
		} else {
			dst = append(dst, '-')
		}
	}
	return append(dst, '\n')
}

// String returns the CDXJ line without its newline.
func (e *Entry) String() string {
	b := e.AppendCDXJ(nil)
	return string(b[:len(b)-1])
}

// ErrNotCDXJ is wrapped by ParseCDXJ errors.
var ErrNotCDXJ = errors.New("not a CDXJ line")

// ParseCDXJ parses one CDXJ line "urlkey timestamp {json}" (a trailing
// "\n" or "\r\n" is ignored). The key may contain spaces (warcio.js keeps
// non-HTTP URLs as they are): the JSON object is the first " {" from which
// the rest of the line parses as one JSON object, and the timestamp is the
// last space-separated word before it (possibly empty).
func ParseCDXJ(line []byte) (Entry, error) {
	line = bytes.TrimRight(line, "\r\n")
	var lastErr error
	for from := 0; ; {
		i := bytes.Index(line[from:], []byte(" {"))
		if i < 0 {
			break
		}
		i += from
		from = i + 1
		fields, err := parseObject(string(line[i+1:]))
		if err != nil {
			lastErr = err
			continue
		}
		head := string(line[:i])
		sp := strings.LastIndexByte(head, ' ')
		if sp < 0 {
			return Entry{}, fmt.Errorf("%w: no timestamp before the JSON", ErrNotCDXJ)
		}
		return Entry{URLKey: head[:sp], Timestamp: head[sp+1:], Fields: fields}, nil
	}
	if lastErr != nil {
		return Entry{}, fmt.Errorf("%w: %v", ErrNotCDXJ, lastErr)
	}
	return Entry{}, fmt.Errorf("%w: no JSON object", ErrNotCDXJ)
}

// parseObject parses a JSON object into fields, in written order (a
// repeated name keeps the last value).
func parseObject(s string) ([]Field, error) {
	p := jparser{s: s}
	p.ws()
	if p.i >= len(s) || s[p.i] != '{' {
		return nil, errors.New("JSON object expected")
	}
	p.i++
	var out []Field
	p.ws()
	if p.i < len(s) && s[p.i] == '}' {
		p.i++
	} else {
		for {
			p.ws()
			if p.i >= len(s) || s[p.i] != '"' {
				return nil, fmt.Errorf("member name expected at column %d", p.i+1)
			}
			k, ok := p.str()
			if !ok {
				return nil, fmt.Errorf("bad string at column %d", p.i+1)
			}
			p.ws()
			if p.i >= len(s) || s[p.i] != ':' {
				return nil, fmt.Errorf("':' expected at column %d", p.i+1)
			}
			p.i++
			p.ws()
			start := p.i
			v, ok := p.value(1)
			if !ok {
				return nil, fmt.Errorf("bad value at column %d", start+1)
			}
			f := Field{Name: k}
			if v.kind == jString {
				f.Value = v.str
			} else {
				f.Value, f.Raw = s[start:p.i], true
				if v.kind == jNumber {
					// Numbers read as their text, so Int works on them.
					f.Value = strings.TrimSpace(f.Value)
				}
			}
			replaced := false
			for j := range out {
				if out[j].Name == k {
					out[j] = f
					replaced = true
				}
			}
			if !replaced {
				out = append(out, f)
			}
			p.ws()
			if p.i >= len(s) {
				return nil, errors.New("unterminated object")
			}
			if s[p.i] == ',' {
				p.i++
				continue
			}
			if s[p.i] == '}' {
				p.i++
				break
			}
			return nil, fmt.Errorf("',' or '}' expected at column %d", p.i+1)
		}
	}
	p.ws()
	if p.i != len(s) {
		return nil, fmt.Errorf("text after the JSON object at column %d", p.i+1)
	}
	return out, nil
}
