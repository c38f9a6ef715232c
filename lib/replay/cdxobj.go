package replay

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/arcport/arcport/lib/cdx"
)

// Field names of pywb's CDXObject.
const (
	fURLKey    = "urlkey"
	fTimestamp = "timestamp"
	fURL       = "url"
	fMIME      = "mime"
	fStatus    = "status"
	fDigest    = "digest"
	fRedirect  = "redirect"
	fRobot     = "robotflags"
	fLength    = "length"
	fOffset    = "offset"
	fFilename  = "filename"
)

// cdxFormats are the space-separated line formats pywb reads, by field
// count (CDXObject.CDX_FORMATS).
var cdxFormats = map[int][]string{
	7:  {fURLKey, fTimestamp, fURL, fMIME, fStatus, fDigest, fLength},
	11: {fURLKey, fTimestamp, fURL, fMIME, fStatus, fDigest, fRedirect, fRobot, fLength, fOffset, fFilename},
	10: {fURLKey, fTimestamp, fURL, fMIME, fStatus, fDigest, fRedirect, fRobot, fOffset, fFilename},
	9:  {fURLKey, fTimestamp, fURL, fMIME, fStatus, fDigest, fRedirect, fOffset, fFilename},
	14: {fURLKey, fTimestamp, fURL, fMIME, fStatus, fDigest, fRedirect, fRobot, fLength, fOffset, fFilename, "orig.length", "orig.offset", "orig.filename"},
	13: {fURLKey, fTimestamp, fURL, fMIME, fStatus, fDigest, fRedirect, fRobot, fOffset, fFilename, "orig.length", "orig.offset", "orig.filename"},
	12: {fURLKey, fTimestamp, fURL, fMIME, fStatus, fDigest, fRedirect, fOffset, fFilename, "orig.length", "orig.offset", "orig.filename"},
}

// altFields maps the short and old field names pywb accepts in CDXJ
// members and filters to its names (CDX_ALT_FIELDS; "s" is listed twice
// there and means length).
var altFields = map[string]string{
	"u": fURL, "original": fURL,
	"statuscode": fStatus,
	"mimetype":   fMIME, "m": fMIME,
	"l": fLength, "s": fLength,
	"o": fOffset,
	"d": fDigest,
	"t": fTimestamp,
	"k": fURLKey,
	"f": fFilename,
}

// iterFunc yields index objects one at a time: (nil, nil) at the end.
type iterFunc func() (*cdxObj, error)

func emptyIter() (*cdxObj, error) { return nil, nil }

// cdxObj is pywb's CDXObject: an ordered map of fields, the line it was
// read from (until a field is set) and whether that line was CDXJ.
type cdxObj struct {
	keys     []string
	vals     []pyVal
	line     string
	hasLine  bool
	fromJSON bool
	// idx is set for a ZipNum summary line (showPagedIndex).
	idx bool
	// info is set for showNumPages' answer (pywb's AlwaysJsonResponse:
	// its JSON, without a newline, whatever the output).
	info bool
}

func (c *cdxObj) get(k string) (pyVal, bool) {
	for i, n := range c.keys {
		if n == k {
			return c.vals[i], true
		}
	}
	return pyVal{}, false
}

func (c *cdxObj) gets(k string) string {
	v, _ := c.get(k)
	return v.String()
}

func (c *cdxObj) set(k string, v pyVal) {
	c.hasLine = false
	c.line = ""
	for i, n := range c.keys {
		if n == k {
			c.vals[i] = v
			return
		}
	}
	c.keys = append(c.keys, k)
	c.vals = append(c.vals, v)
}

// pyRstrip strips trailing ASCII white space as bytes.rstrip() does.
func pyRstrip(s string) string {
	return strings.TrimRight(s, " \t\n\r\x0b\x0c")
}

// parseCDXObj reads an index line as CDXObject(line) does.
func parseCDXObj(line string) (*cdxObj, error) {
	line = pyRstrip(line)
	c := &cdxObj{line: line, hasLine: true}
	if line == "" {
		return c, nil
	}
	fields := strings.SplitN(line, " ", 3)
	if last := fields[len(fields)-1]; strings.HasPrefix(last, "{") {
		if len(fields) < 2 {
			return nil, &internalError{"list index out of range"}
		}
		c.keys = append(c.keys, fURLKey, fTimestamp)
		c.vals = append(c.vals, str(fields[0]), str(fields[1]))
		if err := c.setJSON(last); err != nil {
			return nil, err
		}
		c.hasLine, c.line, c.fromJSON = true, line, true
		return c, nil
	}
	more := strings.Split(fields[len(fields)-1], " ")
	fields = append(fields[:len(fields)-1], more...)
	format, ok := cdxFormats[len(fields)]
	if !ok {
		reprs := make([]string, len(fields))
		for i, f := range fields {
			reprs[i] = pyBytesRepr(f)
		}
		return nil, &cdxError{fmt.Sprintf("unknown %d-field cdx format: [%s]", len(fields), strings.Join(reprs, ", "))}
	}
	for i, f := range fields {
		c.keys = append(c.keys, format[i])
		c.vals = append(c.vals, str(f))
	}
	return c, nil
}

// setJSON adds the members of a CDXJ line's JSON object, in order, as
// CDXObject does (names mapped through altFields, a non-ASCII url
// percent-encoded, an integer status made a string).
func (c *cdxObj) setJSON(js string) error {
	d := json.NewDecoder(strings.NewReader(js))
	d.UseNumber()
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return &internalError{"Expecting value: line 1 column 1 (char 0)"}
	}
	type member struct {
		k string
		v pyVal
	}
	var ms []member
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return &internalError{err.Error()}
		}
		k, _ := t.(string)
		var raw json.RawMessage
		if err := d.Decode(&raw); err != nil {
			return &internalError{err.Error()}
		}
		var v pyVal
		if len(raw) > 0 && raw[0] == '"' {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return &internalError{err.Error()}
			}
			v = str(s)
		} else {
			b, err := pyJSONValue(raw)
			if err != nil {
				return &internalError{err.Error()}
			}
			v = pyVal{s: string(b), raw: true}
			if k == fStatus && isJSONInt(b) {
				v = str(string(b))
			}
		}
		dup := false
		for i := range ms {
			if ms[i].k == k {
				ms[i].v, dup = v, true
			}
		}
		if !dup {
			ms = append(ms, member{k, v})
		}
	}
	for _, m := range ms {
		n := m.k
		if a, ok := altFields[n]; ok {
			n = a
		}
		v := m.v
		if n == fURL && !v.raw && !isASCII(v.s) {
			v = str(pyQuote(v.s, ":/"))
		}
		c.set(n, v)
	}
	return nil
}

func isJSONInt(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for i, c := range b {
		if !(c >= '0' && c <= '9' || c == '-' && i == 0) {
			return false
		}
	}
	return true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// pyQuote is urllib.parse.quote(s.encode('utf-8'), safe).
func pyQuote(s, safe string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_.-~", c) >= 0 || strings.IndexByte(safe, c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// isRevisit is CDXObject.is_revisit.
func (c *cdxObj) isRevisit() bool {
	if v, ok := c.get(fMIME); ok && v.String() == "warc/revisit" {
		return true
	}
	v, ok := c.get(fFilename)
	return ok && v.String() == "-"
}

// appendJSONObj is conv_to_json: the fields named (all but those starting
// with "_" when fields is nil) as a JSON object and a newline.
func (c *cdxObj) appendJSONObj(dst []byte, fields []string, from int) []byte {
	dst = append(dst, '{')
	n := 0
	add := func(k string, v pyVal) {
		if n > 0 {
			dst = append(dst, ", "...)
		}
		n++
		dst = cdx.AppendPyJSON(dst, k)
		dst = append(dst, ": "...)
		dst = v.appendJSON(dst)
	}
	if fields == nil {
		for i := from; i < len(c.keys); i++ {
			if !strings.HasPrefix(c.keys[i], "_") {
				add(c.keys[i], c.vals[i])
			}
		}
	} else {
		for _, f := range fields {
			for i := from; i < len(c.keys); i++ {
				if c.keys[i] == f {
					add(f, c.vals[i])
					break
				}
			}
		}
	}
	return append(dst, "}\n"...)
}

// toJSON is CDXObject.to_json.
func (c *cdxObj) toJSON(dst []byte, fields []string) []byte {
	if c.info {
		return c.appendJSONAll(dst)
	}
	if c.idx {
		return c.appendIdxJSON(dst)
	}
	return c.appendJSONObj(dst, fields, 0)
}

// toCDXJ is CDXObject.to_cdxj: "urlkey timestamp " and the other fields.
func (c *cdxObj) toCDXJ(dst []byte, fields []string) ([]byte, error) {
	if c.info {
		return c.appendJSONAll(dst), nil
	}
	if c.idx {
		return dst, &internalError{"'IDXObject' object has no attribute 'to_cdxj'"}
	}
	uk, ok1 := c.get(fURLKey)
	ts, ok2 := c.get(fTimestamp)
	if !ok1 || !ok2 {
		k := fURLKey
		if ok1 {
			k = fTimestamp
		}
		return dst, &internalError{pyRepr(k)}
	}
	dst = append(dst, uk.String()...)
	dst = append(dst, ' ')
	dst = append(dst, ts.String()...)
	dst = append(dst, ' ')
	return c.appendJSONObj(dst, fields, 2), nil
}

// toText is CDXObject.to_text.
func (c *cdxObj) toText(dst []byte, fields []string) []byte {
	if c.info {
		return c.appendJSONAll(dst)
	}
	if c.idx {
		return append(append(dst, c.line...), '\n')
	}
	if fields == nil {
		if c.hasLine && c.line != "" {
			return append(append(dst, c.line...), '\n')
		}
		fields = c.keys
	}
	for i, f := range fields {
		if i > 0 {
			dst = append(dst, ' ')
		}
		if v, ok := c.get(f); ok {
			dst = append(dst, v.String()...)
		} else {
			dst = append(dst, '-')
		}
	}
	return append(dst, '\n')
}

// String is str(CDXObject): the line it was read from, or else its values
// joined by spaces (CDX lines) or its JSON (CDXJ lines).
func (c *cdxObj) String() string {
	if c.hasLine && c.line != "" {
		return c.line
	}
	if !c.fromJSON {
		parts := make([]string, len(c.vals))
		for i, v := range c.vals {
			parts[i] = v.String()
		}
		return strings.Join(parts, " ")
	}
	b := c.appendJSONAll(nil)
	return string(b)
}

// appendJSONAll is json.dumps of the whole object, "_" fields too.
func (c *cdxObj) appendJSONAll(dst []byte) []byte {
	dst = append(dst, '{')
	for i, k := range c.keys {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = cdx.AppendPyJSON(dst, k)
		dst = append(dst, ": "...)
		dst = c.vals[i].appendJSON(dst)
	}
	return append(dst, '}')
}

// sortJSON is the text CDXObject.__lt__ compares: to_json().
func (c *cdxObj) sortJSON() string {
	return string(c.appendJSONObj(nil, nil, 0))
}

// parseIdxObj reads a ZipNum summary line as IDXObject does.
func parseIdxObj(line string) (*cdxObj, error) {
	line = pyRstrip(line)
	f := strings.Split(line, "\t")
	if len(f) < 4 {
		return nil, &cdxError{fmt.Sprintf("invalid idx format: %d fields found, 4 required", len(f))}
	}
	c := &cdxObj{line: line, hasLine: true, idx: true}
	names := []string{"urlkey", "part", "offset", "length", "lineno"}
	for i, v := range f {
		if i >= len(names) {
			break
		}
		pv := str(v)
		if i >= 2 {
			n, ok := cdx.PyInt(v)
			if !ok {
				if i == 4 && v == "" {
					c.keys = append(c.keys, names[i])
					c.vals = append(c.vals, pv)
					continue
				}
				return nil, &internalError{fmt.Sprintf("invalid literal for int() with base 10: %s", pyBytesRepr(v))}
			}
			pv = pyVal{s: fmt.Sprint(n), raw: true}
		}
		c.keys = append(c.keys, names[i])
		c.vals = append(c.vals, pv)
	}
	return c, nil
}

func (c *cdxObj) appendIdxJSON(dst []byte) []byte {
	return append(c.appendJSONAll(dst), '\n')
}

// lineno returns an idx object's block number.
func (c *cdxObj) lineno() (int64, bool) {
	v, ok := c.get("lineno")
	if !ok || !v.raw {
		return 0, false
	}
	n, ok := cdx.PyInt(v.s)
	return n, ok
}
