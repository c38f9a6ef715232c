package replay

import (
	"bufio"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/arcport/arcport/lib/cdx"
)

// cdxHandler is the CDX server API of one collection.
type cdxHandler struct{ s *Server }

var outputs = map[string]string{
	"cdxj": "text/x-cdxj",
	"json": "text/x-ndjson",
	"text": "text/plain",
	"link": "application/link-format",
}

func (h *cdxHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	params, filters := parseQS(r.URL.RawQuery)
	h.serve(w, r, r.PathValue("coll"), params, filters)
}

// serve answers a CDX query of collection name (the CDX API's, and a
// TimeMap's).
func (h *cdxHandler) serve(w http.ResponseWriter, r *http.Request, name string, params map[string]string, filters []string) {
	src, ok := h.s.source(name)
	if !ok {
		jsonError(w, http.StatusNotFound, "No such collection: "+name)
		return
	}
	q := &query{params: params, filters: filters, now: h.s.Now, done: new([]func())}
	defer func() {
		for _, f := range *q.done {
			f()
		}
	}()
	output := orDefault(params, "output", "cdxj")
	ct, ok := outputs[output]
	if !ok {
		jsonError(w, http.StatusBadRequest, "output="+output+" not supported")
		return
	}
	var fields []string
	if f := params["fields"]; f != "" {
		fields = strings.Split(f, ",")
	} else if f := params["fl"]; f != "" {
		fields = strings.Split(f, ",")
	}
	if params["url"] == "" {
		jsonError(w, http.StatusBadRequest, `The "url" param is required`)
		return
	}
	if err := q.checkLimits(); err != nil {
		jsonError(w, http.StatusBadRequest, err.Error())
		return
	}
	// access rules after the fuzzy match, as pywb's IndexHandler applies
	// them (fuzzy first: captures all excluded are no reason to match
	// fuzzily)
	acl, ruled := src.(*aclSource)
	if ruled {
		src = acl.inner
	}
	run := func(q *query) (iterFunc, error) { return runQuery(src, q) }
	it, err := run(q)
	if err != nil {
		code, msg := errorStatus(err)
		jsonError(w, code, msg)
		return
	}
	it = fuzzyIter(it, q, run)
	if ruled && !q.pageCount {
		it = acl.filter(it)
	}
	line := func(dst []byte, c *cdxObj, last bool) ([]byte, error) {
		switch output {
		case "json":
			return c.toJSON(dst, fields), nil
		case "text":
			return c.toText(dst, fields), nil
		case "link":
			return appendMementoLink(dst, c, q.params["memento_format"], last)
		}
		return c.toCDXJ(dst, fields)
	}
	// the first line is made before the answer starts, so that its
	// errors are the answer (pywb's first next(res))
	first, err := it()
	var buf []byte
	var next *cdxObj
	if err == nil && first != nil {
		if output == "link" {
			next, err = it()
		}
		if err == nil {
			buf, err = line(nil, first, next == nil)
		}
	}
	if err != nil {
		code, msg := errorStatus(err)
		if code == http.StatusInternalServerError && h.s.Log != nil {
			h.s.Log.Printf("GET %s: %v", r.URL.Path, err)
		}
		jsonError(w, code, msg)
		return
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Cache-Control", "max-age=86400, must-revalidate")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	bw := bufio.NewWriterSize(w, 32<<10)
	defer bw.Flush()
	bw.Write(buf)
	cur := next
	if output != "link" {
		cur, err = it()
	}
	for cur != nil && err == nil {
		var nxt *cdxObj
		if output == "link" {
			if nxt, err = it(); err != nil {
				break
			}
		}
		buf, err = line(buf[:0], cur, nxt == nil)
		if err != nil {
			break
		}
		bw.Write(buf)
		if output == "link" {
			cur = nxt
		} else {
			cur, err = it()
		}
	}
	if err != nil && h.s.Log != nil {
		h.s.Log.Printf("GET %s: after the first line: %v", r.URL.Path, err)
	}
}

// runQuery is pywb's BaseAggregator.__call__: closest=now, content_type,
// the key range (CDXQuery), the sources' objects, then process_cdx unless
// showNumPages.
func runQuery(src indexSource, q *query) (iterFunc, error) {
	if a, ok := src.(*aclSource); ok {
		// AccessChecker.wrap_iter, after the cdxops
		it, err := runQuery(a.inner, q)
		if err != nil || q.pageCount {
			return it, err
		}
		return a.filter(it), nil
	}
	if q.params["closest"] == "now" {
		now := time.Now
		if q.now != nil {
			now = q.now
		}
		q.params["closest"] = now().UTC().Format("20060102150405")
	}
	if ct := q.params["content_type"]; ct != "" {
		q.filters = []string{"=mime:" + ct}
	}
	q.pageCount = pyToBool(q.params["showNumPages"])
	q.secondaryOnly = pyToBool(q.params["showPagedIndex"])
	if err := q.prepare(); err != nil {
		return nil, err
	}
	it, err := src.load(q)
	if err != nil {
		return nil, err
	}
	if !q.pageCount {
		return q.process(it)
	}
	return it, nil
}

// appendMementoLink is MementoUtils.make_timemap_memento_link.
func appendMementoLink(dst []byte, c *cdxObj, format string, last bool) ([]byte, error) {
	if c.idx {
		return dst, &internalError{"'timestamp'"}
	}
	u := c.gets(fURL)
	if u == "" {
		u = fmt.Sprintf("file://%s:%s:%s", pyStrOrNone(c, fFilename), pyStrOrNone(c, fOffset), pyStrOrNone(c, fLength))
	}
	ts, ok := c.get(fTimestamp)
	if !ok {
		return dst, &internalError{"'timestamp'"}
	}
	dt := httpDate(ts.String())
	if format != "" {
		u = strings.NewReplacer("{url}", u, "{timestamp}", cdx.TimestampToDatetime(ts.String()).Format("20060102150405")).Replace(format)
	}
	dst = fmt.Appendf(dst, "<%s>; rel=\"memento\"; datetime=\"%s\"", u, dt)
	if sc := c.gets("source-coll"); sc != "" {
		dst = fmt.Appendf(dst, "; collection=\"%s\"", sc)
	}
	if last {
		return append(dst, '\n'), nil
	}
	return append(dst, ",\n"...), nil
}

func pyStrOrNone(c *cdxObj, k string) string {
	if v, ok := c.get(k); ok {
		return v.String()
	}
	return "None"
}
