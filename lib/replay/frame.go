package replay

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/arcport/arcport/lib/replay/rewrite"
)

// Framed replay, as pywb's default: /COLL/TS/URL is a small page of this
// server (a banner and an iframe), the capture itself is in the iframe at
// /COLL/TSmp_/URL, rewritten (package rewrite). Both, and every rewritten
// capture, carry replayCSP, so that a URL the rewriting missed (one a
// script builds, say) is refused by the browser instead of asked of the
// live web.

// replayCSP allows only this server: inline scripts and styles, eval,
// data:, blob: and mediastream: URLs stay allowed (archived pages use
// them), every other origin is refused, for every kind of request, form
// and frame. pywb's DEFAULT_CSP is the same but for "ws: wss:", which
// lets a page open a WebSocket to any host: here only to this server
// ('self').
const replayCSP = "default-src 'self' 'unsafe-inline' 'unsafe-eval' data: blob: mediastream:; " +
	"form-action 'self'; base-uri 'self'; frame-ancestors 'self'"

// setReplayHeaders are the headers of every framed or rewritten answer.
func setReplayHeaders(hdr http.Header) {
	hdr.Set("Content-Security-Policy", replayCSP)
	hdr.Set("X-DNS-Prefetch-Control", "off")
	hdr.Set("Referrer-Policy", "same-origin")
}

// mementoHeaders adds the Memento-Datetime and Link of a memento (as
// answer does for id_).
func mementoHeaders(hdr http.Header, r *http.Request, rq replayRequest, c *cdxObj) {
	ts := c.gets(fTimestamp)
	hdr.Set("Memento-Datetime", httpDate(ts))
	base := baseURL(r) + "/" + rq.coll + "/"
	hdr["Link"] = append(hdr["Link"], mementoLinks(c.gets(fURL), base, ts, c.gets("source-coll")))
}

// answerRewritten answers /COLL/TS{mod}/URL for a rewriting modifier: the
// archived status and headers (renamed as for id_; Location,
// Content-Location, Link and Refresh rewritten; Set-Cookie renamed too),
// the payload rewritten for its type (content coding undone then) or, for
// any other type, as captured, with Range.
func (h *replayHandler) answerRewritten(w http.ResponseWriter, r *http.Request, rq replayRequest, c *cdxObj, l *loaded, target string) {
	defer l.Close()
	doc, err := url.Parse(target)
	if err != nil || doc.Host == "" {
		doc, _ = url.Parse(c.gets(fURL))
	}
	rw := &rewrite.Rewriter{Prefix: "/" + rq.coll + "/", TS: c.gets(fTimestamp), Doc: doc}
	hdr := w.Header()
	add := func(name, value string) { hdr[name] = append(hdr[name], value) }
	code := http.StatusOK
	ctype := l.mime
	var codings []string
	var lengths []string
	if l.head != nil {
		ctype = ""
		for _, f := range l.head.Header {
			name, lower, value := f.Name, strings.ToLower(f.Name), f.Value
			if !validHeaderName(name) || strings.ContainsAny(value, "\r\n\x00") {
				continue
			}
			switch lower {
			case "content-length":
				lengths = append(lengths, value)
				continue
			case "content-encoding":
				codings = append(codings, value)
				continue
			case "content-type":
				name = "Content-Type"
				if ctype == "" {
					ctype = value
				}
			case "location", "content-location":
				value = rw.URL(strings.TrimSpace(value), rq.mod)
			case "link":
				value = rw.LinkHeader(value)
			case "refresh":
				value = rw.Refresh(value)
			case "set-cookie", "set-cookie2":
				name = origPrefix + name
			default:
				if prefixedHeaders[lower] {
					name = origPrefix + name
				}
			}
			add(name, value)
		}
		if l.head.StatusCode >= 100 && l.head.StatusCode <= 999 {
			code = l.head.StatusCode
		}
	} else if ctype != "" {
		add("Content-Type", ctype)
	}
	mementoHeaders(hdr, r, rq, c)
	setReplayHeaders(hdr)
	if _, ok := hdr["Content-Type"]; !ok {
		hdr["Content-Type"] = nil
	}
	if code < 200 || code == http.StatusNoContent || code == http.StatusNotModified {
		w.WriteHeader(code)
		return
	}
	coding := strings.Join(codings, ", ")
	// as captured: the archived Content-Length when it is the payload's
	captured := func(body io.Reader) {
		if coding != "" {
			hdr.Set("Content-Encoding", coding)
		}
		for _, v := range lengths {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil || n < 0 || n != l.size || hdr.Get("Content-Length") != "" {
				add(origPrefix+"Content-Length", v)
				continue
			}
			hdr.Set("Content-Length", strconv.FormatInt(n, 10))
		}
		writeBody(w, r, code, body, l.size, true)
	}
	kind := rewrite.KindOf(rq.mod, ctype, target)
	if kind == rewrite.None {
		captured(l.body)
		return
	}
	raw, err := io.ReadAll(io.LimitReader(l.body, rewrite.MaxSize+1))
	if err != nil || len(raw) > rewrite.MaxSize {
		captured(io.MultiReader(bytes.NewReader(raw), l.body))
		return
	}
	dec, ok := rewrite.Decode(coding, raw)
	if !ok {
		captured(bytes.NewReader(raw))
		return
	}
	out := rw.Body(kind, dec)
	if coding != "" {
		add(origPrefix+"Content-Encoding", coding)
	}
	for _, v := range lengths {
		add(origPrefix+"Content-Length", v)
	}
	hdr.Set("Content-Length", strconv.Itoa(len(out)))
	writeBody(w, r, code, bytes.NewReader(out), int64(len(out)), true)
}

// writeBody sends a payload of size bytes (-1: not known) after the
// headers, answering a single Range of a 200 whose size is known with
// 206 (or 416), as pywb does; advertise adds Accept-Ranges.
func writeBody(w http.ResponseWriter, r *http.Request, code int, body io.Reader, size int64, advertise bool) {
	hdr := w.Header()
	if code == http.StatusOK && size < 0 && r.Header.Get("Range") != "" {
		// a chunked payload: its size is known once read, if not too large
		b, err := io.ReadAll(io.LimitReader(body, rewrite.MaxSize+1))
		if err == nil && len(b) <= rewrite.MaxSize {
			body, size = bytes.NewReader(b), int64(len(b))
		} else {
			body = io.MultiReader(bytes.NewReader(b), body)
		}
	}
	if code == http.StatusOK && size >= 0 {
		if advertise {
			hdr.Set("Accept-Ranges", "bytes")
		}
		if rg := r.Header.Get("Range"); rg != "" && r.Header.Get("If-Range") == "" {
			start, n, st := parseRange(rg, size)
			switch st {
			case rangeOK:
				hdr.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, start+n-1, size))
				hdr.Set("Content-Length", strconv.FormatInt(n, 10))
				w.WriteHeader(http.StatusPartialContent)
				if r.Method == http.MethodHead {
					return
				}
				if _, err := io.CopyN(io.Discard, body, start); err != nil {
					return
				}
				io.CopyN(w, body, n)
				return
			case rangeUnsatisfiable:
				hdr.Set("Content-Range", fmt.Sprintf("bytes */%d", size))
				hdr.Set("Content-Length", "0")
				w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
				return
			}
		}
	}
	w.WriteHeader(code)
	if r.Method == http.MethodHead {
		return
	}
	io.Copy(w, body)
}

const (
	rangeIgnored = iota // not understood or several ranges: the whole payload
	rangeOK
	rangeUnsatisfiable
)

// parseRange reads "bytes=A-B", "bytes=A-" or "bytes=-N" over size bytes.
func parseRange(s string, size int64) (start, n int64, status int) {
	unit, spec, ok := strings.Cut(strings.TrimSpace(s), "=")
	if !ok || !strings.EqualFold(strings.TrimSpace(unit), "bytes") || strings.Contains(spec, ",") {
		return 0, 0, rangeIgnored
	}
	a, b, ok := strings.Cut(strings.TrimSpace(spec), "-")
	if !ok {
		return 0, 0, rangeIgnored
	}
	num := func(x string) (int64, bool) {
		if x == "" || strings.TrimLeft(x, "0123456789") != "" {
			return 0, false
		}
		v, err := strconv.ParseInt(x, 10, 64)
		return v, err == nil
	}
	if a == "" {
		suffix, ok := num(b)
		if !ok {
			return 0, 0, rangeIgnored
		}
		if suffix == 0 || size == 0 {
			return 0, 0, rangeUnsatisfiable
		}
		suffix = min(suffix, size)
		return size - suffix, suffix, rangeOK
	}
	first, ok := num(a)
	if !ok {
		return 0, 0, rangeIgnored
	}
	last := size - 1
	if b != "" {
		if last, ok = num(b); !ok || last < first {
			return 0, 0, rangeIgnored
		}
		last = min(last, size-1)
	}
	if first >= size {
		return 0, 0, rangeUnsatisfiable
	}
	return first, last - first + 1, rangeOK
}

// collect runs a CDX query over src and returns up to max lines.
func collect(src indexSource, params map[string]string, max int, now func() time.Time) []*cdxObj {
	q := &query{params: params, now: now, done: new([]func())}
	defer func() {
		for _, f := range *q.done {
			f()
		}
	}()
	if q.checkLimits() != nil {
		return nil
	}
	it, err := runQuery(src, q)
	if err != nil {
		return nil
	}
	var out []*cdxObj
	for len(out) < max {
		c, err := it()
		if err != nil || c == nil {
			break
		}
		out = append(out, c)
	}
	return out
}

// tsTime reads a 14-digit time-stamp (a shorter one is padded as pywb
// pads it).
func tsTime(ts string) time.Time {
	ts += "00000101000000"[min(len(ts), 14):]
	t, _ := time.Parse("20060102150405", ts[:14])
	return t
}

// captureLink is one capture listed on a page.
type captureLink struct {
	Href, When, Status, Mime string
	Current                  bool
}

// maxFrameCaptures bounds the captures counted for a banner.
const maxFrameCaptures = 5000

var frameTmpl = template.Must(template.New("frame").Parse(`<!doctype html>
<html><head><meta charset="utf-8">
<title>{{.URL}} (archived {{.When}})</title>
<style>
html,body{margin:0;height:100%;overflow:hidden;font:14px/1.4 system-ui,sans-serif}
#wb-banner{box-sizing:border-box;height:44px;padding:6px 12px;background:#203040;color:#eee;display:flex;gap:14px;align-items:center;white-space:nowrap;overflow:hidden}
#wb-banner a{color:#9cf}
#wb-banner .wb-url{overflow:hidden;text-overflow:ellipsis;flex:1}
#wb-banner details{position:relative}
#wb-banner details ul{position:absolute;z-index:9;top:22px;left:0;margin:0;padding:6px 12px;background:#203040;list-style:none;max-height:60vh;overflow:auto}
#wb-banner details li.cur{font-weight:bold}
#wb-frame{display:block;border:0;width:100%;height:calc(100% - 44px)}
</style></head>
<body>
<div id="wb-banner">
<a href="/{{.Coll}}/*/{{.URL}}" title="collection {{.Coll}}">{{.Coll}}</a>
<span>Archived <time id="wb-time" datetime="{{.ISO}}">{{.When}}</time></span>
{{if .Prev}}<a id="wb-prev" href="{{.Prev}}">&#9664; previous</a>{{end}}
{{if .Next}}<a id="wb-next" href="{{.Next}}">next &#9654;</a>{{end}}
<details><summary><span id="wb-count">{{.Count}}</span></summary><ul>
{{range .Near}}<li{{if .Current}} class="cur"{{end}}><a href="{{.Href}}">{{.When}}</a> {{.Status}} {{.Mime}}</li>
{{end}}<li><a href="/{{.Coll}}/*/{{.URL}}">all captures</a></li></ul></details>
<span class="wb-url">Live: <a id="wb-live" href="{{.URL}}" target="_blank" rel="noopener noreferrer">{{.URL}}</a></span>
</div>
<iframe id="wb-frame" name="wb-frame" src="{{.Frame}}"></iframe>
<script>
(function () {
  var coll = {{.Coll}}, frame = document.getElementById("wb-frame");
  var re = /^\/[^\/]+\/([0-9]{1,14})(?:[a-z][a-z]_)?\/(.*)$/;
  function when(ts) {
    return ts.slice(0, 4) + "-" + ts.slice(4, 6) + "-" + ts.slice(6, 8) + " " +
      ts.slice(8, 10) + ":" + ts.slice(10, 12) + ":" + ts.slice(12, 14) + " UTC";
  }
  frame.addEventListener("load", function () {
    var loc, doc;
    try { loc = frame.contentWindow.location; doc = frame.contentDocument; } catch (e) { return; }
    var m = re.exec(loc.pathname + loc.search + loc.hash);
    if (!m) return;
    var ts = m[1], u = m[2], top = "/" + coll + "/" + ts + "/" + u;
    if (location.pathname + location.search + location.hash !== top) {
      history.replaceState(null, "", top);
      document.getElementById("wb-time").textContent = when(ts);
      var live = document.getElementById("wb-live");
      live.href = u; live.textContent = u;
      ["wb-prev", "wb-next"].forEach(function (id) { var a = document.getElementById(id); if (a) a.remove(); });
      fetch("/" + coll + "/cdx?output=json&fl=timestamp&limit={{.Max}}&url=" + encodeURIComponent(u)).then(function (r) {
        return r.ok ? r.text() : "";
      }).then(function (t) {
        var n = t.split("\n").filter(function (l) { return l; }).length;
        document.getElementById("wb-count").textContent = n + (n === 1 ? " capture" : " captures");
      });
    }
    document.title = ((doc && doc.title) || u) + " (archived " + when(ts) + ")";
  });
})();
</script>
</body></html>
`))

// frame answers /COLL/TS/URL: the top frame of the capture c of target.
func (h *replayHandler) frame(w http.ResponseWriter, r *http.Request, rq replayRequest, src indexSource, c *cdxObj, target string) {
	ts := c.gets(fTimestamp)
	caps := collect(src, map[string]string{"url": target, "matchType": "exact", "limit": strconv.Itoa(maxFrameCaptures)}, maxFrameCaptures, h.s.Now)
	d := struct {
		Coll, URL, When, ISO, Frame, Prev, Next, Count string
		Near                                           []captureLink
		Max                                            int
	}{Coll: rq.coll, URL: target, Frame: "/" + rq.coll + "/" + ts + "mp_/" + target, Max: maxFrameCaptures}
	t := tsTime(ts)
	d.When, d.ISO = t.Format("2006-01-02 15:04:05 UTC"), t.Format(time.RFC3339)
	cur := -1
	for i, o := range caps {
		if o.gets(fTimestamp) == ts {
			cur = i
			break
		}
	}
	frameURL := func(o *cdxObj) string { return "/" + rq.coll + "/" + o.gets(fTimestamp) + "/" + o.gets(fURL) }
	if cur > 0 {
		d.Prev = frameURL(caps[cur-1])
	}
	if cur >= 0 && cur+1 < len(caps) {
		d.Next = frameURL(caps[cur+1])
	}
	switch n := len(caps); {
	case n >= maxFrameCaptures:
		d.Count = fmt.Sprintf("%d+ captures", n)
	case n == 1:
		d.Count = "1 capture"
	default:
		d.Count = fmt.Sprintf("%d captures", n)
	}
	// the ten captures around this one
	lo := max(0, cur-5)
	if cur < 0 {
		lo = 0
	}
	for i := lo; i < len(caps) && i < lo+11; i++ {
		o := caps[i]
		d.Near = append(d.Near, captureLink{Href: frameURL(o), When: tsTime(o.gets(fTimestamp)).Format("2006-01-02 15:04:05"),
			Status: o.gets(fStatus), Mime: o.gets(fMIME), Current: i == cur})
	}
	var b bytes.Buffer
	if err := frameTmpl.Execute(&b, d); err != nil {
		jsonError(w, http.StatusInternalServerError, "Internal Error: "+err.Error())
		return
	}
	hdr := w.Header()
	setReplayHeaders(hdr)
	hdr.Set("Content-Type", "text/html; charset=utf-8")
	hdr.Set("Content-Length", strconv.Itoa(b.Len()))
	hdr.Set("Cache-Control", "no-cache")
	mementoHeaders(hdr, r, rq, c)
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(b.Bytes())
	}
}

// refererFallback is pywb's fallback for a path a script built from the
// site's root ("/img/x.png") inside a replayed page: when the request's
// Referer is a replay URL of this server (/COLL/TS{mod}/URL) and the
// path is no collection's, it answers 307 to the path resolved against
// the referring capture's URL, at its time-stamp (mp_).
func (s *Server) refererFallback(w http.ResponseWriter, r *http.Request) bool {
	ref, err := url.Parse(r.Referer())
	if err != nil || ref.Host != r.Host || r.URL.Path == "/" {
		return false
	}
	first, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if _, ok := s.colls[first]; ok || first == "all" {
		return false
	}
	target := ref.EscapedPath()
	if ref.RawQuery != "" {
		target += "?" + ref.RawQuery
	}
	rq, ok := parseReplay(target)
	if !ok || rq.mod == "id_" {
		return false
	}
	if _, ok := s.source(rq.coll); !ok {
		return false
	}
	doc, err := url.Parse(rq.url)
	if err != nil || doc.Host == "" {
		return false
	}
	rel := r.URL.EscapedPath()
	if r.URL.RawQuery != "" {
		rel += "?" + r.URL.RawQuery
	}
	abs, err := doc.Parse(rel)
	if err != nil {
		return false
	}
	w.Header().Set("Location", "/"+rq.coll+"/"+rq.ts+"mp_/"+abs.String())
	w.WriteHeader(http.StatusTemporaryRedirect)
	return true
}
