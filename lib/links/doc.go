// Package links finds the links in web documents the way browsers tolerate
// them, following the parser design of HTTrack described in "Copying
// Websites" (X. Roche, ../shared/specs/copying-websites.txt, section 4.2):
//
//   - HTML (4.2.1): a tolerant tokenizer (golang.org/x/net/html) and every
//     URL-carrying attribute, each link tagged Embedded (a page requisite:
//     image, style sheet, script, frame...) or Navigational (a hyperlink).
//     Values are entity-decoded, tabs and CR/LF inside them dropped, quoted,
//     single-quoted or unquoted, <base href> honoured, fragments set apart,
//     and mailto:, javascript:, data: and other non-HTTP links skipped.
//   - CSS (<style>, style= and style sheets): url(...) quoted or not,
//     @import "x" and @import url(x), CSS escapes.
//   - JavaScript (4.2.2, <script>, on* attributes, javascript: links and script
//     files): quoted strings that look like URLs (a known extension or an
//     http(s): scheme), preceded by a safe character (= ( , ; [ :) and
//     followed by one (; ) , ] } : or end of line), so that expressions such
//     as dir + "/x.gif" are left alone.
//   - Java classes (4.2.3, Table 4.1): the constant pool is walked entry by
//     entry (bounds-checked); CONSTANT_Utf8 strings that look like resource
//     paths and CONSTANT_Class names outside the standard library become
//     links resolved against the applet codebase.
//
// Every Link carries the byte span of its value in the source (Start, End),
// the syntax around it and the quoting, so a document can be rewritten in
// place (lib/mirror) without re-serialising it: Link.Encode escapes a new
// value for exactly that spot.
//
// All extractors stream: they read from an io.Reader and report links
// through a callback in source order, holding at most one HTML token, one
// CSS/JS string or one class-file constant in memory.
package links
