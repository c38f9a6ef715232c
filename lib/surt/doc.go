// Package surt computes SURT keys (Sort-friendly URI Reordering Transform)
// exactly as warcio.js getSurt does, which is what ReplayWeb.page (wabac.js)
// uses to look captures up in a CDXJ index: a CDXJ line keyed by Key(url) is
// found by ReplayWeb.page for url.
//
// The algorithm (warcio.js 2.4, src/lib/utils.ts getSurt):
//
//  1. URLs not starting with "http:" or "https:" (case-sensitive) are
//     returned unchanged (dns:, urn:, file:, "HTTP://...").
//  2. A leading "www", optional digits and "." after "http(s)://" is removed
//     (case-sensitive).
//  3. The URL is lower-cased with JavaScript String.prototype.toLowerCase
//     semantics (full Unicode mapping, final sigma) and parsed with the
//     WHATWG URL Standard (https://url.spec.whatwg.org/) as Node's URL class
//     does: tabs and newlines removed, backslashes as slashes, user info
//     dropped, hosts percent-decoded and mapped with UTS #46 (IDNA,
//     non-transitional) to punycode, IPv4 numbers in any radix normalised,
//     IPv6 compressed, default ports dropped, dot segments resolved, and
//     path and query percent-encoded with the WHATWG encode sets. A URL the
//     parser rejects is returned as it was after step 2.
//  4. The key is the host labels reversed and joined by ",", ":port" when not
//     the default, ")", the path, and "?" with the query arguments (split on
//     "&") sorted in code-unit order. The fragment is dropped.
package surt
