package replay

import (
	"bytes"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// notFound answers a replay request that found no capture: for a browser
// (Accept: text/html) an HTML page listing the nearest captures of the
// URL (of the URL itself, else of its path without the query, else of its
// host), each a link to its top frame; for anyone else pywb's JSON
// message, as before (the CDX and Memento tests compare it).
func notFound(w http.ResponseWriter, r *http.Request, rq replayRequest, src indexSource, msg string) {
	if !acceptsHTML(r) {
		jsonError(w, http.StatusNotFound, msg)
		return
	}
	d := struct {
		Coll, URL, Msg, Scope string
		Near                  []captureLink
	}{Coll: rq.coll, URL: rq.url, Msg: msg}
	if src != nil {
		d.Scope, d.Near = nearCaptures(src, rq, time.Now)
	}
	var b bytes.Buffer
	if err := notFoundTmpl.Execute(&b, d); err != nil {
		jsonError(w, http.StatusNotFound, msg)
		return
	}
	hdr := w.Header()
	setReplayHeaders(hdr)
	hdr.Set("Content-Type", "text/html; charset=utf-8")
	hdr.Set("Content-Length", strconv.Itoa(b.Len()))
	w.WriteHeader(http.StatusNotFound)
	if r.Method != http.MethodHead {
		w.Write(b.Bytes())
	}
}

// acceptsHTML reports whether the client asks for a page (a browser's
// navigation or frame), not for data or a subresource.
func acceptsHTML(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept") {
		if strings.Contains(strings.ToLower(v), "text/html") {
			return true
		}
	}
	return false
}

// maxNear is how many captures a 404 page lists.
const maxNear = 20

// nearCaptures are the captures closest to the request: of its URL
// (closest to its time), else under its path without the query, else on
// its host; scope says which.
func nearCaptures(src indexSource, rq replayRequest, now func() time.Time) (string, []captureLink) {
	closest := rq.ts
	if closest == "" {
		closest = "now"
	}
	p := splitURL(rq.url)
	noQuery := urlParts{scheme: p.scheme, netloc: p.netloc, path: p.path}
	tries := []struct {
		scope  string
		params map[string]string
	}{
		{"this URL", map[string]string{"url": rq.url, "matchType": "exact", "closest": closest, "sort": "closest", "limit": strconv.Itoa(maxNear)}},
		{"URLs under " + noQuery.String(), map[string]string{"url": noQuery.String(), "matchType": "prefix", "limit": strconv.Itoa(maxNear)}},
		{"host " + p.netloc, map[string]string{"url": rq.url, "matchType": "host", "limit": strconv.Itoa(maxNear)}},
	}
	for _, t := range tries {
		if t.params["url"] == "" || strings.ContainsAny(t.params["url"], "\x00") {
			continue
		}
		caps := collect(src, t.params, maxNear, now)
		if len(caps) == 0 {
			continue
		}
		var out []captureLink
		for _, o := range caps {
			ts := o.gets(fTimestamp)
			out = append(out, captureLink{Href: "/" + rq.coll + "/" + ts + "/" + o.gets(fURL),
				When: tsTime(ts).Format("2006-01-02 15:04:05") + "  " + o.gets(fURL), Status: o.gets(fStatus), Mime: o.gets(fMIME)})
		}
		return t.scope, out
	}
	return "", nil
}

var notFoundTmpl = template.Must(template.New("404").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>Not in the archive: {{.URL}}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;margin:2em;max-width:60em}code{word-break:break-all}li{margin:.2em 0}</style>
</head><body>
<h1>Not in the archive</h1>
<p><code>{{.URL}}</code> has no capture in collection <a href="/{{.Coll}}/*/{{.URL}}" target="_top">{{.Coll}}</a>.</p>
{{if .Near}}<h2>Nearest captures ({{.Scope}})</h2>
<ul>{{range .Near}}<li><a href="{{.Href}}" target="_top">{{.When}}</a> {{.Status}} {{.Mime}}</li>
{{end}}</ul>{{else}}<p>No capture nearby either.</p>{{end}}
<p><small>{{.Msg}}</small></p>
</body></html>
`))
