// Package replay serves archives as pywb 2.10 serves them: collections
// over index sources (a WACZ read in place through its own index, a pywb
// ZipNum cluster, a folder of CDX/CDXJ files or of WARC/ARC files indexed
// once into a cache folder), the CDX server API at /COLL/cdx with pywb's
// parameters, orderings, content types and error bodies, and the
// payload of a capture at /COLL/TSid_/URL.
//
// The CDX API follows pywb 2.10.0's warcserver (pywb/warcserver/index:
// query.py, cdxops.py, cdxobject.py, aggregator.py, zipnum.py,
// fuzzymatcher.py) closely enough that its answers are byte for byte
// pywb's on the same data; the differences that remain are listed in
// cdxapi_pywb_test.go with their reasons. Query URLs are keyed with
// Python's surt (cdx.PySURT) as pywb keys them, except for a WACZ, whose
// index warcio.js keyed (surt.Key).
//
// Data flows one way: this package reads with lib/cdx, lib/wacz, lib/warc
// and lib/store; nothing but the command line (waczpack serve) imports it.
package replay
