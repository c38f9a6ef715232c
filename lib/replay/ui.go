package replay

import "net/http"

// uiRoutes registers the web pages for people on mux (more specific
// patterns than "/", which stays the fallback).
func (s *Server) uiRoutes(mux *http.ServeMux) {}

// uiRaw answers the requests of the web pages that must be matched on the
// raw request target (a URL inside the path, as /COLL/*/URL), before the
// replay routes and ServeMux; it reports whether it answered.
func (s *Server) uiRaw(w http.ResponseWriter, r *http.Request) bool { return false }
