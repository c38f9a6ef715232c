// Package rewrite is the server-side rewriting of a capture for
// /COLL/TSmp_/URL (and the other modifiers of pywb: js_, cs_, im_, oe_,
// if_, fr_), as pywb's pywb/rewrite does it without wombat.js: every URL
// of a document that the browser would load or follow is made a URL of
// the replay server, /COLL/TS{mod}/URL, so that, with the
// Content-Security-Policy of lib/replay's frame.go, nothing is asked of
// the live web.
//
//   - HTML (lib/links' tokenizer and attribute table): href, src, srcset,
//     action, formaction, data, poster, background..., style attributes and
//     <style> (CSS below), meta refresh, <base href>; the JavaScript in
//     <script> and on* attributes as below; integrity attributes renamed
//     _integrity (a rewritten script or style sheet would fail its hash),
//     and <link rel=preconnect|dns-prefetch|prefetch|prerender> and <a
//     ping> made inert (_rel, _ping). A fragment-only link is left alone.
//   - CSS: url(...), quoted or not, and @import.
//   - JavaScript (and JSON): pywb's regex rewriter: every "http://HOST", "https://HOST"
//     (also with JSON-escaped slashes, http:\/\/HOST) and, right after a
//     quote, "//HOST" (protocol-relative) becomes the server's path; the
//     rest of the URL follows it unchanged.
//
// The document is rewritten as bytes, in place: only the URLs' text
// changes, every other byte (and so the charset, whatever it is, as long
// as it is ASCII-compatible) is kept; a document in UTF-16 or UTF-32 is
// not rewritten. A payload under a content coding (gzip, x-gzip, deflate
// (zlib or raw), br, zstd) is decoded for rewriting (Decode) and sent
// without it; another coding, or a document over MaxSize, is sent as
// captured.
//
// The server (lib/replay's frame.go) uses it so:
//
//	kind := rewrite.KindOf(mod, contentType, target) // rewrite.None: as captured
//	rw := &rewrite.Rewriter{Prefix: "/COLL/", TS: ts, Doc: docURL}
//	body, ok := rewrite.Decode(contentEncoding, raw)
//	out := rw.Body(kind, body)
//	location := rw.URL(location, mod) // also rw.LinkHeader, rw.Refresh
//
// It knows nothing of the server: it imports lib/links and the
// decompressors only, and only lib/replay imports it.
package rewrite
