package replay

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/arcport/arcport/lib/replay/access"
)

// SetAuth puts every route but /healthz (and a CORS preflight of a WACZ
// file) behind the credentials of a (401 with WWW-Authenticate without
// them).
func (s *Server) SetAuth(a *access.Auth) {
	s.guardState().update(func(r *guardRules) { r.auth = a })
}

// SetAccess applies access rules to collection coll ("" for every
// collection).
func (s *Server) SetAccess(coll string, a *access.Access) error {
	if coll != "" {
		if _, ok := s.colls[coll]; !ok {
			return fmt.Errorf("access rules for %q: no such collection", coll)
		}
	}
	s.guardState().update(func(r *guardRules) {
		if coll == "" {
			for _, n := range s.names {
				r.access[n] = a
			}
			return
		}
		r.access[coll] = a
	})
	return nil
}

func (s *Server) guardState() *guard {
	s.guardOnce.Do(func() {
		if s.guard == nil {
			s.guard = &guard{metrics: newMetrics()}
			s.guard.rules.Store(&guardRules{access: map[string]*access.Access{}, clones: map[cloneKey]*Server{}})
			s.guard.nextCheck.Store(time.Now().Add(recheckEvery).UnixNano())
		}
	})
	return s.guard
}

// update replaces the rules in force with a copy f changed.
func (g *guard) update(f func(r *guardRules)) {
	g.reloadMu.Lock()
	defer g.reloadMu.Unlock()
	old := g.rules.Load()
	r := &guardRules{auth: old.auth, access: map[string]*access.Access{}, clones: map[cloneKey]*Server{}}
	for k, v := range old.access {
		r.access[k] = v
	}
	f(r)
	g.rules.Store(r)
}

// cloneKey names the clone of a server for a user class and mode.
type cloneKey struct {
	user   access.User
	strict bool
}

// clone returns the server whose routes see user (and drop what is not
// "allow", when strict) under rules: made once per user the rules name,
// per mode (other users see the rules as any unnamed user does).
func (s *Server) clone(rules *guardRules, user access.User, strict bool) *Server {
	g := s.guard
	if user.Set {
		named := false
		for _, a := range rules.access {
			if a.Names(user.Name) {
				named = true
				break
			}
		}
		if !named {
			// every name no rule names behaves alike
			user.Name = "\x00unnamed"
		}
	}
	k := cloneKey{user, strict}
	rules.mu.Lock()
	defer rules.mu.Unlock()
	if c := rules.clones[k]; c != nil {
		return c
	}
	var colls []*Collection
	for _, n := range s.names {
		colls = append(colls, s.colls[n])
	}
	c, err := NewServer(colls...)
	if err != nil {
		// the same collections made s
		panic(err)
	}
	c.Log, c.Now, c.guard, c.user, c.strict, c.rules = s.Log, s.Now, g, user, strict, rules
	c.ACLUserHeader = s.ACLUserHeader
	rules.clones[k] = c
	return c
}

// serveGuarded is ServeHTTP: metrics, access log, authentication, access
// rules, then the routes.
func (s *Server) serveGuarded(w http.ResponseWriter, r *http.Request) {
	g := s.guardState()
	start := time.Now()
	rw := &respWriter{ResponseWriter: w}
	route := routeOf(r, s)
	g.metrics.inFlight.Add(1)
	defer func() {
		g.metrics.inFlight.Add(-1)
		if rw.code == 0 {
			rw.code = http.StatusOK
		}
		g.metrics.observe(route, rw.code, time.Since(start), rw.n)
		if s.AccessLog != nil {
			s.logAccess(r, rw, start)
		}
	}()
	if r.URL.Path == "/healthz" {
		s.serveRoutes(rw, r)
		return
	}
	s.reloadRules(g)
	rules := g.rules.Load()
	user := access.User{}
	if rules.auth != nil && !(r.Method == http.MethodOptions && route == "file") {
		name, ok := rules.auth.Check(r)
		if !ok {
			challenge(rw, rules.auth)
			return
		}
		user = access.User{Set: true, Name: name}
		rw.user = name
	}
	if r.URL.Path == "/metrics" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		g.metrics.serve(rw, r)
		return
	}
	if len(rules.access) == 0 {
		s.serveRoutes(rw, r)
		return
	}
	if s.ACLUserHeader {
		if v, ok := r.Header["X-Pywb-Acl-User"]; ok && len(v) > 0 {
			user = access.User{Set: true, Name: v[0]}
		}
	}
	if route == "file" {
		// a WACZ file holds every capture: not served past access rules
		if coll, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/"); rules.access[coll] != nil {
			jsonError(rw, http.StatusForbidden, "Forbidden: the collection has access rules")
			return
		}
	}
	if route == "replay" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		if coll, ts, u, ok := parseReplayForm(r.RequestURI); ok {
			if _, known := s.colls[coll]; known || coll == "all" {
				c := s.clone(rules, user, false)
				if blocked := c.blocked(r, coll, ts, u); blocked != "" {
					jsonError(rw, http.StatusUnavailableForLegalReasons, "Access Blocked to "+u)
					return
				}
				s.clone(rules, user, true).serveRoutes(rw, r)
				return
			}
		}
	}
	// the CDX API and the TimeMaps list blocked captures (marked
	// "access": "block", as pywb lists them); every other page (the web
	// pages, a capture's record) never sees them
	s.clone(rules, user, route != "cdx" && route != "timemap").serveRoutes(rw, r)
}

// blocked is pywb's ResourceHandler check: the access of the first
// capture a replay of URL at ts would load, when it is not "allow".
func (s *Server) blocked(r *http.Request, coll, ts, u string) string {
	src, ok := s.source(coll)
	if !ok {
		return ""
	}
	closest := ts
	if closest == "" {
		closest = "now"
		if ad := r.Header.Get("Accept-Datetime"); ad != "" {
			if t, ok := acceptDatetime(ad); ok {
				closest = t
			}
		}
	}
	q := &query{params: map[string]string{"url": u, "closest": closest, "sort": "closest", "limit": "100", "matchType": "exact"}, now: s.Now, done: new([]func())}
	defer func() {
		for _, f := range *q.done {
			f()
		}
	}()
	if q.checkLimits() != nil {
		return ""
	}
	acl, ruled := src.(*aclSource)
	if !ruled {
		return ""
	}
	// pywb's order: the fuzzy match, then the access rules
	run := func(q *query) (iterFunc, error) { return runQuery(acl.inner, q) }
	it, err := run(q)
	if err != nil {
		return ""
	}
	c, err := acl.filter(fuzzyIter(it, q, run))()
	if c == nil || err != nil {
		return ""
	}
	if a := c.gets("access"); a != "" && a != "allow" {
		return a
	}
	return ""
}

// challenge answers 401 with a WWW-Authenticate per kind of entry of a.
func challenge(w http.ResponseWriter, a *access.Auth) {
	for _, c := range a.Challenges() {
		w.Header().Add("WWW-Authenticate", c)
	}
	jsonError(w, http.StatusUnauthorized, "Unauthorized")
}

// aclKey is the key pywb looks a capture's URL up with: CDXQuery's
// (a final "*" or a first "*." change the match type, as for a query).
func aclKey(u string) string {
	mt := "exact"
	switch {
	case strings.HasPrefix(u, "*."):
		u, mt = u[2:], "domain"
	case strings.HasSuffix(u, "*"):
		u, mt = u[:len(u)-1], "prefix"
	}
	k, _, err := calcSearchRange(u, mt, pywbCanon)
	if err != nil {
		return ""
	}
	return k
}

// routeOf names a request's route for the metrics (a bounded set).
func routeOf(r *http.Request, s *Server) string {
	p := r.URL.Path
	switch {
	case p == "/healthz":
		return "healthz"
	case p == "/metrics":
		return "metrics"
	case p == "/":
		return "index"
	}
	target := r.RequestURI
	if _, _, _, ok := parseReplayForm(target); ok {
		return "replay"
	}
	rest := strings.TrimPrefix(p, "/")
	_, sub, _ := strings.Cut(rest, "/")
	switch {
	case sub == "cdx":
		return "cdx"
	case strings.HasPrefix(sub, "timemap/"):
		return "timemap"
	case strings.HasPrefix(sub, "file/"):
		return "file"
	case strings.HasPrefix(rest, "static/"):
		return "static"
	}
	return "other"
}

// respWriter records the status and the bytes of an answer.
type respWriter struct {
	http.ResponseWriter
	code int
	n    int64
	user string
}

func (w *respWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *respWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(p)
	w.n += int64(n)
	return n, err
}

// ReadFrom keeps the connection's sendfile path for file answers.
func (w *respWriter) ReadFrom(r io.Reader) (int64, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	n, err := io.Copy(w.ResponseWriter, r)
	w.n += n
	return n, err
}

// Flush passes a flush on.
func (w *respWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *respWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// secretParams are query parameters whose values the access log hides.
func secretParam(k string) bool {
	k = strings.ToLower(k)
	for _, s := range []string{"token", "key", "secret", "pass", "pwd", "auth", "sig", "credential", "session"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return strings.HasPrefix(k, "x-amz-")
}

// maxLogTarget bounds the request target in an access log line.
const maxLogTarget = 4096

// logTarget is the request target with secret parameters' values
// replaced by "REDACTED", cut to maxLogTarget bytes.
func logTarget(target string) string {
	path, q, ok := strings.Cut(target, "?")
	if ok {
		parts := strings.Split(q, "&")
		for i, p := range parts {
			k, _, has := strings.Cut(p, "=")
			if has && secretParam(k) {
				parts[i] = k + "=REDACTED"
			}
		}
		target = path + "?" + strings.Join(parts, "&")
	}
	if len(target) > maxLogTarget {
		target = target[:maxLogTarget] + "..."
	}
	return target
}

// logEscape escapes '"', '\' and bytes outside printable ASCII as \xHH
// (Apache's way), so that a field cannot end the quotes or the line.
func logEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, "\\x%02x", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// logAccess writes the combined log format line of a request:
// HOST - USER [TIME] "METHOD TARGET PROTO" STATUS BYTES "REFERER" "AGENT".
func (s *Server) logAccess(r *http.Request, rw *respWriter, start time.Time) {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	user := "-"
	if rw.user != "" {
		user = logEscape(rw.user)
	}
	size := "-"
	if rw.n > 0 {
		size = strconv.FormatInt(rw.n, 10)
	}
	ref, ua := r.Referer(), r.UserAgent()
	if len(ref) > maxLogTarget {
		ref = ref[:maxLogTarget]
	}
	if len(ua) > 1024 {
		ua = ua[:1024]
	}
	line := fmt.Sprintf("%s - %s [%s] \"%s %s %s\" %d %s \"%s\" \"%s\"\n",
		logEscape(host), user, start.Format("02/Jan/2006:15:04:05 -0700"),
		logEscape(r.Method), logEscape(logTarget(r.RequestURI)), logEscape(r.Proto),
		rw.code, size, logEscape(logTarget(ref)), logEscape(ua))
	g := s.guard
	g.logMu.Lock()
	defer g.logMu.Unlock()
	io.WriteString(s.AccessLog, line)
}
