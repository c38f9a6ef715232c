package replay

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/arcport/arcport/lib/store"
)

// The web pages for people (ui*.go, templates and style sheet in ui/):
//
//	GET /                      the collections, with their capture and page
//	                           counts (HTML for a client that accepts
//	                           text/html; the text list otherwise)
//	GET /COLL/?url=U&matchType=M&page=N
//	                           a collection: URL search (exact, prefix,
//	                           host, domain), the URLs found with their
//	                           counts, first and last captures
//	GET /COLL/*/URL            a calendar of URL's captures (pywb's query
//	GET /COLL/TS*/URL          form): years, months, days; TS picks the
//	                           year (YYYY) or the day (YYYYMMDD) listed
//	GET /COLL/pages?q=Q&show=S&page=N
//	                           a WACZ's pages (pages.jsonl, then the extra
//	                           pages of extraPages.jsonl, marked; show=seeds
//	                           or show=extra: one list), searched in their
//	                           titles, URLs and text
//
// Behind access rules (guard.go) the pages, counts and lists show what
// the user may replay: no excluded capture or page, no blocked one.
//	GET /COLL/record?url=U&ts=TS[&file=F&offset=O][&raw=1]
//	                           a capture's index line, digests, WARC and
//	                           HTTP headers; raw=1 downloads the record as
//	                           stored
//	GET /static/ui.css         the style sheet
//
// Every page is made on the server with html/template (no script); what
// comes from an archive (URLs, titles, headers) is escaped as text. Each
// page is bounded: uiPageSize rows, index scans of at most uiScanMax
// lines; errors are 400 or 404 with a one-line message.

//go:embed ui
var uiFiles embed.FS

// uiCSS is the style sheet, served at /static/ui.css.
var uiCSS = mustRead("ui/ui.css")

func mustRead(name string) []byte {
	b, err := uiFiles.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return b
}

var uiFuncs = template.FuncMap{
	"statusClass": func(s string) string {
		if s == "" {
			return ""
		}
		return "s" + s[:1]
	},
}

// uiTemplates are the pages, each parsed with the layout.
var uiTemplates = func() map[string]*template.Template {
	m := map[string]*template.Template{}
	for _, n := range []string{"home", "collection", "calendar", "pages", "record", "error"} {
		m[n] = template.Must(template.New(n).Funcs(uiFuncs).ParseFS(uiFiles, "ui/layout.html", "ui/"+n+".html"))
	}
	return m
}()

// Limits of the pages.
const (
	uiPageSize    = 100     // rows on a page
	uiMaxPage     = 10000   // the last page number asked for
	uiScanMax     = 1000000 // index lines read for one answer
	uiCalendarMax = 500000  // captures counted on a calendar
	uiDayMax      = 1000    // captures listed for a day
)

// uiCSP is the Content-Security-Policy of every page: the style sheet
// from this server, nothing else loaded, no script.
const uiCSP = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'self'; base-uri 'none'"

// uiRoutes registers the web pages for people on mux (more specific
// patterns than "/", which stays the fallback). The pages are matched in
// uiRaw, before the replay routes, so that none of them is taken for a
// replay URL; nothing is registered here.
func (s *Server) uiRoutes(mux *http.ServeMux) {}

// uiCalendarPath is /COLL/*/URL or /COLL/TS*/URL in the raw target.
var uiCalendarPath = regexp.MustCompile(`^/([^/?#]+)/([0-9]{0,14})\*/(.+)$`)

// uiRaw answers the requests of the web pages that must be matched on the
// raw request target (a URL inside the path, as /COLL/*/URL), before the
// replay routes and ServeMux; it reports whether it answered.
func (s *Server) uiRaw(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	target := r.RequestURI
	if !strings.HasPrefix(target, "/") {
		return false
	}
	p, rawQuery, _ := strings.Cut(target, "?")
	switch p {
	case "/":
		// two answers, by Accept: caches are told
		w.Header().Add("Vary", "Accept")
		if !wantsHTML(r) {
			return false // the text list (routes.go)
		}
		s.uiHome(w, r)
		return true
	case "/static/ui.css":
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
		w.Header().Set("Cache-Control", "max-age=3600")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Content-Length", strconv.Itoa(len(uiCSS)))
		if r.Method == http.MethodGet {
			w.Write(uiCSS)
		}
		return true
	}
	if m := uiCalendarPath.FindStringSubmatch(target); m != nil {
		s.uiCalendar(w, r, m[1], m[2], fixScheme(m[3]))
		return true
	}
	coll, sub, ok := strings.Cut(p[1:], "/")
	if !ValidName(coll) && coll != "all" {
		return false
	}
	if !ok {
		// /COLL: a browser is sent to /COLL/
		if _, known := s.source(coll); known && wantsHTML(r) {
			uiRedirect(w, "/"+coll+"/")
			return true
		}
		return false
	}
	q, err := url.ParseQuery(rawQuery)
	switch sub {
	case "", "pages", "record":
	default:
		return false
	}
	if err != nil {
		uiError(w, r, http.StatusBadRequest, "bad query string: "+err.Error())
		return true
	}
	if _, ok := s.source(coll); !ok {
		uiError(w, r, http.StatusNotFound, "No such collection: "+coll)
		return true
	}
	switch sub {
	case "":
		s.uiCollection(w, r, coll, q)
	case "pages":
		s.uiPages(w, r, coll, q)
	case "record":
		s.uiRecord(w, r, coll, q)
	}
	return true
}

// wantsHTML reports whether the client accepts text/html (a browser; not
// curl's */* nor a client that sends no Accept).
func wantsHTML(r *http.Request) bool {
	for _, a := range r.Header.Values("Accept") {
		for _, part := range strings.Split(a, ",") {
			mt, params, _ := strings.Cut(part, ";")
			if strings.EqualFold(strings.TrimSpace(mt), "text/html") {
				// text/html;q=0 refuses it
				for _, p := range strings.Split(params, ";") {
					k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
					if strings.EqualFold(k, "q") {
						if f, err := strconv.ParseFloat(v, 64); err == nil && f <= 0 {
							return false
						}
					}
				}
				return true
			}
		}
	}
	return false
}

// crumb is one step of the navigation bar.
type crumb struct{ Text, Href string }

// uiBase is what the layout shows.
type uiBase struct {
	Title  string
	Crumbs []crumb
}

func collCrumbs(coll string, more ...crumb) []crumb {
	return append([]crumb{{"collections", "/"}, {coll, "/" + coll + "/"}}, more...)
}

// uiRender writes a page made from template name, whole (its length
// known, nothing sent when the template fails).
func uiRender(w http.ResponseWriter, r *http.Request, code int, name string, data any) {
	var buf bytes.Buffer
	if err := uiTemplates[name].ExecuteTemplate(&buf, "layout", data); err != nil {
		http.Error(w, "template: "+err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", uiCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-cache")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(code)
	if r.Method != http.MethodHead {
		w.Write(buf.Bytes())
	}
}

// uiError answers code with a one-line message: an HTML page for a
// browser, the line as text/plain otherwise.
func uiError(w http.ResponseWriter, r *http.Request, code int, msg string) {
	msg = strings.Join(strings.Fields(msg), " ")
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	if !wantsHTML(r) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(code)
		if r.Method != http.MethodHead {
			fmt.Fprintln(w, msg)
		}
		return
	}
	uiRender(w, r, code, "error", struct {
		uiBase
		Code            int
		Status, Message string
	}{uiBase{Title: http.StatusText(code), Crumbs: []crumb{{"collections", "/"}}}, code, http.StatusText(code), msg})
}

// uiRedirect answers 302 to target as it is (http.Redirect would clean
// the "//" of a URL in the path).
func uiRedirect(w http.ResponseWriter, target string) {
	w.Header().Set("Location", target)
	w.WriteHeader(http.StatusFound)
}

// --- links -------------------------------------------------------------------

func replayHref(coll, ts, u string) string { return "/" + coll + "/" + ts + "/" + u }
func rawHref(coll, ts, u string) string    { return "/" + coll + "/" + ts + "id_/" + u }
func calHref(coll, ts, u string) string    { return "/" + coll + "/" + ts + "*/" + u }

func recordHref(coll, ts, u, file, offset string) string {
	v := url.Values{"url": {u}, "ts": {ts}}
	if file != "" {
		v.Set("file", file)
	}
	if offset != "" {
		v.Set("offset", offset)
	}
	return "/" + coll + "/record?" + v.Encode()
}

// fmtTS shows a 14-digit time-stamp as "2006-01-02 15:04:05".
func fmtTS(ts string) string {
	if len(ts) < 14 {
		ts = padTimestamp(ts, "00000101000000")
	}
	t, err := time.Parse("20060102150405", ts[:14])
	if err != nil {
		return ts
	}
	return t.Format("2006-01-02 15:04:05")
}

// fmtCount writes n with thousands separators.
func fmtCount(n int64) string {
	s := strconv.FormatInt(n, 10)
	if n < 0 {
		return s
	}
	var b []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, s[i])
	}
	return string(b)
}

// fmtSize shows a byte count.
func fmtSize(s string) string {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return s
	}
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// pageParam reads page= (1 when absent), or answers 400.
func pageParam(w http.ResponseWriter, r *http.Request, q url.Values) (int, bool) {
	p := q.Get("page")
	if p == "" {
		return 1, true
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 1 || n > uiMaxPage {
		uiError(w, r, http.StatusBadRequest, fmt.Sprintf("page=%s: a number from 1 to %d", p, uiMaxPage))
		return 0, false
	}
	return n, true
}

// pager links the pages around page; more says whether one follows.
type pager struct {
	Page       int
	Prev, Next string
	// First: Prev is the first page
	First bool
}

func makePager(base string, q url.Values, page int, more bool) pager {
	p := pager{Page: page}
	link := func(n int) string {
		v := url.Values{}
		for k, vs := range q {
			v[k] = vs
		}
		if n == 1 {
			v.Del("page")
		} else {
			v.Set("page", strconv.Itoa(n))
		}
		if len(v) == 0 {
			return base
		}
		return base + "?" + v.Encode()
	}
	if page > 1 {
		p.Prev = link(page - 1)
	}
	if more {
		p.Next = link(page + 1)
	}
	return p
}

// redactSource is a collection's source as shown (credentials removed).
func redactSource(src string) string {
	if store.IsRemote(src) {
		return store.Redact(src)
	}
	return src
}
