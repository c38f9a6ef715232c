package replay

import (
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/arcport/arcport/lib/cdx"
	"github.com/arcport/arcport/lib/httpmsg"
	"github.com/arcport/arcport/lib/record"
)

// replayPath is /COLL/TS{mod}/URL in the request's raw target: a
// time-stamp of 0 to 14 digits (a prefix, as pywb takes it) and the id_
// modifier or one of package rewrite's; an empty time-stamp is the TimeGate
// (memento.go). framePath is the top frame, /COLL/TS/URL (frame.go), and
// frameLatest /COLL/URL for a URL with its scheme.
var (
	replayPath  = regexp.MustCompile(`^/([^/?#]+)/([0-9]{0,14})(id_|mp_|js_|cs_|im_|oe_|if_|fr_)/(.+)$`)
	framePath   = regexp.MustCompile(`^/([^/?#]+)/([0-9]{1,14})/(.+)$`)
	frameLatest = regexp.MustCompile(`^/([^/?#]+)/((?i:https?):/.*)$`)
)

// headerRules are pywb's DefaultHeaderRewriter rules for id_ (no URL or
// content rewriting): these archived headers are renamed
// X-Archive-Orig-NAME (a Content-Length too when it is not a number >= 0);
// every other header is kept as it is.
var prefixedHeaders = map[string]bool{
	"age": true, "alt-svc": true, "cache-control": true, "connection": true, "content-md5": true,
	"content-security-policy": true, "content-security-policy-report-only": true, "date": true,
	"etag": true, "expires": true, "last-modified": true, "p3p": true, "pragma": true,
	"public-key-pins": true, "retry-after": true, "server": true, "status": true,
	"strict-transport-security": true, "trailer": true, "transfer-encoding": true, "tk": true,
	"upgrade": true, "upgrade-insecure-requests": true, "vary": true, "via": true, "warning": true,
	"x-frame-options": true, "x-xss-protection": true,
}

const origPrefix = "X-Archive-Orig-"

// replayHandler serves /COLL/TSid_/URL: the capture of URL closest to TS
// (307 to its exact time-stamp when TS is not it, as pywb with
// redirect_to_exact), its archived status and headers (hop-by-hop and
// caching ones renamed X-Archive-Orig-*, as pywb renames them) and its
// payload as captured (the transfer coding undone, the content coding
// kept); a revisit is answered with its own headers and its original's
// payload.
type replayHandler struct{ s *Server }

// replayRequest is a parsed /COLL/TS{mod}/URL.
type replayRequest struct {
	coll, ts, url string
	mod           string // "id_", a rewriting modifier, "" for the top frame
}

// parseReplay reads the raw request target (the URL as the client sent
// it, query included: ServeMux would clean "http://" to "http:/").
func parseReplay(target string) (replayRequest, bool) {
	// a client or proxy may have merged the slashes of the scheme
	if m := replayPath.FindStringSubmatch(target); m != nil {
		return replayRequest{coll: m[1], ts: m[2], mod: m[3], url: fixScheme(m[4])}, true
	}
	if m := framePath.FindStringSubmatch(target); m != nil {
		return replayRequest{coll: m[1], ts: m[2], url: fixScheme(m[3])}, true
	}
	if m := frameLatest.FindStringSubmatch(target); m != nil {
		return replayRequest{coll: m[1], url: fixScheme(m[2])}, true
	}
	return replayRequest{}, false
}

func (h *replayHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rq, ok := parseReplay(r.RequestURI)
	if !ok {
		jsonError(w, http.StatusNotFound, "No Resource Found")
		return
	}
	src, ok := h.s.source(rq.coll)
	if !ok {
		notFound(w, r, rq, nil, "No such collection: "+rq.coll)
		return
	}
	// no time-stamp: the TimeGate, at Accept-Datetime or the latest
	timegate := rq.ts == ""
	if ad := r.Header.Get("Accept-Datetime"); timegate && ad != "" {
		ts, ok := acceptDatetime(ad)
		if !ok {
			jsonError(w, http.StatusBadRequest, "Invalid Accept-Datetime")
			return
		}
		rq.ts = ts
	}
	h.lookup(w, r, rq, src, timegate, true)
}

// lookup answers rq with the capture of src closest to its time-stamp;
// when there is none and unescaped, with its URL as a link put it
// (unescapeLinked) when that finds a capture.
func (h *replayHandler) lookup(w http.ResponseWriter, r *http.Request, rq replayRequest, src indexSource, timegate, unescaped bool) {
	closest := rq.ts
	if closest == "" {
		closest = "now"
	}
	// matchType=exact, as pywb's _do_req: a final "*" is no prefix here
	q := &query{params: map[string]string{"url": rq.url, "closest": closest, "sort": "closest", "limit": "100", "matchType": "exact"}, now: h.s.Now, done: new([]func())}
	defer func() {
		for _, f := range *q.done {
			f()
		}
	}()
	if err := q.checkLimits(); err != nil {
		jsonError(w, http.StatusBadRequest, err.Error())
		return
	}
	if p := splitURL(rq.url); p.path == "" {
		// pywb's send_redirect: a URL without a path gets "/"
		p.path = "/"
		redirectTo(w, r, rq, rq.ts, p.String())
		return
	}
	run := func(q *query) (iterFunc, error) { return runQuery(src, q) }
	it, err := run(q)
	if err != nil {
		code, msg := errorStatus(err)
		jsonError(w, code, msg)
		return
	}
	it = fuzzyIter(it, q, run)
	srKey := "" // pywb's sr-urlkey: the key of the first self-redirect met
	found := false
	for {
		c, err := it()
		if err != nil {
			code, msg := errorStatus(err)
			jsonError(w, code, msg)
			return
		}
		if c == nil {
			break
		}
		found = true
		coll := h.s.colls[c.gets("source-coll")]
		if coll == nil {
			continue
		}
		l, err := h.load(coll, c)
		if err != nil {
			if h.s.Log != nil {
				h.s.Log.Printf("%s: %v", r.URL.Path, err)
			}
			continue
		}
		if selfRedirect(rq.url, c, l.head, &srKey) {
			l.Close()
			continue
		}
		if p := splitURL(rq.url); strings.HasSuffix(splitURL(c.gets(fURL)).path, "/") && !strings.HasSuffix(p.path, "/") {
			// the capture's URL has a final "/" the request lacks
			l.Close()
			p.path += "/"
			redirectTo(w, r, rq, rq.ts, p.String())
			return
		}
		target := l.target
		if target == "" {
			target = c.gets(fURL)
		}
		if timegate || c.gets(fTimestamp) != rq.ts || (c.gets("is_fuzzy") == "1" && target != rq.url) {
			// pywb's redirect_to_exact: to the capture's own time-stamp
			// and URL; from the TimeGate with the Memento links
			l.Close()
			if timegate {
				w.Header().Set("Vary", "accept-datetime")
				redirectLink(w, r, rq, c.gets(fTimestamp), target, mementoLinks(target, baseURL(r)+"/"+rq.coll+"/", c.gets(fTimestamp), ""))
				return
			}
			redirectTo(w, r, rq, c.gets(fTimestamp), target)
			return
		}
		switch rq.mod {
		case "id_":
			h.answer(w, r, rq, c, l)
		case "":
			l.Close()
			h.frame(w, r, rq, src, c, target)
		default:
			h.answerRewritten(w, r, rq, c, l, target)
		}
		return
	}
	if alt := unescapeLinked(rq.url); unescaped && !found && alt != rq.url && hasCapture(src, alt, closest, h.s.Now) {
		// a link's URL as html/template or a browser escaped it ("(" as
		// %28, a quote, a space, non-ASCII): to the URL as captured,
		// at the same time-stamp
		if loc := linkEscape(alt); loc != rq.url {
			redirectTo(w, r, rq, rq.ts, loc)
			return
		}
		// the browser would ask for the same URL again: answered here
		rq.url = alt
		h.lookup(w, r, rq, src, timegate, false)
		return
	}
	notFound(w, r, rq, src, "No Captures found for: "+rq.url)
}

// hasCapture reports whether src has a capture of u (exactly) that the
// access rules let the request see.
func hasCapture(src indexSource, u, closest string, now func() time.Time) bool {
	q := &query{params: map[string]string{"url": u, "closest": closest, "sort": "closest", "limit": "1", "matchType": "exact"}, now: now, done: new([]func())}
	defer func() {
		for _, f := range *q.done {
			f()
		}
	}()
	if q.checkLimits() != nil {
		return false
	}
	it, err := runQuery(src, q)
	if err != nil {
		return false
	}
	for {
		c, err := it()
		if c == nil || err != nil {
			return false
		}
		if !c.idx && !c.info {
			return true
		}
	}
}

// linkEscape is u as a redirect sends it: with %XX escapes for the bytes
// unescapeLinked decodes that a browser would escape anyway (controls,
// space, quotes, <, >, \, ^, `, {, |, }, non-ASCII; ' in the query), so
// that the URL the browser asks for is the Location's. Only (, ) and a
// path's ' are left as they are: the bytes html/template escapes and a
// browser does not.
func linkEscape(u string) string {
	var b strings.Builder
	query := false
	for i := 0; i < len(u); i++ {
		c := u[i]
		if c == '?' {
			query = true
		}
		if c <= ' ' || c >= 0x7f || strings.IndexByte("\"<>\\^`{|}", c) >= 0 || query && c == '\'' {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// redirectTo answers 307 to /COLL/TSid_/URL, Link: <URL>; rel="original".
func redirectTo(w http.ResponseWriter, r *http.Request, rq replayRequest, ts, u string) {
	redirectLink(w, r, rq, ts, u, fmt.Sprintf("<%s>; rel=\"original\"", u))
}

// redirectLink answers 307 to /COLL/TSid_/URL with a Link header.
func redirectLink(w http.ResponseWriter, r *http.Request, rq replayRequest, ts, u, link string) {
	loc := baseURL(r) + "/" + rq.coll + "/" + ts + rq.mod + "/" + u
	if ts == "" && rq.mod == "" {
		loc = baseURL(r) + "/" + rq.coll + "/" + u // the top frame, latest
	}
	w.Header().Set("Location", loc)
	w.Header()["Link"] = []string{link}
	w.WriteHeader(http.StatusTemporaryRedirect)
}

// urlParts is a URL split as Python's urlsplit splits it.
type urlParts struct{ scheme, netloc, path, query, frag string }

func splitURL(u string) urlParts {
	var p urlParts
	if i := strings.Index(u, "://"); i >= 0 {
		p.scheme, u = u[:i], u[i+3:]
		j := strings.IndexAny(u, "/?#")
		if j < 0 {
			j = len(u)
		}
		p.netloc, u = u[:j], u[j:]
	}
	if i := strings.IndexByte(u, '#'); i >= 0 {
		u, p.frag = u[:i], u[i+1:]
	}
	if i := strings.IndexByte(u, '?'); i >= 0 {
		u, p.query = u[:i], u[i+1:]
	}
	p.path = u
	return p
}

// String is urlunsplit.
func (p urlParts) String() string {
	s := p.scheme + "://" + p.netloc + p.path
	if p.query != "" {
		s += "?" + p.query
	}
	if p.frag != "" {
		s += "#" + p.frag
	}
	return s
}

// selfRedirect is pywb's raise_on_self_redirect: a 3xx capture (not 304)
// whose Location is the requested URL (scheme and final "/" aside) or
// has the key of the first self-redirect met (or its own) is passed
// over, so that replay does not loop.
func selfRedirect(reqURL string, c *cdxObj, head *httpmsg.Head, srKey *string) bool {
	if head == nil || !strings.HasPrefix(head.Status, "3") || head.Status == "304" {
		return false
	}
	loc := strings.ToLower(head.Get("Location"))
	if loc == "" {
		return false
	}
	if strings.HasPrefix(loc, "/") {
		host := c.gets(fURL)
		if i := strings.Index(host, "://"); i >= 0 {
			host = host[i+3:]
		}
		if i := strings.IndexAny(host, "/?#"); i >= 0 {
			host = host[:i]
		}
		loc = host + loc
	}
	strip := func(u string) string {
		if i := strings.Index(u, "://"); i >= 0 {
			u = u[i+3:]
		}
		return strings.TrimRight(u, "/")
	}
	loc, req := strip(loc), strip(strings.ToLower(reqURL))
	key := *srKey
	if key == "" {
		key = c.gets(fURLKey)
	}
	if req == loc || cdxPySURT(loc) == key {
		*srKey = key
		return true
	}
	return false
}

// baseURL is the server's address as the client used it.
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// loaded is a capture ready to answer: the HTTP head to send (nil for a
// resource) and the payload.
type loaded struct {
	head    *httpmsg.Head
	target  string // the record's WARC-Target-URI
	mime    string // a resource's Content-Type
	body    io.Reader
	size    int64 // the payload's length, -1 when not known
	closers []*capture
}

func (l *loaded) Close() {
	for _, c := range l.closers {
		c.Close()
	}
}

// load reads the capture of an index line, following a revisit to its
// original.
func (h *replayHandler) load(coll *Collection, c *cdxObj) (*loaded, error) {
	off, ok1 := cdx.PyInt(c.gets(fOffset))
	n, ok2 := cdx.PyInt(c.gets(fLength))
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("%s %s: no offset or length", c.gets(fURLKey), c.gets(fTimestamp))
	}
	cp, err := coll.readCapture(c.gets(fFilename), off, n)
	if err != nil {
		return nil, err
	}
	l := &loaded{closers: []*capture{cp}, target: cp.rec.TargetURI()}
	head, body, size, err := httpParts(cp.rec)
	if err != nil {
		l.Close()
		return nil, err
	}
	if cp.rec.Type() != record.Revisit {
		l.head, l.body, l.mime, l.size = head, body, cp.rec.ContentType(), size
		return l, nil
	}
	orig, err := h.original(coll, c, cp.rec)
	if err != nil {
		l.Close()
		return nil, err
	}
	l.closers = append(l.closers, orig.closers...)
	l.body, l.mime, l.size = orig.body, orig.mime, orig.size
	l.head = head
	if l.head == nil {
		l.head = orig.head
	}
	return l, nil
}

// original finds and reads the capture a revisit record refers to: the
// capture of WARC-Refers-To-Target-URI (or the revisit's own URL) with
// the same payload digest that is not itself a revisit, the one closest
// to WARC-Refers-To-Date (or the revisit's time).
func (h *replayHandler) original(coll *Collection, c *cdxObj, rev *record.Record) (*loaded, error) {
	target := record.StripAngle(rev.Header.Get(record.FieldRefersToTargetURI))
	if target == "" {
		target = c.gets(fURL)
	}
	digest := normDigest(rev.Header.Get(record.FieldPayloadDigest))
	if digest == "" {
		digest = normDigest(c.gets(fDigest))
	}
	ts := c.gets(fTimestamp)
	if d := rev.Header.Get(record.FieldRefersToDate); len(d) >= 19 {
		ts = strings.NewReplacer("-", "", "T", "", ":", "", "Z", "").Replace(d)
		if len(ts) > 14 {
			ts = ts[:14]
		}
	}
	q := &query{params: map[string]string{"url": target, "closest": ts, "limit": "1000", "matchType": "exact"}, done: new([]func())}
	defer func() {
		for _, f := range *q.done {
			f()
		}
	}()
	it, err := runQuery(coll.top(), q)
	if err != nil {
		return nil, err
	}
	for {
		o, err := it()
		if err != nil {
			return nil, err
		}
		if o == nil {
			return nil, fmt.Errorf("revisit of %s at %s: no original with digest %s", c.gets(fURL), c.gets(fTimestamp), digest)
		}
		if o.isRevisit() || (digest != "" && normDigest(o.gets(fDigest)) != digest) {
			continue
		}
		off, ok1 := cdx.PyInt(o.gets(fOffset))
		n, ok2 := cdx.PyInt(o.gets(fLength))
		if !ok1 || !ok2 {
			continue
		}
		cp, err := coll.readCapture(o.gets(fFilename), off, n)
		if err != nil {
			continue
		}
		if cp.rec.Type() == record.Revisit {
			cp.Close()
			continue
		}
		head, body, size, err := httpParts(cp.rec)
		if err != nil {
			cp.Close()
			continue
		}
		return &loaded{head: head, body: body, mime: cp.rec.ContentType(), size: size, closers: []*capture{cp}}, nil
	}
}

// normDigest is a digest without its algorithm prefix, upper case.
func normDigest(d string) string {
	if i := strings.IndexByte(d, ':'); i >= 0 {
		d = d[i+1:]
	}
	return strings.ToUpper(strings.TrimSpace(d))
}

// answer writes the archived response.
func (h *replayHandler) answer(w http.ResponseWriter, r *http.Request, rq replayRequest, c *cdxObj, l *loaded) {
	defer l.Close()
	hdr := w.Header()
	add := func(name, value string) { hdr[name] = append(hdr[name], value) }
	code := http.StatusOK
	if l.head != nil {
		for _, f := range l.head.Header {
			name, lower := f.Name, strings.ToLower(f.Name)
			if !validHeaderName(name) || strings.ContainsAny(f.Value, "\r\n\x00") {
				continue
			}
			switch {
			case prefixedHeaders[lower]:
				name = origPrefix + name
			case lower == "content-type":
				name = "Content-Type"
			case lower == "content-length":
				name = "Content-Length"
				// kept, as pywb keeps any number >= 0, unless the
				// payload is known to have another length (pywb would
				// send a broken response; net/http cannot)
				if n, err := strconv.ParseInt(strings.TrimSpace(f.Value), 10, 64); err != nil || n < 0 || (l.size >= 0 && n != l.size) || len(hdr["Content-Length"]) > 0 {
					name = origPrefix + name
				}
			}
			add(name, f.Value)
		}
		if l.head.StatusCode >= 100 && l.head.StatusCode <= 999 {
			code = l.head.StatusCode
		}
	} else {
		if l.mime != "" {
			add("Content-Type", l.mime)
		}
	}
	ts := c.gets(fTimestamp)
	dt := httpDate(ts)
	add("Memento-Datetime", dt)
	base := baseURL(r) + "/" + rq.coll + "/"
	u := c.gets(fURL)
	link := fmt.Sprintf(`<%s>; rel="original", <%s%s>; rel="timegate", <%stimemap/link/%s>; rel="timemap"; type="application/link-format", <%s%smp_/%s>; rel="memento"; datetime="%s"`,
		u, base, u, base, u, base, ts, u, dt)
	if sc := c.gets("source-coll"); sc != "" {
		link += fmt.Sprintf(`; collection="%s"`, sc)
	}
	add("Link", link)
	// net/http frames the body itself, and must not guess a type
	delete(hdr, "Transfer-Encoding")
	if _, ok := hdr["Content-Type"]; !ok {
		hdr["Content-Type"] = nil
	}
	if code < 200 || code == http.StatusNoContent || code == http.StatusNotModified {
		// no body may follow these statuses
		delete(hdr, "Content-Length")
		w.WriteHeader(code)
		return
	}
	writeBody(w, r, code, l.body, l.size, false)
}

// validHeaderName reports whether a header name can be sent (an RFC 9110
// token).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// cdxPySURT is pywb's canonicalize (Python surt).
func cdxPySURT(u string) string { return cdx.PySURT(u) }
