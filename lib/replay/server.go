package replay

import (
	"log"
	"net/http"
	"time"
)

// Server answers HTTP requests for its collections:
//
//	GET /healthz              "ok"
//	GET /COLL/cdx?url=...     the CDX server API (pywb 2.10's)
//	GET /all/cdx?url=...      the same over every collection
//	GET /COLL/TSid_/URL       a capture's payload as archived
//	GET /COLL/id_/URL         the Memento TimeGate (Accept-Datetime)
//	GET /COLL/timemap/OUT/URL a Memento TimeMap (link, json, cdxj)
//	GET /COLL/file/NAME.wacz  a WACZ collection's file (HEAD, Range, CORS)
//
// Each route is its own http.Handler on an http.ServeMux.
type Server struct {
	colls map[string]*Collection
	names []string
	// routes answers the requests (routes.go).
	routes http.Handler
	// Log, when set, gets one line per request that failed inside.
	Log *log.Logger
	// Now is the clock for closest=now (default time.Now).
	Now func() time.Time
}

// Names returns the collection names, sorted.
func (s *Server) Names() []string { return append([]string(nil), s.names...) }

// ServeHTTP routes a request; a handler that panics answers 500.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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

// collection returns the index source of a name ("all": every one).
func (s *Server) source(name string) (indexSource, bool) {
	if name == "all" {
		a := &allSource{}
		for _, n := range s.names {
			a.colls = append(a.colls, s.colls[n])
		}
		return a, true
	}
	c, ok := s.colls[name]
	if !ok {
		return nil, false
	}
	return c.top(), true
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
