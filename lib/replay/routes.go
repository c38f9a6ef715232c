package replay

import (
	"fmt"
	"net/http"
	"sort"
	"time"
)

// NewServer serves the collections under their names.
func NewServer(colls ...*Collection) (*Server, error) {
	mux := http.NewServeMux()
	s := &Server{colls: map[string]*Collection{}, Now: time.Now}
	replay := &replayHandler{s: s}
	cdxh := &cdxHandler{s: s}
	timemap := &timemapHandler{cdx: cdxh}
	// /COLL/TSid_/URL is matched on the raw request target, before
	// ServeMux, which would clean the URL's "//"
	s.routes = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// the web pages for people (ui.go) take their raw targets first
		if s.uiRaw(w, r) {
			return
		}
		if _, ok := parseReplay(r.RequestURI); ok && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			replay.ServeHTTP(w, r)
			return
		}
		if timemapPath.MatchString(r.RequestURI) && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			timemap.ServeHTTP(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
	for _, c := range colls {
		if !ValidName(c.Name) {
			return nil, fmt.Errorf("%q: not a collection name (letters, digits, '-', '_', '.'; not all, healthz or static)", c.Name)
		}
		if _, dup := s.colls[c.Name]; dup {
			return nil, fmt.Errorf("two collections named %q", c.Name)
		}
		s.colls[c.Name] = c
		s.names = append(s.names, c.Name)
	}
	sort.Strings(s.names)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("ok\n"))
	})
	mux.Handle("GET /{coll}/cdx", cdxh)
	s.uiRoutes(mux)
	mux.HandleFunc("/{coll}/file/{name}", s.serveWACZFile)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			jsonError(w, http.StatusMethodNotAllowed, "Method Not Allowed")
			return
		}
		if r.URL.Path == "/" {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			for _, n := range s.names {
				c := s.colls[n]
				if f := c.FileURL(); f != "" {
					// a WACZ: where its file is served
					fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", n, c.Kind, c.Source, f)
					continue
				}
				fmt.Fprintf(w, "%s\t%s\t%s\n", n, c.Kind, c.Source)
			}
			return
		}
		if s.refererFallback(w, r) {
			return
		}
		jsonError(w, http.StatusNotFound, "No Resource Found")
	})
	return s, nil
}
