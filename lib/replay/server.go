package replay

import (
	"io"
	"log"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/arcport/arcport/lib/replay/access"
)

// Server answers HTTP requests for its collections:
//
//	GET /healthz              "ok" (never behind --auth-file)
//	GET /metrics              Prometheus text exposition (metrics.go)
//	GET /COLL/cdx?url=...     the CDX server API (pywb 2.10's)
//	GET /all/cdx?url=...      the same over every collection
//	GET /COLL/TSid_/URL       a capture's payload as archived
//	GET /COLL/TS/URL          the top frame: a banner and an iframe on mp_ (frame.go)
//	GET /COLL/TSmp_/URL       the capture rewritten to stay in the archive
//	                          (also js_, cs_, im_, oe_, if_, fr_: rewrite*.go)
//	GET /COLL/id_/URL         the Memento TimeGate (Accept-Datetime)
//	GET /COLL/timemap/OUT/URL a Memento TimeMap (link, json, cdxj)
//	GET /COLL/file/NAME.wacz  a WACZ collection's file (HEAD, Range, CORS)
//	GET /, /COLL/, /COLL/*/URL, /COLL/pages, /COLL/record
//	                          the web pages for people (ui*.go)
//
// Each route is its own http.Handler on an http.ServeMux. In front of
// them (guard.go): authentication (SetAuth), pywb's access rules
// (SetAccess: exclude and block, 451), the access log and the metrics.
type Server struct {
	colls map[string]*Collection
	names []string
	// routes answers the requests (routes.go).
	routes http.Handler
	// Log, when set, gets one line per request that failed inside.
	Log *log.Logger
	// Now is the clock for closest=now and embargoes (default time.Now).
	Now func() time.Time

	// AccessLog, when set, gets a line per request in the combined log
	// format (guard.go).
	AccessLog io.Writer
	// ACLUserHeader makes the X-Pywb-Acl-User request header the user
	// ACL rules see (pywb's way: for a server behind a proxy that sets
	// it); otherwise the user is the name --auth-file authenticated.
	ACLUserHeader bool

	guard     *guard
	guardOnce sync.Once
	// user and strict are set on a clone (guard.clone): the user the
	// ACL rules see, and whether captures that are not "allow" are
	// dropped (replay) rather than marked (the CDX API).
	user   access.User
	strict bool
	// rules are the rules a clone applies (nil: the guard's)
	rules *guardRules
}

// guard is the state a server and its clones share.
type guard struct {
	// rules are the credentials and access rules in force, replaced
	// whole when their files change (reload.go): a request sees the
	// rules of its start
	rules   atomic.Pointer[guardRules]
	metrics *metrics
	logMu   sync.Mutex

	// reloadMu serializes the replacements of rules; nextCheck is when
	// their files are looked at again (unix nanoseconds)
	reloadMu  sync.Mutex
	nextCheck atomic.Int64
}

// guardRules is one version of the credentials and access rules, with
// the clones of the server that apply them.
type guardRules struct {
	auth   *access.Auth
	access map[string]*access.Access

	mu     sync.Mutex
	clones map[cloneKey]*Server
}

// Names returns the collection names, sorted.
func (s *Server) Names() []string { return append([]string(nil), s.names...) }

// ServeHTTP routes a request; a handler that panics answers 500.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.serveGuarded(w, r)
}

// serveRoutes runs the routes of s (a clone or the server itself).
func (s *Server) serveRoutes(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			if s.Log != nil {
				s.Log.Printf("%s %s: panic: %v", r.Method, r.URL.Path, v)
			}
			jsonError(w, http.StatusInternalServerError, "Internal Error")
		}
	}()
	s.routes.ServeHTTP(w, r)
}

// source returns the index source of a name ("all": every one), behind
// the access rules of its collections.
func (s *Server) source(name string) (indexSource, bool) {
	var src indexSource
	ruled := false
	if name == "all" {
		a := &allSource{}
		for _, n := range s.names {
			a.colls = append(a.colls, s.colls[n])
			ruled = ruled || s.accessFor(n) != nil
		}
		src = a
	} else {
		c, ok := s.colls[name]
		if !ok {
			return nil, false
		}
		src, ruled = c.top(), s.accessFor(name) != nil
	}
	if ruled {
		return &aclSource{inner: src, s: s, coll: name}, true
	}
	return src, true
}

// accessFor returns the access rules of a collection, if it has any.
func (s *Server) accessFor(name string) *access.Access {
	r := s.rules
	if r == nil {
		if s.guard == nil {
			return nil
		}
		r = s.guard.rules.Load()
	}
	return r.access[name]
}

// aclSource is a source behind its collections' access rules:
// AccessChecker.wrap_iter after the query's cdxops (runQuery).
type aclSource struct {
	inner indexSource
	s     *Server
	coll  string
}

func (a *aclSource) load(q *query) (iterFunc, error) { return a.inner.load(q) }

// filter drops the excluded captures (in strict mode, every one not
// "allow") and sets "access" on the others.
func (a *aclSource) filter(it iterFunc) iterFunc {
	now := time.Now
	if a.s.Now != nil {
		now = a.s.Now
	}
	t := now()
	// the captures of one URL come together: its rule is looked up once
	var lastURL string
	var lastAcc *access.Access
	var lastRule *access.Rule
	return func() (*cdxObj, error) {
		for {
			c, err := it()
			if c == nil || err != nil || c.idx {
				return c, err
			}
			u := c.gets(fURL)
			if u == "" {
				return c, nil
			}
			coll := c.gets("source-coll")
			if coll == "" {
				coll = a.coll
			}
			acc := a.s.accessFor(coll)
			if acc == nil {
				return c, nil
			}
			if u != lastURL || acc != lastAcc {
				lastURL, lastAcc, lastRule = u, acc, nil
				if acc.HasRules() {
					lastRule = acc.Rule(aclKey(u), a.s.user)
				}
			}
			v := acc.Decide(lastRule, c.gets(fTimestamp), t)
			if !a.s.shows(v) {
				continue
			}
			c.set("access", str(v))
			return c, nil
		}
	}
}

// shows reports whether s lists a capture of access v (Access.Decide):
// not when it is excluded, nor, in strict mode, when it is not "allow".
func (s *Server) shows(v string) bool { return v != "" && !(s.strict && v != "allow") }

// pageVisible returns the check of a page of collection coll (its URL,
// the time-stamp of its capture) against the collection's access rules as
// s's user sees them: the decision aclSource.filter makes for a capture
// of the URL at that time.
func (s *Server) pageVisible(coll string) func(u, ts string) bool {
	acc := s.accessFor(coll)
	if acc == nil {
		return func(string, string) bool { return true }
	}
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	t := now()
	return func(u, ts string) bool {
		var rule *access.Rule
		if acc.HasRules() {
			rule = acc.Rule(aclKey(u), s.user)
		}
		return s.shows(acc.Decide(rule, ts, t))
	}
}

// HTTPServer returns an http.Server for s with the limits a public server
// needs: 10 s to read a request's head, heads up to 2 MiB (a 1 MB query
// string is answered, not refused), idle connections closed after 2
// minutes.
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    2 << 20,
		ErrorLog:          s.Log,
	}
}

// replayForm is a replay URL of any modifier: /COLL/TS{mod}/URL with a
// time-stamp or a modifier (id_, mp_, ...), or /COLL/URL.
var replayForm = regexp.MustCompile(`^/([^/?#]+)/(?:([0-9]{0,14})([a-z]{2}_)?/)?((?:https?:|[A-Za-z0-9.-]+\.[A-Za-z]).*)$`)

// parseReplayForm returns the collection, time-stamp and URL of a replay
// URL of any modifier.
func parseReplayForm(target string) (coll, ts, u string, ok bool) {
	m := replayForm.FindStringSubmatch(target)
	if m == nil || strings.HasPrefix(m[4], "timemap/") {
		return "", "", "", false
	}
	return m[1], m[2], fixScheme(m[4]), true
}
