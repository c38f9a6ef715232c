// Package replay serves archives as pywb 2.10 serves them: collections
// over index sources (a WACZ read in place through its own index, a pywb
// ZipNum cluster, a sorted CDX/CDXJ file, a folder of index files, or a
// folder of WARC/ARC files indexed once into a cache folder), the CDX
// server API at /COLL/cdx with pywb's parameters, orderings, content
// types and error bodies, and the capture of a URL at /COLL/TSid_/URL
// (archived status, headers and payload; revisits resolved; 307 to the
// exact time-stamp), and Memento (RFC 7089): the headers of a memento,
// the TimeGate at /COLL/id_/URL and the TimeMaps at
// /COLL/timemap/{link,json,cdxj}/URL; a WACZ collection's file at
// /COLL/file/NAME.wacz (HEAD, Range, CORS: for ReplayWeb.page). For
// people: framed replay at /COLL/TS/URL (a banner over an iframe on
// /COLL/TSmp_/URL, the capture rewritten on the server so that it stays
// in the archive, under a Content-Security-Policy that allows only this
// server), and web pages (collections, URL search, a URL's calendar, a
// WACZ's pages, a record's detail). In front of every route: --auth-file
// users, pywb's .aclj access rules and embargoes, an access log and
// Prometheus metrics.
//
// It follows pywb 2.10.0 (pywb/warcserver/index: query.py, cdxops.py,
// cdxobject.py, aggregator.py, zipnum.py, fuzzymatcher.py;
// pywb/utils/binsearch.py and canonicalize.py; pywb/rewrite/
// header_rewriter.py and pywb/apps/rewriterapp.py for id_ replay;
// pywb/utils/memento.py and rewriterapp.py for Memento) closely enough
// that its answers are byte for byte pywb's on the same data:
// pywb_test.go, replay_pywb_test.go and memento_pywb_test.go compare
// them with a running pywb, pywbtests_test.go and memento_test.go hold
// the expected outputs of pywb's own tests. The
// differences that remain are listed there and in docs/waczpack.md, with
// their reasons. Query URLs are keyed with Python's surt (cdx.PySURT) as
// pywb keys them, except for a WACZ, whose index warcio.js keyed
// (surt.Key).
//
// Files, from the top: server.go (the Server, its limits) -> guard.go
// (authentication, rules, log, metrics in front of the routes) -> the
// subpackage access (pywb's .aclj rules and embargoes, --auth-file),
// metrics.go -> routes.go (the routes) -> ui*.go (the web pages),
// frame.go (the top frame), notfound.go (the HTML 404), replay.go (id_
// and the rewriting modifiers) -> the subpackage rewrite (HTML, CSS,
// scripts, headers, content codings), memento.go (TimeGate, TimeMaps,
// Accept-Datetime), waczfile.go (the WACZ file) -> cdxapi.go (the CDX API) -> archive.go (records read
// in place), collection.go (what a SRC is) -> warcfolder.go (WARC
// folders indexed into a cache) -> dirsource.go (folders of index files)
// -> waczsource.go (a WACZ in place), zipnum.go (pywb ZipNum clusters) ->
// source.go (sorted files, pywb's merge), fuzzy.go, openfiles.go (index
// files kept open, folder listings for a second) -> query.go (CDXQuery
// and cdxops), lines.go (binary search in place) -> cdxobj.go (CDXObject)
// -> errors.go -> pyjson.go (Python's JSON).
//
// Data flows one way: this package reads with lib/cdx, lib/wacz,
// lib/warc, lib/arc and lib/store, and imports its two subpackages,
// rewrite and access, which import nothing of it; nothing but the
// command line (waczpack serve, which also builds its access.Auth and
// access.Access) imports it.
package replay
