// Package httpmsg parses the HTTP/1.x messages stored in web-archive record
// blocks (WARC application/http records, ARC bodies, HTTrack caches): the
// request or response head (RFC 9112 section 2-5, read tolerantly: bare LF,
// obsolete line folding, missing reason phrase), the chunked transfer coding
// (RFC 9112 section 7.1) as a pull reader and as a push decoder for hashing,
// and content codings (gzip, deflate, br, zstd).
package httpmsg
