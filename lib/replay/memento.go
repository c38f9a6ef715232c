package replay

import (
	"bytes"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Memento (RFC 7089) as pywb 2.10 answers it (pywb/apps/rewriterapp.py
// and pywb/utils/memento.py):
//
//	GET /COLL/timemap/{link,json,cdxj}/URL   a TimeMap: the CDX API's
//	    answer for url=URL in that output (link: mementos at
//	    /COLL/TSmp_/URL, under pywb's self, timegate and original links);
//	    no line: 404 with an empty body; TS/URL, TS-TS/URL, TS*/URL limit
//	    it to from=TS (to=TS)
//	GET /COLL/id_/URL                        the TimeGate: 307 to the
//	    capture closest to Accept-Datetime (or the latest), Vary:
//	    accept-datetime; a bad Accept-Datetime is 400
//
// A TimeMap of a URL without a time-stamp is, as in pywb, a TimeGate
// too: it answers Vary: accept-datetime and an Accept-Datetime makes it
// start there (from=).

// timemapPath is /COLL/timemap/OUTPUT/URL in the raw request target.
var timemapPath = regexp.MustCompile(`^/([^/?#]+)/timemap/([^/?#]+)/(.+)$`)

// pywb's WbUrl forms: a query (MOD/TS*TS/URL, TS-TS/URL) and a replay
// (TSMOD/URL).
var (
	wbQuery  = regexp.MustCompile(`^(?:[\w\-:]+/)?([0-9]*)[*-]([0-9]*)/?(.+)$`)
	wbReplay = regexp.MustCompile(`^([0-9]*)([a-z]+_|[$][a-z0-9:.-]+)?/{1,3}(.+)$`)
)

// fixScheme is WbUrl's URL as pywb takes it: "http:/x" (slashes merged
// by a client or proxy) made "http://x", and http:// added to a URL
// without a scheme.
func fixScheme(u string) string {
	for _, s := range []string{"http:/", "https:/"} {
		if strings.HasPrefix(u, s) && !strings.HasPrefix(u, s+"/") {
			u = s + "/" + u[len(s):]
		}
	}
	if !strings.Contains(u, "://") {
		u = "http://" + u
	}
	return u
}

// timemapHandler serves /COLL/timemap/OUTPUT/URL.
type timemapHandler struct{ cdx *cdxHandler }

func (h *timemapHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m := timemapPath.FindStringSubmatch(r.RequestURI)
	if m == nil {
		jsonError(w, http.StatusNotFound, "No Resource Found")
		return
	}
	coll, output, rest := m[1], m[2], m[3]
	if _, ok := h.cdx.s.source(coll); !ok {
		jsonError(w, http.StatusNotFound, "No such collection: "+coll)
		return
	}
	from, to, latest := "", "", false
	if q := wbQuery.FindStringSubmatch(rest); q != nil {
		// WbUrl's URL_QUERY: the final "*" dropped (the TimeMap's
		// lookup stays exact)
		from, to, rest = q[1], q[2], strings.TrimSuffix(q[3], "*")
	} else if p := wbReplay.FindStringSubmatch(rest); p != nil {
		from, rest = p[1], p[3]
		latest = from == ""
	} else {
		latest = true
	}
	u := fixScheme(rest)
	if latest {
		if ad := r.Header.Get("Accept-Datetime"); ad != "" {
			ts, ok := acceptDatetime(ad)
			if !ok {
				jsonError(w, http.StatusBadRequest, "Invalid Accept-Datetime")
				return
			}
			from = ts
		}
	}
	base := baseURL(r) + "/" + coll + "/"
	params := map[string]string{"url": u, "output": output, "memento_format": base + "{timestamp}mp_/{url}"}
	if from != "" {
		params["from"] = from
	}
	if to != "" {
		params["to"] = to
	}
	get := r.Clone(r.Context())
	get.Method = http.MethodGet
	tw := &timemapWriter{w: w, header: http.Header{}, head: r.Method == http.MethodHead}
	tw.first = func(hdr http.Header, p []byte) []byte {
		hdr.Set("Link", mementoLinks(u, base, "", ""))
		if latest {
			hdr.Set("Vary", "accept-datetime")
		}
		if output == "link" {
			return timemapHead(u, base+u, base+"timemap/link/"+u, p)
		}
		return nil
	}
	h.cdx.serve(tw, get, coll, params, nil)
	tw.finish()
}

// findDatetime is pywb's FIND_DT.
var findDatetime = regexp.MustCompile(`datetime="([^"]+)"`)

// timemapHead is what MementoUtils.wrap_timemap_header puts before the
// mementos (first: the answer's first bytes, which hold its first line).
func timemapHead(u, timegate, timemap string, first []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "<%s>; rel=\"self\"; type=\"application/link-format\"", timemap)
	if m := findDatetime.FindSubmatch(first); m != nil {
		fmt.Fprintf(&b, "; from=\"%s\"", m[1])
	}
	fmt.Fprintf(&b, ",\n<%s>; rel=\"timegate\",\n<%s>; rel=\"original\",\n", timegate, u)
	return b.Bytes()
}

// mementoLinks is the Link header of _add_memento_links: original,
// timegate and timemap of u, and when ts is set the memento at
// BASE/TSmp_/u (with its collection when coll is set).
func mementoLinks(u, base, ts, coll string) string {
	s := fmt.Sprintf(`<%s>; rel="original", <%s%s>; rel="timegate", <%stimemap/link/%s>; rel="timemap"; type="application/link-format"`, u, base, u, base, u)
	if ts != "" {
		s += fmt.Sprintf(`, <%s%smp_/%s>; rel="memento"; datetime="%s"`, base, ts, u, httpDate(ts))
		if coll != "" {
			s += fmt.Sprintf(`; collection="%s"`, coll)
		}
	}
	return s
}

// timemapWriter passes the CDX API's answer on as a TimeMap, streamed,
// not kept: held until its first bytes (none: 404 with an empty body, as
// pywb answers an empty TimeMap), then pywb's headers and, in link, its
// three lines before the mementos. Another status (a bad output) is
// passed on as it is.
type timemapWriter struct {
	w       http.ResponseWriter
	header  http.Header // the CDX API's
	code    int
	started bool
	head    bool // a HEAD request: no body
	// first sets the headers of a 200 and returns what goes before the
	// answer's bytes (p: the first ones, at least its first line)
	first func(hdr http.Header, p []byte) []byte
}

func (t *timemapWriter) Header() http.Header { return t.header }

func (t *timemapWriter) WriteHeader(code int) {
	if t.code == 0 {
		t.code = code
	}
}

func (t *timemapWriter) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if t.code == 0 {
		t.code = http.StatusOK
	}
	if !t.started {
		t.started = true
		hdr := t.w.Header()
		hdr.Set("Content-Type", t.header.Get("Content-Type"))
		var prefix []byte
		if t.code == http.StatusOK {
			prefix = t.first(hdr, p)
		} else if cl := t.header.Get("Content-Length"); cl != "" {
			hdr.Set("Content-Length", cl)
		}
		t.w.WriteHeader(t.code)
		if !t.head && len(prefix) > 0 {
			if _, err := t.w.Write(prefix); err != nil {
				return 0, err
			}
		}
	}
	if t.head {
		return len(p), nil
	}
	return t.w.Write(p)
}

// finish answers 404 with an empty body when nothing was written.
func (t *timemapWriter) finish() {
	if t.started {
		return
	}
	hdr := t.w.Header()
	hdr.Set("Content-Type", t.header.Get("Content-Type"))
	hdr.Set("Content-Length", "0")
	t.w.WriteHeader(http.StatusNotFound)
}

var (
	pyMonthNames = []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
		"january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"}
	pyDayNames = map[string]bool{"mon": true, "tue": true, "wed": true, "thu": true, "fri": true, "sat": true, "sun": true}
)

// acceptDatetime is warcio's http_date_to_timestamp, as pywb reads
// Accept-Datetime: Python's email.utils.parsedate (RFC 822/1123, RFC 850
// and asctime forms, a two-digit year, the zone ignored), then a valid
// date and time; false where pywb answers 400.
func acceptDatetime(s string) (string, bool) {
	data := strings.Fields(s)
	if len(data) == 0 {
		return "", false
	}
	if strings.HasSuffix(data[0], ",") || pyDayNames[strings.ToLower(data[0])] {
		data = data[1:]
	} else if i := strings.LastIndexByte(data[0], ','); i >= 0 {
		data[0] = data[0][i+1:]
	}
	if len(data) == 3 {
		if stuff := strings.Split(data[0], "-"); len(stuff) == 3 {
			data = append(stuff, data[1:]...)
		}
	}
	if len(data) == 4 {
		s := data[3]
		i := strings.IndexByte(s, '+')
		if i == -1 {
			i = strings.IndexByte(s, '-')
		}
		if i > 0 {
			data = append(data[:3:3], s[:i], s[i:])
		} else {
			data = append(data, "")
		}
	}
	if len(data) < 5 {
		return "", false
	}
	dd, mm, yy, tm, tz := data[0], data[1], data[2], data[3], data[4]
	if dd == "" || mm == "" || yy == "" {
		return "", false
	}
	month := func(m string) int {
		for i, n := range pyMonthNames {
			if n == m {
				return i%12 + 1
			}
		}
		return 0
	}
	mon := month(strings.ToLower(mm))
	if mon == 0 {
		dd, mm = mm, strings.ToLower(dd)
		if mon = month(mm); mon == 0 {
			return "", false
		}
	}
	dd = strings.TrimSuffix(dd, ",")
	if i := strings.IndexByte(yy, ':'); i > 0 {
		yy, tm = tm, yy
	}
	if strings.HasSuffix(yy, ",") {
		if yy = yy[:len(yy)-1]; yy == "" {
			return "", false
		}
	}
	if yy == "" || yy[0] < '0' || yy[0] > '9' {
		yy, tz = tz, yy
	}
	_ = tz
	if tm == "" {
		return "", false // Python: an IndexError, answered 400 as well
	}
	tm = strings.TrimSuffix(tm, ",")
	parts := strings.Split(tm, ":")
	switch {
	case len(parts) == 2:
		parts = append(parts, "0")
	case len(parts) == 3:
	case len(parts) == 1 && strings.Contains(tm, "."):
		parts = strings.Split(tm, ".")
		switch len(parts) {
		case 2:
			parts = append(parts, "0")
		case 3:
		default:
			return "", false
		}
	default:
		return "", false
	}
	var n [5]int
	for i, f := range []string{yy, dd, parts[0], parts[1], parts[2]} {
		v, ok := pyIntStrict(f)
		if !ok {
			return "", false
		}
		n[i] = v
	}
	year, day, hh, mi, ss := n[0], n[1], n[2], n[3], n[4]
	if year >= 0 && year < 100 {
		if year > 68 {
			year += 1900
		} else {
			year += 2000
		}
	}
	// datetime.datetime(*t[:6]): each field in range
	if year < 1 || year > 9999 || day < 1 || hh < 0 || hh > 23 || mi < 0 || mi > 59 || ss < 0 || ss > 59 {
		return "", false
	}
	t := time.Date(year, time.Month(mon), day, hh, mi, ss, 0, time.UTC)
	if t.Day() != day {
		return "", false
	}
	// strftime('%Y%m%d%H%M%S'): the year not padded on glibc
	return strconv.Itoa(year) + t.Format("0102150405"), true
}

// pyIntStrict is Python's int() of a string without spaces: an optional
// sign, ASCII digits, single underscores between them.
func pyIntStrict(s string) (int, bool) {
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "" || s[0] == '_' || s[len(s)-1] == '_' || strings.Contains(s, "__") {
		return 0, false
	}
	v, err := strconv.Atoi(strings.ReplaceAll(s, "_", ""))
	if err != nil || strings.ContainsAny(s, "+-") {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}
