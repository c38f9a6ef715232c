// Package ascii holds the hexadecimal-digit helpers the URL, CSS,
// JavaScript and chunked-encoding code of several packages share: HEXDIG of
// RFC 5234 (appendix B.1), as percent-encoding (RFC 3986, section 2.1 and
// the WHATWG URL Standard) uses it.
package ascii
