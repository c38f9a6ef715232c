package replay

import (
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/arcport/arcport/lib/cdx"
)

// canonFunc turns a query URL into the key its index uses.
type canonFunc func(url string) string

// query is pywb's CDXQuery over the parameters of one request.
type query struct {
	params  map[string]string
	filters []string
	// filterSet is true when filter= was given (even empty).
	filterSet     bool
	pageCount     bool
	secondaryOnly bool
	// keys caches the key range per canonicaliser.
	keys map[uintptr][2]string
	now  func() time.Time
	// done are called when the request ends (iterators to stop).
	done *[]func()
}

// onDone registers fn to run when the request ends.
func (q *query) onDone(fn func()) {
	if q.done == nil {
		q.done = new([]func())
	}
	*q.done = append(*q.done, fn)
}

func (q *query) get(k string) string { return q.params[k] }

// parseQS is Python's urllib.parse.parse_qsl as query_to_dict(qs,
// multi=['filter']) uses it: "&"-separated, "+" a space, %-escapes
// decoded leniently, pairs without "=" or with an empty value dropped,
// the last of a repeated name kept but filter, which is a list.
func parseQS(raw string) (map[string]string, []string) {
	params := map[string]string{}
	var filters []string
	for _, part := range strings.Split(raw, "&") {
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok || v == "" {
			continue
		}
		k, v = pyUnquotePlus(k), pyUnquotePlus(v)
		if k == "filter" {
			filters = append(filters, v)
			continue
		}
		params[k] = v
	}
	return params, filters
}

// pyUnquotePlus is urllib.parse.unquote_plus: bad escapes kept as they
// are, bytes that are not UTF-8 replaced by U+FFFD.
func pyUnquotePlus(s string) string {
	s = strings.ReplaceAll(s, "+", " ")
	if !strings.Contains(s, "%") {
		return s
	}
	var b []byte
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s)+0 && isHex(s[i+1]) && isHex(s[i+2]) {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// pyToBool is pywb's to_bool.
func pyToBool(v string) bool {
	if v == "" {
		return false
	}
	switch strings.ToLower(v) {
	case "0", "false", "f", "off":
		return false
	}
	return true
}

// Limits on a query, where pywb has none: past them it answers 400 (a
// URL of 64 KiB costs Python surt's canonicaliser 40 ms here; a megabyte
// of regular expression or 100,000 filters would cost seconds or
// gigabytes).
const (
	MaxURL         = 64 << 10
	MaxFilters     = 1000
	MaxFilterRegex = 16 << 10
)

// checkLimits returns the 400 for a query past the limits.
func (q *query) checkLimits() error {
	if n := len(q.params["url"]); n > MaxURL {
		return &badRequest{fmt.Sprintf("url of %d bytes: at most %d", n, MaxURL)}
	}
	if len(q.filters) > MaxFilters {
		return &badRequest{fmt.Sprintf("%d filter= params: at most %d", len(q.filters), MaxFilters)}
	}
	for _, f := range q.filters {
		if len(f) > MaxFilterRegex {
			return &badRequest{fmt.Sprintf("filter= of %d bytes: at most %d", len(f), MaxFilterRegex)}
		}
	}
	return nil
}

// prepare is the part of CDXQuery.__init__ that reads the URL: the "*"
// forms set matchType when it is not given.
func (q *query) prepare() error {
	u := q.params["url"]
	if q.params["matchType"] == "" {
		switch {
		case strings.HasPrefix(u, "*."):
			q.params["url"] = u[2:]
			q.params["matchType"] = "domain"
		case strings.HasSuffix(u, "*"):
			q.params["url"] = u[:len(u)-1]
			q.params["matchType"] = "prefix"
		default:
			q.params["matchType"] = "exact"
		}
	}
	_, _, err := calcSearchRange(q.params["url"], q.params["matchType"], pywbCanon)
	return err
}

// rangeFor returns the query's key range under canon.
func (q *query) rangeFor(canon canonFunc) (string, string, error) {
	if canon == nil {
		canon = pywbCanon
	}
	id := reflect.ValueOf(canon).Pointer()
	if q.keys == nil {
		q.keys = map[uintptr][2]string{}
	}
	if r, ok := q.keys[id]; ok {
		return r[0], r[1], nil
	}
	k, e, err := calcSearchRange(q.params["url"], q.params["matchType"], canon)
	if err != nil {
		return "", "", err
	}
	q.keys[id] = [2]string{k, e}
	return k, e, nil
}

// pywbCanon keys a URL as pywb does (Python surt).
func pywbCanon(u string) string { return cdx.PySURT(u) }

// calcSearchRange is pywb's calc_search_range for SURT-ordered keys.
func calcSearchRange(u, matchType string, canon canonFunc) (string, string, error) {
	incLast := func(x string) string {
		r, n := utf8.DecodeLastRuneInString(x)
		return x[:len(x)-n] + string(r+1)
	}
	start := canon(u)
	switch matchType {
	case "exact":
		return start, start + "!", nil
	case "prefix":
		if strings.HasSuffix(u, "/") && !strings.HasSuffix(start, "/") {
			start += "/"
		}
		if strings.HasSuffix(u, "?") && !strings.HasSuffix(start, "?") {
			start += "?"
		}
		if start == "" {
			return "", "", &internalError{"string index out of range"}
		}
		return start, incLast(start), nil
	case "host":
		host, _, _ := strings.Cut(start, ")/")
		return host + ")/", host + "*", nil
	case "domain":
		host, _, _ := strings.Cut(start, ")/")
		if !strings.Contains(host, ",") {
			return host + ",", host + "-", nil
		}
		return host + ")/", host + "-", nil
	}
	return "", "", &badRequest{"Invalid match_type: " + matchType}
}

// limit is CDXQuery.limit.
func (q *query) limit() (int64, error) {
	v, ok := q.params["limit"]
	if !ok {
		return 100000, nil
	}
	n, good := cdx.PyInt(v)
	if !good {
		return 0, &internalError{"invalid literal for int() with base 10: " + pyRepr(v)}
	}
	return n, nil
}

// process is cdxops.process_cdx.
func (q *query) process(it iterFunc) (iterFunc, error) {
	if pyToBool(q.params["resolveRevisits"]) {
		it = resolveRevisits(it)
	}
	if len(q.filters) > 0 {
		it = filterIter(it, q.filters)
	}
	if q.params["from"] != "" || q.params["from_ts"] != "" || q.params["to"] != "" {
		from := q.params["from"]
		if from == "" {
			from = q.params["from_ts"]
		}
		it = clampIter(it, from, q.params["to"])
	}
	if ct := q.params["collapseTime"]; ct != "" {
		it = collapseIter(it, ct)
	}
	limit, err := q.limit()
	if err != nil {
		return nil, err
	}
	switch {
	case q.params["closest"] != "":
		it = closestIter(it, q.params["closest"], limit)
	case pyToBool(q.params["reverse"]) || q.params["sort"] == "reverse":
		it = reverseIter(it, limit)
	case limit != 0:
		n := int64(0)
		inner := it
		it = func() (*cdxObj, error) {
			if n >= limit {
				return nil, nil
			}
			n++
			return inner()
		}
	}
	return it, nil
}

func resolveRevisits(it iterFunc) iterFunc {
	originals := map[string]*cdxObj{}
	return func() (*cdxObj, error) {
		c, err := it()
		if c == nil || err != nil {
			return c, err
		}
		rev := c.isRevisit()
		var orig *cdxObj
		if d, ok := c.get(fDigest); ok && d.String() != "" {
			orig = originals[d.String()]
			if orig == nil && !rev {
				originals[d.String()] = c
			}
		}
		fill := func(string) pyVal { return str("-") }
		if orig != nil && rev {
			fill = func(f string) pyVal {
				if v, ok := orig.get(f); ok {
					return v
				}
				return str("-")
			}
			if _, ok := c.get(fMIME); ok {
				v, ok := orig.get(fMIME)
				if !ok {
					v = str("")
				}
				c.set(fMIME, v)
			}
			if _, ok := c.get(fStatus); ok {
				v, ok := orig.get(fStatus)
				if !ok {
					v = str("")
				}
				c.set(fStatus, v)
			}
		}
		for _, f := range []string{fLength, fOffset, fFilename} {
			c.set("orig."+f, fill(f))
		}
		return c, nil
	}
}

// cdxFilter is cdxops.CDXFilter.
type cdxFilter struct {
	invert bool
	mode   byte // '=', '~' or 0 (contains)
	field  string
	s      string
	rx     *regexp.Regexp
}

func newFilter(s string) (*cdxFilter, error) {
	f := &cdxFilter{}
	if strings.HasPrefix(s, "!") {
		f.invert, s = true, s[1:]
	}
	if strings.HasPrefix(s, "=") || strings.HasPrefix(s, "~") {
		f.mode, s = s[0], s[1:]
	}
	if field, rest, ok := strings.Cut(s, ":"); ok {
		if a, ok := altFields[field]; ok {
			field = a
		}
		f.field, s = field, rest
	}
	if f.mode == '~' {
		rx, err := regexp.Compile(`^(?:` + s + `)`)
		if err != nil {
			return nil, &internalError{err.Error()}
		}
		f.rx = rx
	}
	f.s = s
	return f, nil
}

func (f *cdxFilter) match(c *cdxObj) bool {
	var v string
	if f.field == "" {
		v = c.String()
	} else {
		v = c.gets(f.field)
	}
	var m bool
	switch f.mode {
	case '=':
		m = v == f.s
	case '~':
		m = f.rx.MatchString(v)
	default:
		m = strings.Contains(v, f.s)
	}
	return m != f.invert
}

func filterIter(it iterFunc, specs []string) iterFunc {
	var fs []*cdxFilter
	var ferr error
	built := false
	return func() (*cdxObj, error) {
		if !built {
			built = true
			for _, s := range specs {
				f, err := newFilter(s)
				if err != nil {
					ferr = err
					break
				}
				fs = append(fs, f)
			}
		}
		if ferr != nil {
			return nil, ferr
		}
	next:
		for {
			c, err := it()
			if c == nil || err != nil {
				return c, err
			}
			for _, f := range fs {
				if !f.match(c) {
					continue next
				}
			}
			return c, nil
		}
	}
}

func padTimestamp(s, pad string) string {
	if len(s) < len(pad) {
		return s + pad[len(s):]
	}
	return s
}

func clampIter(it iterFunc, from, to string) iterFunc {
	if from != "" && len(from) < 14 {
		from = padTimestamp(from, "10000101000000")
	}
	if to != "" && len(to) < 14 {
		to = padTimestamp(to, "29991231235959")
	}
	return func() (*cdxObj, error) {
		for {
			c, err := it()
			if c == nil || err != nil {
				return c, err
			}
			ts := c.gets(fTimestamp)
			if from != "" && ts < from || to != "" && ts > to {
				continue
			}
			return c, nil
		}
	}
}

// pySlicePrefix is s[:n] with Python's negative indexes.
func pySlicePrefix(s string, n int64) string {
	if n < 0 {
		n += int64(len(s))
		if n < 0 {
			n = 0
		}
	}
	if n > int64(len(s)) {
		n = int64(len(s))
	}
	return s[:n]
}

func collapseIter(it iterFunc, timelen string) iterFunc {
	var last *[2]string
	return func() (*cdxObj, error) {
		n, ok := cdx.PyInt(timelen)
		if !ok {
			return nil, &internalError{"invalid literal for int() with base 10: " + pyRepr(timelen)}
		}
		for {
			c, err := it()
			if c == nil || err != nil {
				return c, err
			}
			tok := [2]string{pySlicePrefix(c.gets(fTimestamp), n), c.gets(fStatus)}
			if last == nil || *last != tok {
				last = &tok
				return c, nil
			}
		}
	}
}

func closestIter(it iterFunc, closest string, limit int64) iterFunc {
	var out []*cdxObj
	i := 0
	done := false
	return func() (*cdxObj, error) {
		if !done {
			done = true
			want := timestampToSec(closest)
			var keys []int64
			for {
				c, err := it()
				if err != nil {
					return nil, err
				}
				if c == nil {
					break
				}
				d := want - timestampToSec(c.gets(fTimestamp))
				if d < 0 {
					d = -d
				}
				j := sort.Search(len(keys), func(k int) bool { return keys[k] > d })
				keys = append(keys[:j], append([]int64{d}, keys[j:]...)...)
				out = append(out[:j], append([]*cdxObj{c}, out[j:]...)...)
				if int64(len(out)) > limit {
					out, keys = out[:len(out)-1], keys[:len(keys)-1]
				}
			}
		}
		if i >= len(out) {
			return nil, nil
		}
		i++
		return out[i-1], nil
	}
}

func reverseIter(it iterFunc, limit int64) iterFunc {
	var out []*cdxObj
	i := 0
	done := false
	return func() (*cdxObj, error) {
		if !done {
			done = true
			if limit < 0 {
				return nil, &internalError{"maxlen must be non-negative"}
			}
			for {
				c, err := it()
				if err != nil {
					return nil, err
				}
				if c == nil {
					break
				}
				out = append(out, c)
				if int64(len(out)) > limit {
					out = out[1:]
				}
			}
			for a, b := 0, len(out)-1; a < b; a, b = a+1, b-1 {
				out[a], out[b] = out[b], out[a]
			}
		}
		if i >= len(out) {
			return nil, nil
		}
		i++
		return out[i-1], nil
	}
}

// timestampToSec is warcio's timestamp_to_sec.
func timestampToSec(s string) int64 { return cdx.TimestampToDatetime(s).Unix() }

// httpDate is warcio's timestamp_to_http_date.
func httpDate(ts string) string {
	return cdx.TimestampToDatetime(ts).Format("Mon, 02 Jan 2006 15:04:05 GMT")
}
